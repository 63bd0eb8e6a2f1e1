import FoundationEssentials

/// The arithmetic of hitting a file-size target: which quality to try next, when to give up on
/// quality, and how far to shrink the resolution. Pure functions over sizes, so every boundary
/// is unit-tested without encoding anything.
enum TargetSizeSolver {
    /// The quality range searched before the resolution is lowered.
    static let qualities: ClosedRange<Int> = 40...95
    /// Below this long edge the target is declared unreachable.
    fileprivate static let smallestLongEdge = 64

    /// The largest quality in `range` whose size is at most `target`, with that size, assuming
    /// size grows with quality; nil when even the lowest quality is too big. Calls `sizeAt` at
    /// most ⌈log2(count)⌉ + 1 times.
    static func largestQuality(
        in range: ClosedRange<Int>, target: Int64, sizeAt: (Int) throws(ConvertError) -> Int64
    ) throws(ConvertError) -> (quality: Int, size: Int64)? {
        let top = try sizeAt(range.upperBound)
        if top <= target { return (range.upperBound, top) }
        var low = range.lowerBound
        var high = range.upperBound - 1
        var best: (quality: Int, size: Int64)?
        while low <= high {
            let middle = (low + high) / 2
            let size = try sizeAt(middle)
            if size <= target {
                best = (middle, size)
                low = middle + 1
            } else {
                high = middle - 1
            }
        }
        return best
    }

    /// The next long edge to try when the lowest quality still gives `bytesAtFloor` > `target`
    /// bytes at `longEdge`. Encoded size grows roughly with the pixel count, so the edge scales
    /// with the square root of the ratio, with a 10% margin. The ratio is below 1, so the result
    /// is always at least 10% smaller than `longEdge` and the search ends.
    static func nextLongEdge(current longEdge: Int, bytesAtFloor: Int64, target: Int64) -> Int {
        precondition(bytesAtFloor > target && target > 0, "only called when the floor misses a positive target")
        let ratio = (Double(target) / Double(bytesAtFloor)).squareRoot() * 0.9
        return max(1, Int((Double(longEdge) * ratio).rounded(.down)))
    }
}

extension PhotoConverter {
    /// What one pass of the target-size search found.
    private enum Attempt {
        /// `quality` is nil where libwebp's own size search chose it.
        case found(bytes: [UInt8], quality: Int?, notes: [String])
        case shrink(to: Int)
    }

    /// Encodes `frame` as JPEG or WebP at the best quality (and, if needed, resolution) whose
    /// file is at most `target` bytes. Lower resolutions are decoded afresh from the source
    /// file through `opened` (no structure read again), never resampled from an earlier bitmap;
    /// `frame` is the only reference to the current bitmap and is emptied before each new decode,
    /// so at most one full-size bitmap is alive at a time.
    static func encodeToTarget(
        _ request: PhotoRequest, opened: OpenedPhoto, frameIndex: Int, frame: inout DecodedFrame?, target: Int64,
        metadata: OutputMetadata,
        gainMap: CarriedGainMap? = nil, cancellation: CancellationFlag
    ) throws(ConvertError) -> (bytes: [UInt8], quality: Int?, longEdge: Int?, notes: [String]) {
        let path = request.inputPath
        var longEdge: Int? = nil
        while true {
            switch try attempt(
                frame, request: request, target: target, metadata: metadata, gainMap: gainMap, longEdge: longEdge,
                cancellation: cancellation)
            {
            case .found(let bytes, let quality, var notes):
                if let gainMap { notes.append(gainMap.map.keptNote) }
                return (bytes, quality, longEdge, notes)
            case .shrink(let next):
                longEdge = next
                frame = nil
                var photo = try ImageDecoder.decode(
                    path: path, options: decodeOptions(for: request, maxLongEdge: next), cancellation: cancellation,
                    opened: opened)
                guard photo.frames.indices.contains(frameIndex) else {
                    throw ConvertError(
                        code: .inputChanged, message: "\(path) changed while it was being read.", path: path)
                }
                frame = photo.frames[frameIndex]
                photo.frames = []
            }
        }
    }

