/// The timestamps of one copied stream, made valid as the ffmpeg CLI does, so that the muxer
/// neither refuses a packet nor warns about one: a copy FFmpeg's muxer warns about is not a
/// success.
///
/// - A packet with neither PTS nor DTS (FFmpeg's muxer warns "Timestamps are unset" and guesses)
///   gets the next allowed DTS as both.
/// - An impossible pair (DTS after PTS) becomes the median of PTS, DTS and the next allowed DTS.
/// - A DTS that goes backwards is moved up to the next allowed one (PTS with it, if needed).
/// A packet with a PTS but no DTS is left to the muxer, which derives the DTS without a warning.
struct TimestampRepair {
    /// Whether equal consecutive DTS are allowed (`AVFMT_TS_NONSTRICT`).
    let nonStrict: Bool
    /// The "no timestamp" value (`AV_NOPTS_VALUE`).
    let unset: Int64
    /// The last DTS written.
    private(set) var lastDts: Int64?

    init(nonStrict: Bool, unset: Int64) {
        self.nonStrict = nonStrict
        self.unset = unset
    }

    /// The PTS and DTS to write for a packet that came with `pts` and `dts`.
    mutating func repair(pts: Int64, dts: Int64) -> (pts: Int64, dts: Int64) {
        var pts = pts
        var dts = dts
        let next = lastDts.map { $0 + (nonStrict ? 0 : 1) }
        if dts == unset {
            guard pts == unset else { return (pts, dts) }
            dts = next ?? 0
            pts = dts
        }
        if pts != unset && dts > pts {
            let candidates = [pts, dts, next ?? dts].sorted()
            pts = candidates[1]
            dts = candidates[1]
        }
        if let next, dts < next {
            if pts != unset && pts >= dts { pts = max(pts, next) }
            dts = next
        }
        lastDts = dts
        return (pts, dts)
    }

    /// How far to move every DTS back so that none is after its PTS: the largest excess of DTS
    /// over PTS among `timings` (the first packets of a stream), 0 when none has one. Pairs with
    /// an `unset` timestamp say nothing.
    static func reorderShift(_ timings: [(pts: Int64, dts: Int64)], unset: Int64) -> Int64 {
        var shift: Int64 = 0
        for (pts, dts) in timings where pts != unset && dts != unset { shift = max(shift, dts - pts) }
        return shift
    }
}
