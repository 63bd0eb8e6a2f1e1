import ConvertCore

/// A short clip's second chance to use its target. x264's average bitrate settles over seconds
/// of frames; a clip of a second or two ends before it does, within a VBV buffer that is a
/// fraction of a second, and lands at 50–65 % of the target (`Benchmarks/RESULTS-compress.md`,
/// 1 s clips), where a longer clip lands at 96–99 %. For such a clip one more encode costs
/// little, so when the first came out far under, it is encoded once more at a bitrate raised by
/// what the first measured; the larger of the two that fits is kept. Longer clips are never
/// encoded twice for this: one encode is the job's price.
extension VideoCompressor {
    /// The most frames a clip may have to be encoded again when it came out under: at 30 fps,
    /// five seconds, whose second encode costs about as long as a one-second clip's first.
    static let fillableFrames = 150
    /// A result under this share of the target is encoded again (when the clip is short).
    static let fillBelow = 0.8
    /// The share of the target's video bytes the second encode aims at: under the 0.985 of an
    /// over-target correction, since this encode is optional and one that comes out over is
    /// thrown away.
    static let fillAim = 0.93
    /// The most the bitrate is raised: a clip that came out far under because x264 needs fewer
    /// bits than its floor (a still test card) would not use the extra either.
    static let fillMaximumRaise = 3.0

    /// What the fill decided: the pass to keep, at which bitrate, and, when it is the second,
    /// the share of the target the first used.
    struct Filled {
        var pass: VideoPass
        var bitrate: Int
        var firstShare: Double?
    }

    /// `first` (at `bitrate`, under the ceiling), or a second encode at a raised bitrate when
    /// `job`'s clip is short, `first` came out under ``fillBelow`` of the ceiling and the second
    /// fits and is larger. The pass not kept is discarded.
    static func filled(
        _ job: VideoCompressEncode, first: VideoPass, bitrate: Int, progress: PassProgress,
        cancellation: CancellationFlag, reporter: ProgressReporter
    ) throws(ConvertError) -> Filled {
        let ceiling = job.plan.ceilingBytes
        let achieved = try first.byteCount()
        guard job.expectedFrames <= fillableFrames, Double(achieved) < fillBelow * Double(ceiling) else {
            return Filled(pass: first, bitrate: bitrate, firstShare: nil)
        }
        let budget = try measuredBudget(job, encoded: first.temporaryPath, cancellation: cancellation)
        let raised = raisedBitrate(
            previous: bitrate, achievedBytes: achieved, targetBytes: ceiling,
            fixedBytes: budget.audioBytes + budget.overheadBytes)
        guard raised > bitrate else { return Filled(pass: first, bitrate: bitrate, firstShare: nil) }
        var progress = progress
        progress.stage = .retrying
        let second = try run(
            job.targetPlan(bitrate: raised), job: job, progress: progress, cancellation: cancellation,
            reporter: reporter)
        let secondBytes = try second.byteCount()
        guard secondBytes <= ceiling, secondBytes > achieved else {
            second.discard()
            return Filled(pass: first, bitrate: bitrate, firstShare: nil)
        }
        first.discard()
        return Filled(pass: second, bitrate: raised, firstShare: Double(achieved) / Double(ceiling))
    }

    /// The bitrate that would bring the video of an encode that made `achievedBytes` at
    /// `previous` to ``fillAim`` of what the target leaves it, raised at most
    /// ``fillMaximumRaise`` times.
    static func raisedBitrate(previous: Int, achievedBytes: Int64, targetBytes: Int64, fixedBytes: Int64) -> Int {
        let achievedVideo = Double(max(achievedBytes - fixedBytes, 1))
        let wantedVideo = Double(max(targetBytes - fixedBytes, 1)) * fillAim
        let factor = min(wantedVideo / achievedVideo, fillMaximumRaise)
        return max(Int(Double(previous) * factor), 1)
    }
}
