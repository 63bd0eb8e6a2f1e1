import ConvertCore

/// A tight target: a fast pass 1, then pass 2 at the target's bitrate. When the planner shrank
/// the picture to keep enough bits per pixel, a fast pass at full size and the normal quality
/// first measures how hard the picture really is to code: a screen recording of text needs a
/// fraction of camera footage's bits, and shrinking it only blurs the text. When the target leaves
/// at least ``easyShare`` of what that pass needs (x264 then lands near CRF 29 or better), the full
/// size is kept; otherwise the smaller picture is encoded as planned.
extension VideoCompressor {
    /// The least share of a full-size normal-quality pass's video bytes a tight target must leave
    /// for the picture to keep its size: x264 writes about half the bits per 6 steps of CRF, so
    /// half of CRF 23's size is about CRF 29, where camera footage at full size starts to look
    /// worse than a smaller picture with bits to spare.
    static let easyShare = 0.5
    /// Seconds of a long clip the measuring pass codes, from its middle. A clip up to 1.5 times
    /// as long is coded whole, and that pass's statistics then serve pass 2.
    static let sampleSeconds = 4.0

    static func tightEncode(_ job: VideoCompressEncode, firstShare: Double, second: PassProgress, cancellation: CancellationFlag,
                            reporter: ProgressReporter) throws(ConvertError) -> JobResult {
        var firstFrom = 0.0
        if let plan = job.fullSizePlan {
            let full = try VideoCompressEncode(job.request, probe: job.probe, plan: plan)
            defer { full.stats.remove() }
            let outcome = try keepingFullSize(full, firstShare: firstShare, second: second, cancellation: cancellation,
                                              reporter: reporter)
            if let result = outcome.result { return result }
            firstFrom = outcome.progressUsed
        }
        let first = PassProgress(stage: .pass(1, of: 2), from: firstFrom, to: firstShare).callback(reporter)
        let budget = try firstPass(job, cancellation: cancellation, progress: first)
        return try secondPasses(job, budget: budget, afterQualityOf: nil, progress: second, cancellation: cancellation,
                                reporter: reporter)
    }

    /// The encode of `full` (the plan at full size) when its picture proves easy to code, else
    /// nil and how much of the progress the measuring took.
    private static func keepingFullSize(_ full: VideoCompressEncode, firstShare: Double, second: PassProgress,
                                        cancellation: CancellationFlag,
                                        reporter: ProgressReporter) throws(ConvertError) -> (result: JobResult?, progressUsed: Double) {
        let duration = full.probe.source.duration
        let room = { (budget: VideoSizePlanner.EncodePlan) in Double(budget.videoBitrate) * duration / 8 }
        if duration <= sampleSeconds * 1.5 {
            // Short: the whole clip is measured, and the pass's statistics serve pass 2.
            let progress = PassProgress(stage: .pass(1, of: 2), to: firstShare).callback(reporter)
            let (written, budget) = try measuredPass(full, plan: full.complexityPlan, cancellation: cancellation, progress: progress)
            let needed = Double(max(written - budget.audioBytes - budget.overheadBytes, 1))
            guard room(budget) >= needed * easyShare else { return (nil, firstShare) }
            return (try secondPasses(full, budget: budget, afterQualityOf: nil, progress: second, cancellation: cancellation,
                                     reporter: reporter, reason: full.keptSizeNote(neededBytes: needed)), firstShare)
        }
        // Long: a window in the middle tells the rate; a fast pass 1 at full size follows when easy.
        let share = firstShare / 3
        let sample = try VideoJob.pass(full.samplePlan(start: (duration - sampleSeconds) / 2, length: sampleSeconds),
                                       input: full.request.input, destination: full.destination, cancellation: cancellation,
                                       progress: PassProgress(stage: .pass(1, of: 2), to: share).callback(reporter))
        let sampled = try sample.byteCount()
        sample.discard()
        let needed = Double(sampled) * duration / sampleSeconds
        guard room(full.plan) >= needed * easyShare else { return (nil, share) }
        let first = PassProgress(stage: .pass(1, of: 2), from: share, to: firstShare).callback(reporter)
        let budget = try firstPass(full, cancellation: cancellation, progress: first)
        return (try secondPasses(full, budget: budget, afterQualityOf: nil, progress: second, cancellation: cancellation,
                                 reporter: reporter, reason: full.keptSizeNote(neededBytes: needed)), firstShare)
    }
}