    /// One quality search at the frame's current resolution.
    /// With `gainMap` (a JPEG's HDR gain map), each quality's size is the whole Ultra HDR file's:
    /// the map is lined up with the picture at this resolution (`longEdge`) and encoded too.
    private static func attempt(
        _ frame: DecodedFrame?, request: PhotoRequest, target: Int64, metadata: OutputMetadata,
        gainMap: CarriedGainMap?,
        longEdge: Int?, cancellation: CancellationFlag
    ) throws(ConvertError) -> Attempt {
        let path = request.inputPath
        guard let source = frame?.bitmap else {
            throw ConvertError(code: .internalError, message: "\(path) has no image to compress.", path: path)
        }
        let bitmap = try prepare(source, for: request, path: path)
        let metadata = metadata.withPixelSize(width: bitmap.width, height: bitmap.height).carried(by: request.format)
        if request.format == .webp,
            let bytes = try webpBySizeSearch(bitmap, target: target, metadata: metadata, cancellation: cancellation)
        {
            return .found(bytes: bytes, quality: nil, notes: [])
        }
        var notes: [String] = []
        var encoded: [Int: [UInt8]] = [:]
        let plane =
            request.format == .jpeg
            ? gainMap?.plane(
                resize: request.resize, maxLongEdge: longEdge ?? request.maxLongEdge, bitmapWidth: bitmap.width,
                bitmapHeight: bitmap.height)
            : nil
        let found = try TargetSizeSolver.largestQuality(in: TargetSizeSolver.qualities, target: target) {
            (quality) throws(ConvertError) -> Int64 in
            try cancellation.check()
            let bytes: [UInt8]
            if request.format == .webp {
                bytes = try WebPCodec.encode(
                    bitmap, quality: quality, lossless: false, exif: metadata.exif, xmp: metadata.xmp)
            } else if let plane, let gainMap {
                let result = try ultraHDRFile(
                    bitmap, plane: plane, metadata: gainMap.map.metadata, quality: quality, exif: metadata.exif,
                    xmp: metadata.xmp,
                    iptc: metadata.iptc)
                bytes = result.bytes
                notes = result.notes
            } else {
                let result = try ImageEncoder.jpegBytes(
                    bitmap, quality: quality, exif: metadata.exif, xmp: metadata.xmp, iptc: metadata.iptc)
                bytes = result.bytes
                notes = result.notes
            }
            encoded[quality] = bytes
            return Int64(bytes.count)
        }
        if let found, let bytes = encoded[found.quality] {
            if found.quality == TargetSizeSolver.qualities.upperBound, request.format == .jpeg, plane == nil,
                let fuller = try fullChroma(bitmap, target: target, metadata: metadata, cancellation: cancellation)
            {
                return fuller
            }
            return .found(bytes: bytes, quality: found.quality, notes: notes)
        }
        let floorBytes = Int64(encoded[TargetSizeSolver.qualities.lowerBound]?.count ?? Int.max)
        let currentEdge = max(bitmap.width, bitmap.height)
        let next = TargetSizeSolver.nextLongEdge(current: currentEdge, bytesAtFloor: floorBytes, target: target)
        guard next >= TargetSizeSolver.smallestLongEdge else {
            throw ConvertError(
                code: .requestTargetUnreachable,
                message:
                    "\(path) cannot be made as small as \(target) bytes, even at \(currentEdge) pixels and quality \(TargetSizeSolver.qualities.lowerBound).",
                path: path)
        }
        return .shrink(to: next)
    }

    /// The qualities tried with full-resolution chroma when quality 95 at 4:2:0 leaves room
    /// under the target: a small target on a small picture would otherwise leave bytes unused.
    static let fullChromaQualities: ClosedRange<Int> = 90...100

    /// A JPEG at 4:4:4 (chroma kept at full resolution, as ImageMagick and vips write from
    /// quality 90) at the highest quality in ``fullChromaQualities`` that fits `target`, or nil
    /// when even the lowest does not (4:2:0 at 95 stays).
    private static func fullChroma(
        _ bitmap: Bitmap, target: Int64, metadata: OutputMetadata, cancellation: CancellationFlag
    ) throws(ConvertError) -> Attempt? {
        var encoded: [Int: (bytes: [UInt8], notes: [String])] = [:]
        let found = try TargetSizeSolver.largestQuality(in: fullChromaQualities, target: target) {
            (quality) throws(ConvertError) -> Int64 in
            try cancellation.check()
            let result = try ImageEncoder.jpegBytes(
                bitmap, quality: quality, subsampling: .s444, exif: metadata.exif, xmp: metadata.xmp,
                iptc: metadata.iptc)
            encoded[quality] = result
            return Int64(result.bytes.count)
        }
        guard let found, let result = encoded[found.quality] else { return nil }
        return .found(
            bytes: result.bytes, quality: found.quality, notes: result.notes + ["chroma at full resolution (4:4:4)"])
    }

    /// WebP under `target` bytes from libwebp's own size search (about one encode), or nil when
    /// it did not land under the target, and the quality-by-quality search decides (which also
    /// finds when no quality in range fits). libwebp aims at the bitstream's size, so the first
    /// try leaves room for the metadata chunks, and a near miss is tried once more aiming lower
    /// by the overshoot.
    private static func webpBySizeSearch(
        _ bitmap: Bitmap, target: Int64, metadata: OutputMetadata, cancellation: CancellationFlag
    ) throws(ConvertError) -> [UInt8]? {
        let chunks = [bitmap.icc, metadata.exif, metadata.xmp].reduce(0) { $0 + ($1.map { $0.count + 9 } ?? 0) }
        var aim = target - Int64(chunks) - 32
        for _ in 0..<2 where aim > 0 {
            try cancellation.check()
            let bytes = try WebPCodec.encode(
                bitmap, bitstreamBytes: Int(clamping: aim), qualities: TargetSizeSolver.qualities, exif: metadata.exif,
                xmp: metadata.xmp)
            let size = Int64(bytes.count)
            if size <= target { return bytes }
            // Far over: libwebp stopped at the lowest quality allowed; the full search says so.
            guard size - target < target / 10 else { return nil }
            aim -= size - target + target / 200
        }
        return nil
    }
}
