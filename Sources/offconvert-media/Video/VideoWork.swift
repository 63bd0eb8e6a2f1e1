import ConvertCore
import Foundation
import ConvertMedia
import OffconvertCLI

/// What the video commands share: option parsing, the memory an item costs, and the
/// ``BatchWork`` that runs a video job per input through ``BatchRunner``.
enum VideoWork {
    /// Decoded frames a re-encode holds at once: the decoder's reference frames plus the
    /// encoder's look-ahead (x264's default is 40 frames; x265 and SVT-AV1 hold fewer or similar).
    static let framesInFlight = 48

    /// Peak memory of one video job: frames in flight times the bytes of one decoded frame
    /// (YUV 4:2:0 at 1.5 bytes a pixel, 3 above 8 bits), from the probe's header data. Audio
    /// alone and files the probe cannot read cost a small constant.
    static func cost(of input: String, frames: Int = framesInFlight, width: Int? = nil) async -> Int64 {
        let audioOnly: Int64 = 16 << 20
        guard let info = try? await MediaProbe.probe(path: input),
            let video = info.container?.videoTracks.first?.video
        else { return audioOnly }
        var (frameWidth, frameHeight) = (video.width, video.height)
        if let width, width < frameWidth, frameWidth > 0 {
            frameHeight = frameHeight * width / frameWidth
            frameWidth = width
        }
        return BatchScheduler.bitmapBytes(width: frameWidth, height: frameHeight, bytesPerPixel: video.decodedBytesPerPixel,
                                          count: frames)
    }

    /// Runs one video job per input through ``BatchRunner``. `makeJob` gets the input, the
    /// destination ``OutputNamer`` chose and whether it may be replaced.
    static func run(
        command: String, identity: [String], outputExtension: String, arguments: ParsedArguments, console: Console,
        cost: @escaping @Sendable (String) async -> Int64 = { await VideoWork.cost(of: $0) },
        extensionFor: (@Sendable (_ input: String) -> String)? = nil, accepts: InputTriage.Accepts = .videos,
        makeJob: @escaping @Sendable (_ input: String, _ output: OutputLocation) -> ConversionJob
    ) async throws(UsageError) -> Int32 {
        let options = try BatchOptions.parse(arguments)
        try Catalogue.requireInputs(options.inputs, kind: .video, target: outputExtension, accepts: accepts)
        var work = BatchWork(
            command: command, identity: identity, outputExtension: extensionFor ?? { _ in outputExtension }, cost: cost,
            convert: { item, progress throws(ConvertError) in
                let job = makeJob(item.input, OutputLocation(path: item.destination, overwrite: item.overwrite, mayRenumber: item.mayRenumber))
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
