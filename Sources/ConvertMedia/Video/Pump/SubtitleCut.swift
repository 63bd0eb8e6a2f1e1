import ConvertCore
internal import FFmpegLayer

/// The subtitle lane of a cut (`--start`, `--duration`): each cue is timed from the cut's start
/// and clipped to the part kept, then handed to the lane that writes it (a copy, or `mov_text`).
///
/// A cue that ends before the start or begins at or after the end is left out. A cue running
/// into the start keeps the part after it, unless that is under a tenth of a second (a sliver
/// no one can read). A cue without a duration (PGS display sets, whose end is a later empty set)
/// is kept when it begins inside the cut.
final class SubtitleCut: PumpLane {
    private let inner: PumpLane
    private let timeBase: Rational
    private let start: Double
    private let end: Double?
    /// The shortest part of a clipped cue worth showing (seconds).
    static let shortestPart = 0.1

    init(_ inner: PumpLane, timeBase: Rational, start: Double, end: Double?) {
        self.inner = inner
        self.timeBase = timeBase
        self.start = start
        self.end = end
    }

    func consume(_ packet: Packet) throws(ConvertError) {
        guard Self.clip(packet, timeBase: timeBase, start: start, end: end) else { return }
        try inner.consume(packet)
    }

    func finish() throws(ConvertError) { try inner.finish() }

    var damagedPackets: Int { inner.damagedPackets }

    /// Times `packet` from `start` and clips it to `start...end`; false when it falls outside.
    static func clip(_ packet: Packet, timeBase: Rational, start: Double, end: Double?) -> Bool {
        let seconds = timeBase.doubleValue
        let first = packet.pts != Packet.noTimestamp ? packet.pts : packet.dts
        guard seconds > 0, first != Packet.noTimestamp else { return false }
        let cueStart = Double(first) * seconds
        let limit = end ?? .infinity
        guard cueStart < limit else { return false }
        var newStart = cueStart
        var newEnd: Double?
        if packet.duration > 0 {
            let cueEnd = cueStart + Double(packet.duration) * seconds
            newStart = max(cueStart, start)
            newEnd = min(cueEnd, limit)
            guard let kept = newEnd, kept - newStart >= (cueStart < start ? shortestPart : 0), kept > newStart else {
                return false
            }
        } else if cueStart < start {
            return false
        }
        let ticks = Int64(((newStart - start) / seconds).rounded())
        packet.pts = ticks
        packet.dts = ticks
        if let newEnd { packet.duration = max(1, Int64(((newEnd - newStart) / seconds).rounded())) }
        return true
    }
}
