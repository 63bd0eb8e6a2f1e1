import ConvertCore
import Foundation

/// A tight target's picture size, grown when the picture is easy to code. The planner picks the
/// size from bits per pixel, which knows nothing of the picture; the encode's first frames do:
/// x264's average quantizer there, and the share of their bits those frames took, say how hard
/// the picture is to code at the planned bitrate. When a larger size would still code at
/// ``easiestQuantizer`` or better (a screen recording of
/// text, a still scene), the encode starts again at that size (``PictureSizeWatch`` stops it);
/// camera footage stays as planned, at no extra cost.
extension VideoCompressor {
    /// The highest average quantizer at which a larger picture still looks better than a smaller
    /// one with the same bits. Measured with ffmpeg's 2-pass x264 at fixed bitrates (SSIM against
    /// the source): a 720x480 clip at 368 kb/s scored 0.9868 scaled to 480p and 0.9914 at 720p
    /// (quantizer 40 there); 1080p50 phone footage at 899 kb/s scored 0.9697 at 540p, 0.9717 at
    /// 720p (about 40) and 0.9629 at 1080p (47).
    static let easiestQuantizer = 41.0
    /// How much x264's quantizer rises at the same bitrate when the picture's height doubles (its
    /// pixels four times): 7.6, measured as 3.8 per doubling of pixels on five clips.
    static let quantizerPerHeightDoubling = 7.6
    /// How much x264's quantizer falls when a frame gets twice the bits: 6 (its quantizer scale
    /// doubles every 6 steps, and the bits a frame takes go about as its inverse).
    static let quantizerPerBitsDoubling = 6.0

    /// The share of their bits under which the first frames' quantizer is corrected: camera
    /// footage takes 70–100 % (x264 settling in), a still screen a third or less.
    static let underspentShare = 0.5

    /// The quantizer the first frames would have had at the whole bitrate, from `measured` (their
    /// average) and `spentShare` (the bits they took over what the bitrate gives them). x264's
    /// average-bitrate control starts cautious and comes down as it finds bits left over: a 1080p
    /// screen recording whose text sits still took 35 % of its bits at 720p and quantizer 41, and
    /// grown to 1080p it scores SSIM 0.9994 instead of 0.9959 in the same bits. Frames that took
    /// more than ``underspentShare`` are as measured: correcting camera footage's 70 % grew a
    /// phone clip to a size that doubled the time for a few thousandths of SSIM.
    static func settledQuantizer(measured: Double, spentShare: Double) -> Double {
        guard spentShare <= underspentShare else { return measured }
        return measured + quantizerPerBitsDoubling * log2(max(spentShare, 1.0 / 64))
    }

    /// The plan the first frames of `job`'s encode point to, from `quantizer` (measured at its
    /// size), with the quantizer predicted there and whether it is larger; nil when `job`'s size
    /// is the one. Larger: the largest height above whose prediction is at most
    /// ``easiestQuantizer``. Smaller, when `job`'s own is above it: the largest height down to
    /// `floorHeight` (what bits per pixel chose) whose prediction is, else `floorHeight`.
    static func resizedPicture(_ job: VideoCompressEncode, quantizer: Double, floorHeight: Int)
        -> (plan: VideoSizePlanner.EncodePlan, predicted: Double, grows: Bool)?
    {
        func predicted(at height: Int) -> Double {
            quantizer + quantizerPerHeightDoubling * log2(Double(height) / Double(job.plan.height))
        }
        func plan(at height: Int) -> VideoSizePlanner.EncodePlan? {
            VideoSizePlanner.encodePlan(
                source: job.probe.source, targetBytes: job.plan.ceilingBytes, height: height,
                frameRate: job.plan.frameRate)
        }
        for height in job.largerHeights where predicted(at: height) <= easiestQuantizer {
            if let larger = plan(at: height) { return (larger, predicted(at: height), true) }
        }
        guard quantizer > easiestQuantizer, job.plan.height > floorHeight else { return nil }
        let smaller = job.smallerHeights(downTo: floorHeight)
        let height = smaller.first { predicted(at: $0) <= easiestQuantizer } ?? floorHeight
        return plan(at: height).map { ($0, predicted(at: height), false) }
    }
}

