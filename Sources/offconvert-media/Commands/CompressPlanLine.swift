import ConvertCore
import ConvertMedia
import Foundation

/// One `--dry-run` plan of `compress`/`email`: a text line, or a `--json` object
/// (`"event":"plan"`).
struct CompressPlanLine: Encodable {
    var event = "plan"
    var index: Int
    var input: String
    var targetBytes: Int64
    var reachable: Bool
    /// "copy", "copy-video" (the sound re-encoded), "encode" or "unreachable".
    var action: String
    var expectedBytes: Int64?
    var smallestReachableBytes: Int64?
    var videoBitrate: Int?
    /// What the encode is held under: the target, or the input's own size when smaller.
    var ceilingBytes: Int64?
    var width: Int?
    var height: Int?
    var frameRate: Double?
    var sourceFrameRate: Double
    var sourceBytes: Int64
    var sourceWidth: Int
    var sourceHeight: Int
    /// Seconds of video the target budgets: the output's (the cut's length when there is one,
    /// the flattened timeline's for slow motion).
    var duration: Double
    /// The slow motion played as the phone plays it ("0.09–0.88 s at 1/2, ..."), nil when none is
    /// flattened.
    var slowMotion: String?
    /// Where the cut starts (`--start`), nil without `--start`/`--duration`.
    var cutStart: Double?
    /// `--max-height`, nil without it.
    var maxHeight: Int?

    init(
        index: Int, input: String, targetBytes: Int64, preview: VideoCompressPreview, cutStart: Double? = nil,
        maxHeight: Int? = nil
    ) {
        self.index = index
        self.maxHeight = maxHeight
        duration = preview.duration
        slowMotion = preview.slowMotion?.summary
        self.cutStart = cutStart
        self.input = input
        self.targetBytes = targetBytes
        reachable = preview.isReachable
        expectedBytes = preview.expectedBytes
        sourceFrameRate = preview.sourceFrameRate
        sourceBytes = preview.sourceBytes
        (sourceWidth, sourceHeight) = (preview.sourceWidth, preview.sourceHeight)
        switch preview.action {
        case .copy:
            action = "copy"
        case .copyVideo:
            action = "copy-video"
        case .encode(let plan):
            action = "encode"
            videoBitrate = plan.videoBitrate
            ceilingBytes = plan.ceilingBytes
            (width, height, frameRate) = (plan.width, plan.height, plan.frameRate)
        case .unreachable(let smallest):
            action = "unreachable"
            smallestReachableBytes = smallest
        }
    }

    func text(unit: SizeUnit) -> String {
        let length = UnitText.duration(duration, places: duration < 10 ? 2 : 1)
        if let slowMotion {
            return "slow motion played as the phone plays it (\(slowMotion)), \(length) long: " + planText(unit: unit)
        }
        guard let cutStart else { return planText(unit: unit) }
        return "cut from \(UnitText.duration(cutStart)), \(UnitText.duration(duration)) long: " + planText(unit: unit)
    }

    private func planText(unit: SizeUnit) -> String {
        let target = unit.format(targetBytes, rounding: .down)
        switch action {
        case "copy":
            return "copy without re-encoding (already under the target and plays everywhere): "
                + "about \(unit.format(sourceBytes, rounding: .up)), target \(target)"
        case "copy-video":
            return "copy the video without re-encoding, the sound re-encoded to AAC (MP4 cannot carry it): "
                + "about \(unit.format(sourceBytes, rounding: .up)), target \(target)"
        case "encode":
            let rate = frameRate ?? sourceFrameRate
            let bitrate = "\((videoBitrate ?? 0) / 1000) kb/s"
            let size = "about \(unit.format(expectedBytes ?? targetBytes, rounding: .up)) at most; target \(target)"
            var text = "re-encode to H.264 \(width ?? 0)x\(height ?? 0) at \(fps(rate)) fps: "
            text +=
                keepsPicture
                ? "the normal quality (CRF 23) if it fits, else \(bitrate), \(size)" : "\(bitrate), \(size)"
            if let ceiling = ceilingBytes, ceiling < targetBytes {
                text += "; held under the input's own size (\(unit.format(ceiling, rounding: .down)))"
            }
            if height != sourceHeight {
                let why =
                    height != tallestAllowed
                    ? "to fit, unless its first frames show the picture is easy to code"
                    : height == maxHeight ? "(--max-height)" : "to play everywhere (H.264 level 5.2)"
                text += "; scaled down from \(sourceWidth)x\(sourceHeight) \(why)"
            }
            if rate < sourceFrameRate - 0.01 {
                text +=
                    "; frame rate lowered from \(fps(sourceFrameRate)) fps: the target leaves too few bits for every frame"
            }
            return text
        default:
            return
                "not reachable: the smallest it can reach is \(unit.format(smallestReachableBytes ?? 0, rounding: .up)), "
                + "target \(target)"
        }
    }

    /// Whether the encode keeps the source's picture and frame rate (then the normal quality is
    /// tried first, as ``VideoConverter/compress(_:limits:)`` does).
    private var keepsPicture: Bool {
        height == tallestAllowed && (frameRate ?? sourceFrameRate) >= sourceFrameRate - 0.01
    }

    /// The source's height, or `--max-height` when that is lower.
    private var tallestAllowed: Int {
        VideoSizePlanner.candidateHeights(sourceWidth: sourceWidth, sourceHeight: sourceHeight, maxHeight: maxHeight)[0]
    }

    private func fps(_ rate: Double) -> String { String(format: "%g", (rate * 100).rounded() / 100) }

    func jsonLine() -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return (try? encoder.encode(self)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
    }
}
