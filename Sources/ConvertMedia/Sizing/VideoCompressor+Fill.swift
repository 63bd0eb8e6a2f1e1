import ConvertCore

/// A short clip's second chance to use its target. x264's average bitrate settles over seconds
/// of frames; a clip of a second or two ends before it does, within a VBV buffer that is a
/// fraction of a second, and lands at 50–65 % of the target (`Benchmarks/RESULTS-compress.md`,
/// 1 s clips), where a longer clip lands at 96–99 %. For such a clip one more encode costs
/// little, so when the first came out far under, it is encoded again at a bitrate raised by
/// what the first measured (twice at most); the largest that fits is kept. Longer clips are
/// never encoded again for this: one encode is the job's price.
extension VideoCompressor {
    /// The most frames a clip may have to be encoded again when it came out under: at 30 fps,
    /// five seconds, whose second encode costs about as long as a one-second clip's first.
    static let fillableFrames = 150
    /// A result under this share of the target is encoded again (when the clip is short).
    static let fillBelow = 0.8
    /// The share of the target's video bytes a raised encode aims at: under the 0.985 of an
    /// over-target correction, since this encode is optional and one that comes out over is
    /// thrown away.
    static let fillAim = 0.9
    /// The most the bitrate is raised: a clip that came out far under because x264 needs fewer
    /// bits than its floor (a still test card) would not use the extra either.
    static let fillMaximumRaise = 3.0
    /// The raised encodes tried at most: x264's size does not follow its bitrate in proportion
    /// over so few frames (a raise aimed at 93 % has landed at 99.7 %, and over), so a raise that
    /// came out over is followed by one between the two.
    static let fillAttempts = 2

    /// What the fill decided: the pass to keep, at which bitrate, and, when it is a raised one,
    /// the share of the target the first used.
    struct Filled {
        var pass: VideoPass
        var bitrate: Int
        var firstShare: Double?
    }

    /// `first` (at `bitrate`, under the ceiling), or a larger encode at a raised bitrate when
    /// `job`'s clip is short and `first` came out under ``fillBelow`` of the ceiling: at most
    /// ``fillAttempts`` of them, the second (when the first raise came out over) at the bitrate
    /// between the two that the sizes they measured point to. The largest that fits is kept; the
    /// others are discarded.
    static func filled(
        _ job: VideoCompressEncode, first: VideoPass, bitrate: Int, progress: PassProgress,
        cancellation: CancellationFlag, reporter: ProgressReporter
    ) throws(ConvertError) -> Filled {
        let ceiling = job.plan.ceilingBytes
        let firstBytes = try first.byteCount()
        guard job.expectedFrames <= fillableFrames, Double(firstBytes) < fillBelow * Double(ceiling) else {
            return Filled(pass: first, bitrate: bitrate, firstShare: nil)
        }
        let budget = try measuredBudget(job, encoded: first.temporaryPath, cancellation: cancellation)
        let fixed = budget.audioBytes + budget.overheadBytes
        var best = (pass: first, bitrate: bitrate, bytes: firstBytes)
        var over: (bitrate: Int, bytes: Int64)?
        var progress = progress
        progress.stage = .retrying
        for _ in 0..<fillAttempts {
            let raised = fillBitrate(
                under: (best.bitrate, best.bytes), over: over, targetBytes: ceiling, fixedBytes: fixed)
            guard raised > best.bitrate, over.map({ raised < $0.bitrate }) ?? true else { break }
            let pass = try run(
                job.targetPlan(bitrate: raised), job: job, progress: progress, cancellation: cancellation,
                reporter: reporter)
            progress = progress.next
            let bytes = try pass.byteCount()
            if bytes > ceiling {
                pass.discard()
                over = (raised, bytes)
            } else if bytes > best.bytes {
                best.pass.discard()
                best = (pass, raised, bytes)
                if Double(bytes) >= fillBelow * Double(ceiling) { break }
            } else {
                pass.discard()
                break
            }
        }
        guard best.bitrate != bitrate else { return Filled(pass: first, bitrate: bitrate, firstShare: nil) }
        return Filled(pass: best.pass, bitrate: best.bitrate, firstShare: Double(firstBytes) / Double(ceiling))
    }

    /// The next bitrate to try: from the largest encode under the target, raised in proportion
    /// to what it left unspent (the planner's correction, aimed at ``fillAim``, at most
    /// ``fillMaximumRaise`` times);
    /// once a raise came out `over`, the bitrate between the two at which the video's size,
    /// taken as linear in the bitrate between them, meets ``fillAim`` of what the target leaves.
    static func fillBitrate(
        under: (bitrate: Int, bytes: Int64), over: (bitrate: Int, bytes: Int64)?, targetBytes: Int64,
        fixedBytes: Int64
    ) -> Int {
        guard let over, over.bytes > under.bytes else {
            let corrected = VideoSizePlanner.correctedBitrate(
                previous: under.bitrate, achievedBytes: under.bytes, targetBytes: targetBytes, fixedBytes: fixedBytes,
                aim: fillAim)
            return min(corrected, Int(Double(under.bitrate) * fillMaximumRaise))
        }
        let wanted = Double(fixedBytes) + Double(max(targetBytes - fixedBytes, 1)) * fillAim
        let share = (wanted - Double(under.bytes)) / Double(over.bytes - under.bytes)
        return under.bitrate + Int(Double(over.bitrate - under.bitrate) * min(max(share, 0), 1))
    }
}
