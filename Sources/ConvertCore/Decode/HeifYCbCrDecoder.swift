/// Decodes a HEIC image item straight to YCbCr 4:2:0 planes: the HEVC tiles of a grid (or the one
/// coded image) go through libde265 and are pasted into place (a last row or column that overhangs
/// the picture cropped on the planes; for JPEG, 4:2:2 tiles with each pair of chroma rows
/// averaged), and `irot`/`imir` are applied to the planes.
///
/// Two outputs: ``Output/jpeg`` gives 8-bit full-range BT.601 planes, JPEG's own layout (a 10-bit
/// or limited-range stream mapped sample by sample while pasting, see ``SampleMapping``; BT.709 and
/// BT.2020 re-expressed on the planes), for the JPEG encoder; ``Output/native`` keeps the stream's samples for an exact RGB conversion.
///
/// libheif 1.15 assembles a grid in RGB: it converts every tile from YCbCr, and the JPEG encoder
/// then converts the whole picture back. Those two conversions were a quarter of the CPU of an
/// iPhone HEIC → JPEG conversion (perf on heif-convert: libheif 25%, libde265 50%). Here there is
/// neither.
///
/// Anything it does not decode exactly (a `clap` crop, an unknown essential property, alpha,
/// other chroma formats, a tile that does not decode cleanly) makes it return nil, and the caller
/// decodes with libheif, which then gives the canonical result or error.
enum HeifYCbCrDecoder {
    /// The decoded picture and the YCbCr signalling it was coded with: the item's nclx box where
    /// it has one, else its stream's (VUI); for ``Output/jpeg`` a BT.709 or BT.2020 picture is
    /// re-expressed in BT.601 on the planes, and `matrix` says 6.
    package struct Decoded {
        package var image: YCbCr420Image
        package var fullRange: Bool
        package var matrix: Int
    }

    /// What the planes are for.
    package enum Output: Sendable, Equatable {
        /// 8-bit full-range samples, whatever the stream's depth and range.
        case jpeg
        /// The stream's own samples.
        case native
        /// The stream's own samples, a 4:2:2 stream's chroma rows averaged in pairs (as for
        /// JPEG): for an HDR still that is tone mapped to 8 bits anyway (``HDRStill``).
        case nativeAveraging422
    }

    /// The most coded bytes read for one image, all its tiles together (a tile is tens of KB, a
    /// whole 48 MP image a few MB).
    private static let maximumItemBytes = 256 << 20
    /// The most tiles a grid may have (its rows and columns are each at most 256).
    private static let maximumTiles = 256 * 256

    /// Decodes the primary image of the HEIC at `path` on `threads` threads (0 or 1: the calling
    /// thread), or returns nil when it is not a picture this path takes.
    package static func decodePrimary(
        path: String, threads: Int, maxPixels: Int, output: Output = .jpeg, cancellation: CancellationFlag
    ) throws(ConvertError) -> Decoded? {
        guard let file = try? HeifFile.open(path: path) else { return nil }
        return try decode(
            file, item: file.primaryID, threads: threads, maxPixels: maxPixels, output: output,
            cancellation: cancellation)
    }

    /// Decodes image `item` of `file`, or returns nil when it is not a picture this path takes.
    /// `progress` hears of each tile decoded.
    package static func decode(
        _ file: HeifFile, item: UInt32, threads: Int, maxPixels: Int, output: Output, cancellation: CancellationFlag,
        progress: DecodeProgress? = nil
    ) throws(ConvertError) -> Decoded? {
        guard let plan = try? Plan(file: file, item: item, maxPixels: maxPixels) else { return nil }
        try cancellation.check()
        let tiles = progress?.counter(tiles: plan.tiles.count)
        return try decode(consume plan, threads: threads, output: output, cancellation: cancellation, tiles: tiles)
    }

    /// The tiles' coded bytes, each handed out once: a worker takes a tile's bytes and lets them go
    /// as soon as libde265 holds its own copy, so the coded picture (7 MB for a 12 MP single
    /// image) is not kept beside the decoded one.
    final class TileBytes: Sendable {
        private let tiles: PthreadLocked<[[UInt8]]>
        /// How many tiles there are.
        let count: Int

        init(_ tiles: [[UInt8]]) {
            count = tiles.count
            self.tiles = PthreadLocked(tiles)
        }

        /// Tile `index`'s bytes; empty when it was taken before.
        func take(_ index: Int) -> [UInt8] {
            tiles.withLock { tiles in
                defer { tiles[index] = [] }
                return tiles[index]
            }
        }
    }

