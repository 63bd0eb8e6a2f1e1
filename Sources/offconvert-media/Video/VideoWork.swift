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
        extensionFor: (@Sendable (_ input: String) -> String)? = nil,
        makeJob: @escaping @Sendable (_ input: String, _ output: OutputLocation) -> ConversionJob
    ) async throws(UsageError) -> Int32 {
        let options = try BatchOptions.parse(arguments)
        try Catalogue.requireInputs(options.inputs, kind: .video, target: outputExtension)
        var work = BatchWork(
            command: command, identity: identity, outputExtension: extensionFor ?? { _ in outputExtension }, cost: cost,
            convert: { item, progress throws(ConvertError) in
                let job = makeJob(item.input, OutputLocation(path: item.destination, overwrite: item.overwrite, mayRenumber: item.mayRenumber))
                return try await job.result(onProgress: progress)
            })
        work.accepts = .videos
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

    /// A time from an option, or nil when absent: seconds (`12.5`), `mm:ss` or `hh:mm:ss`, the
    /// last field possibly with a fraction (`1:02.5`).
    static func seconds(_ arguments: ParsedArguments, _ long: String) throws(UsageError) -> Double? {
        guard let text = arguments.value(long) else { return nil }
        guard let value = parseTime(text) else {
            throw UsageError(message: "The value '\(text.terminalSafe)' is invalid for '--\(long)': "
                + "expected seconds (1.5), mm:ss (1:30) or hh:mm:ss (1:02:03).")
        }
        return value
    }

    /// `--fps` (a raw stream's frame rate), or nil when absent: a number above 0, at most 1000.
    static func rawFrameRate(_ arguments: ParsedArguments) throws(UsageError) -> Double? {
        guard let text = arguments.value("fps") else { return nil }
        guard let rate = Double(text), rate.isFinite, rate > 0, rate <= 1000 else {
            throw UsageError(message: "The value '\(text.terminalSafe)' is invalid for '--fps': expected frames per second, above 0 and at most 1000 (25, 29.97).")
        }
        return rate
    }

    /// `--audio-track N` / `--all-audio` (where offered); both at once are a usage error.
    static func audioTracks(_ arguments: ParsedArguments) throws(UsageError) -> AudioTrackChoice {
        let all = arguments.flag("all-audio")
        guard arguments.value("audio-track") != nil else { return all ? .all : .automatic }
        if all { throw UsageError(message: "'--audio-track' and '--all-audio' cannot be used together.") }
        return .track(try arguments.integer("audio-track", in: 1...99, default: 1))
    }

    /// `--start` (0 when absent) and `--duration` (nil when absent); a zero duration is refused.
    static func cut(_ arguments: ParsedArguments) throws(UsageError) -> (start: Double, duration: Double?) {
        let start = try seconds(arguments, "start") ?? 0
        let duration = try seconds(arguments, "duration")
        if duration == 0 { throw UsageError(message: "The value for '--duration' must be more than 0 seconds.") }
        return (start, duration)
    }

    /// Seconds from `12.5`, `mm:ss` or `hh:mm:ss`; nil for anything else (negative, 60 or more
    /// minutes or seconds in a field with a larger one before it, more than three fields).
    static func parseTime(_ text: String) -> Double? {
        let fields = text.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
        guard (1...3).contains(fields.count), let last = Double(fields[fields.count - 1]), last.isFinite, last >= 0,
              fields.last?.first?.isNumber == true
        else { return nil }
        var total = last
        if fields.count > 1 && last >= 60 { return nil }
        for (position, field) in fields.dropLast().reversed().enumerated() {
            guard let whole = Int(field), whole >= 0 else { return nil }
            if position == 0 && fields.count == 3 && whole >= 60 { return nil }
            total += Double(whole) * (position == 0 ? 60 : 3600)
        }
        return total
    }
}
