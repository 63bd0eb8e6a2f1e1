/// A picture's rows split into contiguous bands, one per worker, for per-pixel passes that
/// would otherwise run on one core while the other waits (the HDR tone map of a single photo).
///
/// Bands start on multiples of `alignment`, so a pass that works on blocks of rows (the gain
/// map's 2×2 blocks, 4:2:0 chroma rows) never has a block split between two workers. The work
/// runs on the calling thread and the helpers of ``WorkerPool/current``, never on the cooperative
/// pool: callers are already on a codec thread (``runBlocking(on:_:)``), and
/// ``forEachBand(_:)`` returns when every band is done.
struct RowBands: Sendable {
    /// The bands, top to bottom; never empty for a picture with rows.
    package let ranges: [Range<Int>]

    /// `rows` split into at most `workers` bands of about equal height, each starting on a
    /// multiple of `alignment`.
    package init(rows: Int, workers: Int, alignment: Int = 1) {
        precondition(rows >= 0 && alignment >= 1, "RowBands needs a row count and a positive alignment")
        let blocks = (rows + alignment - 1) / alignment
        let count = max(1, min(workers, blocks))
        ranges = (0..<count).compactMap { band in
            let start = min(rows, blocks * band / count * alignment)
            let end = min(rows, blocks * (band + 1) / count * alignment)
            return start < end ? start..<end : nil
        }
    }

    /// Runs `body` once per band (its index in ``ranges`` and its rows), concurrently when there
    /// is more than one band.
    package func forEachBand(_ body: @Sendable (_ band: Int, _ rows: Range<Int>) -> Void) {
        let ranges = self.ranges
        if ranges.count == 1 {
            body(0, ranges[0])
        } else if ranges.count > 1 {
            WorkerPool.current.forEach(iterations: ranges.count) { body($0, ranges[$0]) }
        }
    }
}
