extension HeifYCbCrDecoder {
    /// What ``jpeg(_:item:threads:maxPixels:quality:cancellation:)`` gives.
    package enum JPEGOutcome {
        /// The picture's bare JPEG stream (no metadata), encoded band by band, with its size.
        case stream([UInt8], width: Int, height: Int)
        /// The whole picture's planes, for a picture that is not banded (a single coded image,
        /// more than one transform): the caller encodes them.
        case planes(Decoded)
        /// A tile of the banded picture did not decode cleanly (a damaged stream): the caller
        /// lets libheif decode what it can, and says so.
        case damagedTile
    }

    /// HEIC → JPEG for the direct path: a grid is decoded one row of tiles at a time (one column,
    /// when `irot` turns it a quarter), each band mapped, re-expressed in BT.601 and turned on its
    /// own planes and handed to a ``JPEGStreamWriter``, so that at most two bands' planes exist at
    /// a time (``BandPipeline``; a 12 MP iPhone photo's are 18 MB whole, 3 MB a band). The stream is the one the
    /// whole picture's planes would give. Other pictures are decoded whole. Nil when this path does
    /// not take the picture (as for ``decode(_:item:threads:maxPixels:output:cancellation:)``),
    /// also when its matrix is not one JPEG codes or can be re-expressed in. `banding` runs
    /// before the first band is decoded, when the picture is banded (work that would wait for the
    /// whole picture's decode can start beside the bands). `progress` hears of each tile decoded.
    package static func jpeg(
        _ file: HeifFile, item: UInt32, threads: Int, maxPixels: Int, quality: Int, cancellation: CancellationFlag,
        progress: DecodeProgress? = nil, banding: () -> Void = {}
    ) throws(ConvertError) -> JPEGOutcome? {
        guard let plan = try? Plan(file: file, item: item, maxPixels: maxPixels) else { return nil }
        try cancellation.check()
        let tiles = progress?.counter(tiles: plan.tiles.count)
        guard let bands = Bands(plan) else {
            return try decode(consume plan, threads: threads, output: .jpeg, cancellation: cancellation, tiles: tiles)
                .map { .planes($0) }
        }
        banding()
        return try encode(
            plan, in: bands, threads: threads, quality: quality, cancellation: cancellation, tiles: tiles)
    }

    /// Encodes the bands in order as ``BandPipeline`` decodes them.
    private static func encode(
        _ plan: consuming Plan, in bands: Bands, threads: Int, quality: Int, cancellation: CancellationFlag,
        tiles: TileCounter?
    ) throws(ConvertError) -> JPEGOutcome? {
        let bytes = TileBytes(plan.tiles)
        plan.tiles = []
        let layout = copy plan
        let writer = try JPEGStreamWriter(width: bands.outputWidth, height: bands.outputHeight, quality: quality)
        let pipeline = BandPipeline(
            layout, bytes: bytes, bands: bands, threads: threads, cancellation: cancellation, tiles: tiles)
        defer { pipeline.finish() }
        var agreed: (fullRange: Bool, matrix: Int)?
        for index in 0..<bands.count {
            guard let (band, signalling) = pipeline.band(index) else {
                try cancellation.check()
                return pipeline.hadDamagedTile ? .damagedTile : nil
            }
            guard agreed == nil || agreed! == signalling else { return nil }
            agreed = signalling
            let matrix = layout.signalling?.matrix ?? signalling.matrix
            if let change = YCbCr420Image.MatrixChange(from: matrix) {
                band.convertToBT601(change)
            } else if !jpegMatrices.contains(matrix) {
                return nil
            }
            try writer.add(bands.transform.map { band.applying($0) } ?? band)
            pipeline.release(index)
        }
        return .stream(try writer.finish(), width: bands.outputWidth, height: bands.outputHeight)
    }

    /// One band's tiles and where its planes start on the grid.
    struct TileRegion: Sendable {
        /// The tiles' indices, in the order they are taken.
        var tiles: [Int]
        /// The grid position of the band's top-left corner (even: on whole tiles).
        var x: Int
        var y: Int
    }

    /// The matrices JPEG codes in: BT.601 (5, 6), and 2 (unspecified) read as BT.601, as libheif does.
    static let jpegMatrices: Set<Int> = [2, 5, 6]

    /// How a grid is cut into bands in output order: rows of tiles, or columns when a quarter turn
    /// makes a tile column a band of output rows; nil for a picture that is not cut (one tile,
    /// more than one transform, or an odd-sized band, which would split a chroma row, anywhere
    /// but at the end).
    struct Bands {
        let transform: YCbCr420Image.Transform?
        /// Bands are tile columns (a quarter turn), not tile rows.
        let byColumns: Bool
        /// The first output band is the last tile row or column.
        let reversed: Bool
        let outputWidth: Int
        let outputHeight: Int
        private let width: Int, height: Int
        private let rows: Int, columns: Int
        private let tileWidth: Int, tileHeight: Int

        init?(_ plan: Plan) {
            guard plan.tiles.count > 1, plan.transforms.count <= 1 else { return nil }
            (width, height, columns, tileWidth, tileHeight) = (
                plan.width, plan.height, plan.columns, plan.tileWidth, plan.tileHeight
            )
            rows = plan.tiles.count / plan.columns
            transform = plan.transforms.first
            switch transform {
            case .rotate(let turns):
                let turns = ((turns % 4) + 4) % 4
                (byColumns, reversed) = (turns % 2 == 1, turns == 1 || turns == 2)
            case .mirror(let topToBottom): (byColumns, reversed) = (false, topToBottom)
            case nil: (byColumns, reversed) = (false, false)
            }
            (outputWidth, outputHeight) = byColumns ? (height, width) : (width, height)
            // The cropped last tile row (or column) is the only band that can be odd; first in
            // output order it would split a chroma row.
            let last = byColumns ? width - (columns - 1) * tileWidth : height - (rows - 1) * tileHeight
            guard !reversed || last % 2 == 0 || count == 1 else { return nil }
        }

        /// How many bands there are.
        var count: Int { byColumns ? columns : rows }

        /// Output band `index`: its tiles, where it starts on the grid, and its size before the
        /// transform.
        func region(_ index: Int) -> (tiles: TileRegion, width: Int, height: Int) {
            let line = reversed ? count - 1 - index : index
            if byColumns {
                let x = line * tileWidth
                let tiles = (0..<rows).map { $0 * columns + line }
                return (TileRegion(tiles: tiles, x: x, y: 0), min(tileWidth, width - x), height)
            }
            let y = line * tileHeight
            let tiles = (0..<columns).map { line * columns + $0 }
            return (TileRegion(tiles: tiles, x: 0, y: y), width, min(tileHeight, height - y))
        }
    }
}
