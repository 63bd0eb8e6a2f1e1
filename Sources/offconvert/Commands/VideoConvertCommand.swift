import ConvertCore

/// The video half of `offconvert convert FILE --to mp4|mov|mkv|webm`: a video in exactly the
/// container and codec asked for. ``ConvertCommand`` parses the command line and calls it.
enum VideoConvertCommand: Command {
    static let spec = CommandSpec(
        name: "convert",
        abstract: "Convert videos to MP4, MOV, MKV or WebM with the codec you choose.",
        discussion: """
            Streams that already fit the target are copied without re-encoding; the rest are \
            re-encoded. HEVC and AV1 keep HDR; H.264 and VP9 get HDR tone mapped to SDR. \
            Keeps the video and the first sound track only.
            """,
        arguments: [ArgumentSpec(name: "FILES", help: "The videos to convert.", repeating: true)],
        options: [
            .option("to", short: "t", value: "format", help: "Output container: mp4, mov, mkv or webm.", default: "mp4"),
            .option("codec", short: "c", value: "codec",
                    help: "Video codec: h264, hevc, vp9 or av1 (default: keep the source's when possible)."),
            .option("crf", value: "n", help: "Quality, 0 (best) to 63; lower is better and bigger. Forces a re-encode."),
            .option("max-height", value: "px", help: "Scale down to at most this displayed height, keeping the aspect."),
            .flag("keep-location", help: "Keep the recording location in the output."),
        ] + VideoJobRunner.outputOptions,
        examples: ["convert clip.mov --to mp4", "convert clip.mp4 --to webm --codec av1 --max-height 720"])

    static func run(_ arguments: ParsedArguments, console: Console) async throws -> Int32 {
        let container = VideoContainer(rawValue: try arguments.choice("to", VideoContainer.allCases.map(\.rawValue), default: "mp4"))
        let codecName = arguments.value("codec") == nil ? nil
            : try arguments.choice("codec", VideoCodec.allCases.map(\.rawValue), default: "h264")
        let crf = arguments.value("crf") == nil ? nil : try arguments.integer("crf", in: 0...63, default: 23)
        let maxHeight = arguments.value("max-height") == nil ? nil
            : try arguments.integer("max-height", in: 16...8640, default: 1080)
        let location = VideoJobRunner.location(arguments)
        let keepLocation = arguments.flag("keep-location")
        let maxPixels = try BatchOptions.maxPixels(arguments)
        guard let container else { throw UsageError(message: "Unknown container.") }
        let codec = codecName.flatMap(VideoCodec.init(rawValue:))
        if container == .webm, let codec, codec != .vp9 && codec != .av1 {
            throw UsageError(message: "A WebM file holds VP9 or AV1 video, not \(codec.rawValue).")
        }
        return await VideoJobRunner.run(arguments.positionals, console: console, json: arguments.flag("json")) { input in
            VideoConverter.convert(VideoRequest(
                input: input, container: container, codec: codec, crf: crf, maxHeight: maxHeight,
                keepLocation: keepLocation, output: location, maxPixels: maxPixels))
        }
    }
}