/// Watches the first frames of a tight target's encode for a picture easy enough to code larger,
/// or, when the encode started above what bits per pixel chose, too hard to code at its size
/// (see ``VideoCompressor/resizedPicture(_:quantizer:floorHeight:)``), and for one so easy that
/// x264's average bitrate leaves its bits unspent (see ``easy``), and stops the encode when it
/// finds either.
final class PictureSizeWatch: EncodeWatch {
    /// The share of the frames sampled, and the fewest: enough for x264's average bitrate to settle.
    static let sampleShare = 0.03
    static let minimumSample = 20

    /// The encode to start instead, with the quantizer measured, the share of their bits the
    /// sampled frames took, the quantizer predicted at the new size, and whether it is larger.
    struct Resized {
        var job: VideoCompressEncode
        var quantizer: Double
        var spentShare: Double
        var predicted: Double
        var grows: Bool
    }

    private let job: VideoCompressEncode
    private let floorHeight: Int
    private let sampleSize: Int
    private var packets = 0
    private var bytes = 0
    private var quantizers: [Double] = []
    /// Set when the encode should start again at another size.
    private(set) var resized: Resized?

    /// A watch over `job`'s encode, which may shrink down to `floorHeight`.
    init(_ job: VideoCompressEncode, floorHeight: Int) {
        self.job = job
        self.floorHeight = floorHeight
        sampleSize = max(Self.minimumSample, Int(Double(job.expectedFrames) * Self.sampleShare))
    }

    /// Set when the sampled frames took at most ``VideoCompressor/underspentShare`` of their
    /// bits: a picture so easy that x264's average bitrate, which starts cautious, codes it
    /// coarser than the normal quality would in fewer bytes (a 1080p screen recording at its
    /// 212 kb/s: quantizer 47, 179 kB, SSIM 0.99940; CRF 23: 232 kB, 0.99995). The normal
    /// quality is tried instead, as it is for an ample target.
    private(set) var easy = false

    var stopped: Bool { resized != nil || easy }

    /// The first frames' average quantizer and share of bits spent, once they were sampled.
    private(set) var sampled: (quantizer: Double, spentShare: Double)?

    /// How far the encode got, 0...1.
    var fraction: Double { min(Double(packets) / Double(job.expectedFrames), 1) }

    func verdict(after packet: EncodedPacket) -> EncodeVerdict {
        packets += 1
        bytes += packet.bytes
        // Keyframes code at lower quantizers than the frames between them: only those count.
        if !packet.isKeyframe, let quantizer = packet.quantizer { quantizers.append(quantizer) }
        guard packets == sampleSize, !quantizers.isEmpty else { return .proceed }
        let average = quantizers.reduce(0, +) / Double(quantizers.count)
        let spent = spentShare
        sampled = (average, spent)
        // A clip under four samples long ends before x264's average bitrate settles: what its
        // first frames leave unspent says little of the rest (the fill sees to such clips).
        easy = spent <= VideoCompressor.underspentShare && job.expectedFrames >= 4 * Self.minimumSample
        let settled = VideoCompressor.settledQuantizer(measured: average, spentShare: spent)
        if let (plan, predicted, grows) = VideoCompressor.resizedPicture(
            job, quantizer: settled, floorHeight: floorHeight),
            let next = try? VideoCompressEncode(job.request, probe: job.probe, plan: plan)
        {
            resized = Resized(job: next, quantizer: average, spentShare: spent, predicted: predicted, grows: grows)
        }
        return stopped ? .stop : .proceed
    }

    /// The bytes of the packets so far over what the planned bitrate gives as many frames.
    private var spentShare: Double {
        let perFrame = Double(job.plan.videoBitrate) / 8 / job.plan.frameRate
        guard perFrame > 0, packets > 0 else { return 1 }
        return Double(bytes) / (perFrame * Double(packets))
    }
}