    /// What to decode and how to assemble it, read from the file's item structure.
    package struct Plan: Sendable {
        package var width: Int
        package var height: Int
        package var columns: Int
        var tileWidth: Int
        var tileHeight: Int
        package var configuration: HEVCConfiguration
        /// Each tile's coded bytes, row by row.
        var tiles: [[UInt8]]
        var transforms: [YCbCr420Image.Transform]
        /// The item's nclx range and matrix, which take precedence over the stream's.
        var signalling: (fullRange: Bool, matrix: Int)?

        fileprivate struct Unsuitable: Error {}

        package init(file: HeifFile, item: UInt32, maxPixels: Int) throws {
            let table = file.meta
            transforms = file.transforms(item)
            signalling = file.nclx(item).map { ($0.fullRange, $0.matrix.code) }
            guard !file.hasAlpha(item) else { throw Unsuitable() }
            for association in table.properties[item] ?? [] {
                switch association.property {
                case .clap: throw Unsuitable()
                case .other where association.essential: throw Unsuitable()
                default: break
                }
            }
            let tileIDs: [UInt32]
            let rows: Int
            switch table.types[item] {
            case "grid":
                guard let descriptor = try table.data(of: item, limit: 64), descriptor.count >= 8, descriptor[0] == 0
                else { throw Unsuitable() }
                var cursor = ByteCursor(descriptor, type: "grid")
                try cursor.skip(1)
                let wide = try cursor.u8() & 1 == 1
                rows = Int(try cursor.u8()) + 1
                columns = Int(try cursor.u8()) + 1
                width = wide ? Int(try cursor.u32()) : Int(try cursor.u16())
                height = wide ? Int(try cursor.u32()) : Int(try cursor.u16())
                tileIDs = table.derivedFrom[item] ?? []
            case "hvc1":
                rows = 1
                columns = 1
                width = 0
                height = 0
                tileIDs = [item]
            default:
                throw Unsuitable()
            }
            guard !tileIDs.isEmpty, tileIDs.count == rows * columns, tileIDs.count <= HeifYCbCrDecoder.maximumTiles
            else {
                throw Unsuitable()
            }
            var record: [UInt8]?
            var tileSize: (Int, Int)?
            var tiles: [[UInt8]] = []
            var codedBytes = 0
            for id in tileIDs {
                guard table.types[id] == "hvc1" else { throw Unsuitable() }
                var hvcC: [UInt8]?
                var ispe: (Int, Int)?
                for association in table.properties[id] ?? [] {
                    switch association.property {
                    case .hvcC(let bytes): hvcC = bytes
                    case .ispe(let width, let height): ispe = (width, height)
                    case .icc, .nclx, .pixi, .auxC: break
                    // A tile's own transforms are the item's when the image is not a grid
                    // (read above); on a grid tile libheif ignores nothing, so neither do we.
                    case .irot, .imir: if id != item { throw Unsuitable() }
                    case .clap: throw Unsuitable()
                    case .other, .av1C: if association.essential { throw Unsuitable() }
                    }
                }
                // Every tile must decode with the same configuration and size.
                guard let hvcC, let ispe, record == nil || record == hvcC, tileSize == nil || tileSize! == ispe else {
                    throw Unsuitable()
                }
                record = hvcC
                tileSize = ispe
                // The limit is for all tiles together: items may share extents, so a hostile grid
                // of many tiles naming one large extent must not be read once per tile.
                guard let data = try table.data(of: id, limit: HeifYCbCrDecoder.maximumItemBytes - codedBytes) else {
                    throw Unsuitable()
                }
                codedBytes += data.count
                tiles.append(data)
            }
            guard let record, let configuration = HEVCConfiguration(record), let (tileWidth, tileHeight) = tileSize,
                (1...2).contains(configuration.chromaFormat), (8...16).contains(configuration.lumaBitDepth),
                configuration.chromaBitDepth == configuration.lumaBitDepth, tileWidth > 0, tileHeight > 0
            else { throw Unsuitable() }
            self.configuration = configuration
            self.tileWidth = tileWidth
            self.tileHeight = tileHeight
            if tileIDs == [item] {
                width = tileWidth
                height = tileHeight
            }
            // Tiles start on even positions (whole chroma samples) and cover the picture.
            guard width > 0, height > 0, columns == 1 || tileWidth % 2 == 0, rows == 1 || tileHeight % 2 == 0,
                columns * tileWidth >= width, rows * tileHeight >= height,
                width <= maxPixels, height <= maxPixels, width * height <= maxPixels
            else { throw Unsuitable() }
            self.tiles = tiles
        }
    }

    static func decode(
        _ plan: consuming Plan, threads: Int, output: Output, cancellation: CancellationFlag, tiles: TileCounter? = nil
    ) throws(ConvertError) -> Decoded? {
        // 4:2:2 becomes 4:2:0 on the planes, which JPEG codes anyway; an exact RGB conversion
        // needs every chroma row, and libheif gives it.
        guard plan.configuration.chromaFormat == 1 || output != .native else { return nil }
        let depth = output == .jpeg ? 8 : plan.configuration.lumaBitDepth
        let image = YCbCr420Image(width: plan.width, height: plan.height, bitDepth: depth)
        let bytes = TileBytes(plan.tiles)
        plan.tiles = []
        let layout = copy plan
        guard
            let decoded = try paste(
                layout, bytes: bytes, into: image, threads: threads, output: output, cancellation: cancellation,
                tiles: tiles)
        else { return nil }
        var signalling = plan.signalling ?? decoded
        if output == .jpeg, let matrix = YCbCr420Image.MatrixChange(from: signalling.matrix) {
            try cancellation.check()
            image.convertToBT601(matrix)
            signalling.matrix = 6
        }
        var picture = image
        for transform in plan.transforms {
            try cancellation.check()
            picture = picture.applying(transform)
        }
        return Decoded(image: picture, fullRange: signalling.fullRange, matrix: signalling.matrix)
    }

