import FoundationEssentials

/// A HEIC's gain map decoded and encoded as a greyscale JPEG on a helper of ``WorkerPool/current``,
/// while the caller decodes and encodes the primary picture: the primary's JPEG encoding is one
/// thread, and the map's HEVC decode is another, so on two cores they overlap instead of adding
/// up. When no helper has started it by the time the caller asks (``wait()``), the caller
/// encodes the map itself.
///
/// The worker reads the conversion's own ``HeifFile`` (a value whose reads are positional, so
/// two threads may read it at once; the file is not parsed again) and owns its own TurboJPEG
/// compressor. ``wait()`` is always called before the conversion returns, so the
/// map's bitmap never outlives the job that counted it against the memory budget.
final class PendingGainMap: Sendable {
    /// The encoded map: its parameters (``HeifGainMap/plane`` as encoded) and the JPEG stream.
    package typealias Encoded = (map: HeifGainMap, stream: [UInt8])

    private let outcome = PthreadLocked<Result<Encoded?, ConvertError>?>(nil)
    /// The helper's work; set once by ``start(file:size:quality:cancellation:)``.
    private let worker = PthreadLocked<WorkerPool.Batch?>(nil)

    private init() {}

    /// Starts encoding the gain map of the HEIC `file`, whose primary is displayed at `size`,
    /// at JPEG `quality`.
    package static func start(
        file: HeifFile, size: (width: Int, height: Int), quality: Int, cancellation: CancellationFlag
    ) -> PendingGainMap {
        let pending = PendingGainMap()
        let (width, height) = size
        // The pool's helpers have a codec thread's stack, which the decode (libde265) needs.
        let batch = WorkerPool.current.start(iterations: 1) { _ in
            let result = Result { () throws(ConvertError) -> Encoded? in
                try encode(file: file, size: (width, height), quality: quality, cancellation: cancellation)
            }
            pending.outcome.withLock { $0 = result }
        }
        pending.worker.withLock { $0 = batch }
        return pending
    }

    /// The encoded map once the worker is done (nil when the file's map is not one this reader
    /// takes, or does not line up with the picture); rethrows the worker's error. Callable more
    /// than once.
    package func wait() throws(ConvertError) -> Encoded? {
        worker.withLock { $0 }?.join()
        guard let result = outcome.withLock({ $0 }) else { return nil }
        return try result.get()
    }

    /// The worker: decode, shape check, shrink to the picture at most, encode.
    private static func encode(
        file: HeifFile, size: (width: Int, height: Int), quality: Int, cancellation: CancellationFlag
    ) throws(ConvertError) -> Encoded? {
        guard var map = try HeifGainMap.decode(file, cancellation: cancellation) else {
            return nil
        }
        // A map whose shape is not the picture's (its sides' ratios differ) would not line up.
        let ratioX = Double(size.width) / Double(map.plane.width)
        let ratioY = Double(size.height) / Double(map.plane.height)
        guard abs(ratioX - ratioY) <= 0.02 * max(ratioX, ratioY) else { return nil }
        // Ultra HDR decoders scale the map up; one no larger than the picture keeps it small.
        if map.plane.width > size.width || map.plane.height > size.height {
            map.plane = map.plane.resized(width: size.width, height: size.height)
        }
        try cancellation.check()
        let encoder = try TurboJPEGHandle.compressor()
        let stream = try encoder.encodeGray(
            map.plane.pixels, width: map.plane.width, height: map.plane.height, quality: quality)
        return (map, stream)
    }
}
