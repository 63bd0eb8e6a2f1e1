import ConvertCore
import Foundation

/// A tight target: a fast pass 1 at the planned size and bitrate, then pass 2. The planner picks
/// the size from bits per pixel, which knows nothing of the picture; pass 1 does: x264's average
/// quantizer there says how hard the picture is to code. When a larger size would still code at
/// ``easiestQuantizer`` or better (a screen recording of text, a still scene), the picture is
/// made that size instead, after one more fast pass there; camera footage stays as planned, at
/// no extra cost.
extension VideoCompressor {
    /// The highest average quantizer of x264's fast first pass at which a larger picture still
    /// looks better than a smaller one with the same bits. Measured with ffmpeg's 2-pass x264 at
    /// fixed bitrates (SSIM against the source): a 720x480 clip at 368 kb/s scored 0.9868 scaled
    /// to 480p and 0.9914 at 720p (quantizer 40 there); 1080p50 phone footage at 899 kb/s scored
    /// 0.9697 at 540p, 0.9717 at 720p (about 40) and 0.9629 at 1080p (47).
    static let easiestQuantizer = 41.0
    /// How much x264's quantizer rises at the same bitrate when the picture's height doubles (its
    /// pixels four times): 7.6, measured as 3.8 per doubling of pixels on five clips.
    static let quantizerPerHeightDoubling = 7.6

    static func tightEncode(
        _ job: VideoCompressEncode, firstShare: Double, second: PassProgress, cancellation: CancellationFlag,
        reporter: ProgressReporter
    ) throws(ConvertError) -> JobResult {
        let resizable = job.largerHeights.isEmpty ? firstShare : firstShare / 2
        let budget = try firstPass(
            job, cancellation: cancellation,
            progress: PassProgress(stage: .pass(1, of: 2), to: resizable).callback(reporter))
        guard let (plan, quantizer) = largerPicture(job) else {
            return try secondPasses(
                job, budget: budget, afterQualityOf: nil, progress: second, cancellation: cancellation,
                reporter: reporter)
        }
        let larger = try VideoCompressEncode(job.request, probe: job.probe, plan: plan)
        defer { larger.stats.remove() }
        let first = PassProgress(stage: .pass(1, of: 2), from: resizable, to: firstShare).callback(reporter)
        let reason =
            "made \(plan.width)x\(plan.height) rather than \(job.plan.width)x\(job.plan.height): the first pass shows "
            + "the picture is easy to code (x264's quantizer \(Int(quantizer.rounded())) there)"
        return try secondPasses(
            larger, budget: try firstPass(larger, cancellation: cancellation, progress: first), afterQualityOf: nil,
            progress: second, cancellation: cancellation, reporter: reporter, reason: reason)
    }

    /// The plan at the largest height above `job`'s whose quantizer, predicted from pass 1's, is
    /// at most ``easiestQuantizer``, with pass 1's average quantizer; nil when none is.
    static func largerPicture(_ job: VideoCompressEncode) -> (VideoSizePlanner.EncodePlan, Double)? {
        guard let quantizer = job.stats.averageQuantizer() else { return nil }
        for height in job.largerHeights {
            let predicted = quantizer + quantizerPerHeightDoubling * log2(Double(height) / Double(job.plan.height))
            if predicted <= easiestQuantizer,
                let plan = VideoSizePlanner.encodePlan(
                    source: job.probe.source, targetBytes: job.request.targetBytes, height: height,
                    frameRate: job.plan.frameRate)
            {
                return (plan, quantizer)
            }
        }
        return nil
    }
}