    /// Decodes every tile on up to `threads` workers and pastes it into `image`, returning the
    /// YCbCr signalling (VUI) they agree on, or nil when a tile fails or they disagree.
    private static func paste(
        _ plan: Plan, bytes: TileBytes, into image: YCbCr420Image, threads: Int, output: Output,
        cancellation: CancellationFlag, tiles: TileCounter?
    ) throws(ConvertError) -> (fullRange: Bool, matrix: Int)? {
        let workers = max(1, min(threads, bytes.count))
        // Per worker: its tiles' YCbCr signalling (VUI), or a failure (also a worker that never ran).
        let outcomes = PthreadLocked<[Outcome]>(Array(repeating: .failed, count: workers))
        let work: @Sendable (Int) -> Void = { worker in
            let outcome = decodeTiles(
                plan, bytes: bytes, worker: worker, of: workers, threads: threads, into: image, output: output,
                cancellation: cancellation, tiles: tiles)
            outcomes.withLock { $0[worker] = outcome }
        }
        // Worker 0 on the calling thread, the others on the helpers of the codec thread's pool.
        WorkerPool.current.forEach(iterations: workers, work)
        try cancellation.check()
        var signalling: (fullRange: Bool, matrix: Int)?
        for result in outcomes.withLock({ $0 }) {
            guard case .decoded(let fullRange, let matrix) = result else { return nil }
            // Tiles that disagree on their YCbCr signalling cannot share one picture.
            if let signalling, signalling != (fullRange, matrix) { return nil }
            signalling = (fullRange, matrix)
        }
        return signalling
    }

    private enum Outcome: Sendable {
        case decoded(fullRange: Bool, matrix: Int)
        case failed
    }

    /// Decodes tiles `worker`, `worker + workers`, ... with one decoder, pasting each into `image`.
    private static func decodeTiles(
        _ plan: Plan, bytes: TileBytes, worker: Int, of workers: Int, threads: Int, into image: YCbCr420Image,
        output: Output,
        cancellation: CancellationFlag, tiles: TileCounter?
    ) -> Outcome {
        // One picture (not a grid): libde265's own threads are the only way to use the cores.
        let decoderThreads = bytes.count == 1 ? threads : 0
        guard let decoder = try? HEVCDecoder(workerThreads: decoderThreads) else { return .failed }
        var signalling: (fullRange: Bool, matrix: Int)?
        var mappings: [Bool: SampleMapping?] = [:]
        for index in stride(from: worker, to: bytes.count, by: workers) {
            guard !cancellation.isCancelled else { return .failed }
            let x = (index % plan.columns) * plan.tileWidth
            let y = (index / plan.columns) * plan.tileHeight
            guard
                let tileSignalling = decodeTile(
                    index, of: plan, bytes: bytes, with: decoder, into: image, x: x, y: y, output: output,
                    mappings: &mappings),
                signalling == nil || signalling! == tileSignalling
            else { return .failed }
            signalling = tileSignalling
            tiles?.tileDone()
        }
        guard let signalling else { return .failed }
        return .decoded(fullRange: signalling.fullRange, matrix: signalling.matrix)
    }

    /// Decodes tile `index` with `decoder` and pastes it into `image` at (`x`, `y`) (for JPEG
    /// through the sample tables of its range, kept in `mappings`): its YCbCr signalling (VUI),
    /// or nil when it does not decode cleanly to the plan's tile.
    static func decodeTile(
        _ index: Int, of plan: Plan, bytes: TileBytes, with decoder: HEVCDecoder, into image: YCbCr420Image, x: Int,
        y: Int,
        output: Output, mappings: inout [Bool: SampleMapping?]
    ) -> (fullRange: Bool, matrix: Int)? {
        let taking422 = plan.configuration.chromaFormat == 2
        let decoded = try? decoder.decode(
            configuration: plan.configuration, data: bytes.take(index), taking422: taking422
        ) {
            picture -> (Bool, Int)? in
            guard picture.width == plan.tileWidth, picture.height == plan.tileHeight,
                picture.bitDepth == plan.configuration.lumaBitDepth, picture.chromaFullHeight == taking422
            else { return nil }
            var mapping: SampleMapping?
            if output == .jpeg {
                let fullRange = plan.signalling?.fullRange ?? picture.fullRange
                if let known = mappings[fullRange] {
                    mapping = known
                } else {
                    mapping = SampleMapping(bitDepth: picture.bitDepth, fullRange: fullRange)
                    mappings[fullRange] = mapping
                }
            }
            image.paste(picture, x: x, y: y, mapping: mapping)
            return (picture.fullRange, picture.matrix)
        }
        return decoded.map { (fullRange: $0.0, matrix: $0.1) }
    }
}
