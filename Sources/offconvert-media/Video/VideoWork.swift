import ConvertCore
import ConvertMedia
import Foundation
import OffconvertCLI

/// What the video commands share: option parsing, the memory an item costs, and the
/// ``BatchWork`` that runs a video job per input through ``BatchRunner``.
enum VideoWork {
    /// Peak memory of one video job on `input` (``VideoMemoryEstimate``), from its probe: `work`
    /// says what the job does with the picture. A file the probe cannot read costs the base.
    static func cost(of input: String, work: @Sendable (MediaInfo, VideoTrackInfo) -> VideoMemoryEstimate.Work) async
        -> Int64
    {
        guard let info = try? await MediaProbe.probe(path: input), let video = info.container?.videoTracks.first?.video
        else { return VideoMemoryEstimate.bytes(for: nil, work: .copy) }
        return VideoMemoryEstimate.bytes(for: video, work: work(info, video))
    }

    /// A re-encode at the source's displayed height (an upper bound where the job may copy).
    static func encodeCost(of input: String) async -> Int64 {
        await cost(of: input) { _, video in .encode(height: video.height, slowPreset: true) }
    }

    /// send-to-windows: H.264 in 8 bits that fits 3840x2160 is copied; anything else is encoded
    /// at `preset` (`faster` by default), scaled into 3840x2160.
    static func windowsCost(of input: String, preset: EncoderPreset?) async -> Int64 {
        let order = EncoderPreset.allCases
        let slow = (order.firstIndex(of: preset ?? .faster) ?? 0) >= (order.firstIndex(of: .medium) ?? 0)
        return await cost(of: input) { info, video in
            let (width, height) = (video.width, video.height)
            let fit = VideoSizePlanner.playableHeight(width: width, height: height)
            let codec = info.container?.videoTracks.first?.codec
            if codec == "h264" && (video.bitDepth ?? 8) <= 8 && fit >= height { return .copy }
            return .encode(height: fit, slowPreset: slow)
        }
    }

    /// A GIF of at most `seconds` (the clip's length when shorter) at `fps`, `width` pixels wide.
    static func gifCost(of input: String, seconds: Double, fps: Int, width: Int) async -> Int64 {
        await cost(of: input) { info, _ in
            let length = min(seconds, info.container?.durationSeconds ?? seconds)
            return .gif(width: width, frames: max(1, Int((length * Double(fps)).rounded(.up))))
        }
    }

    /// Runs one video job per input through ``BatchRunner``. `makeJob` gets the input, the
    /// destination ``OutputNamer`` chose and whether it may be replaced.
    static func run(
        command: String, identity: [String], outputExtension: String, arguments: ParsedArguments, console: Console,
        cost: @escaping @Sendable (String) async -> Int64 = { await VideoWork.encodeCost(of: $0) },
        extensionFor: (@Sendable (_ input: String) -> String)? = nil, accepts: InputTriage.Accepts = .videos,
        makeJob: @escaping @Sendable (_ input: String, _ output: OutputLocation) -> ConversionJob
    ) async throws(UsageError) -> Int32 {
        let options = try BatchOptions.parse(arguments)
        try Catalogue.requireInputs(options.inputs, kind: .video, target: outputExtension, accepts: accepts)
        var work = BatchWork(
            command: command, identity: identity, outputExtension: extensionFor ?? { _ in outputExtension }, cost: cost,
            convert: { item, progress throws(ConvertError) in
                let job = makeJob(item.input, item.outputLocation)
                return try await job.result(onProgress: progress)
            })
        work.accepts = accepts
        work.check = { input in await mediaProblem(input) }
        return await BatchRunner.run(work, options: options, console: console)
    }

    /// Why `input` would not open as a video or sound file (what `--dry-run` checks), or nil.
    static func mediaProblem(_ input: String) async -> ConvertError? {
        if let problem = BatchPlan.fileProblem(input) { return problem }
        do {
            _ = try await MediaProbe.probe(path: input)
            return nil
        } catch {
            return error
        }
    }

    /// `--audio-track N` / `--all-audio` (where offered); both at once are a usage error.
    static func audioTracks(_ arguments: ParsedArguments) throws(UsageError) -> AudioTrackChoice {
        let all = arguments.has(VideoOptions.allAudio)
        guard let track = try arguments.value(VideoOptions.audioTrack) else { return all ? .all : .automatic }
        if all { throw UsageError(message: "'--audio-track' and '--all-audio' cannot be used together.") }
        return .track(track)
    }

    /// `--start` (0 when absent) and `--duration` (nil when absent); a zero duration is refused.
    static func cut(_ arguments: ParsedArguments) throws(UsageError) -> (start: Double, duration: Double?) {
        let start = try arguments.value(VideoOptions.start) ?? 0
        let duration = try arguments.value(VideoOptions.duration)
        if duration == 0 { throw UsageError(message: "The value for '--duration' must be more than 0 seconds.") }
        return (start, duration)
    }
}
