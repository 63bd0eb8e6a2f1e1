import ConvertCore

/// The video half of `offconvert convert FILE --to mp4|mov|mkv|webm`: a video in exactly the
/// container and codec asked for. ``ConvertCommand`` parses the command line and calls it.
enum VideoConvertCommand {
    /// The video-only options of `convert`.
    static let ownOptions: [OptionSpec] = [
        .option("codec", short: "c", value: "codec",
                help: "Video codec: \(VideoCodec.allCases.map(\.rawValue).joined(separator: ", ")) (default: keep the source's when possible)."),
        .option("crf", value: "n", help: "Quality, 0 (best) to 63; lower is better and bigger. Forces a re-encode."),
        .option("max-height", value: "px", help: "Scale down to at most this displayed height, keeping the aspect."),
        .flag("keep-location", help: "Keep the recording location in the output."),
    ]

    /// The codecs a container holds.
    static func codecs(for container: VideoContainer) -> [VideoCodec] {
        container == .webm ? [.vp9, .av1] : VideoCodec.allCases
    }

    static func run(_ arguments: ParsedArguments, container: VideoContainer, console: Console) async throws -> Int32 {
        let codecName = arguments.value("codec") == nil ? nil
            : try arguments.choice("codec", codecs(for: container).map(\.rawValue), default: "h264")
        let crf = arguments.value("crf") == nil ? nil : try arguments.integer("crf", in: 0...63, default: 23)
        let maxHeight = arguments.value("max-height") == nil ? nil
            : try arguments.integer("max-height", in: 16...8640, default: 1080)
        let keepLocation = arguments.flag("keep-location")
        let codec = codecName.flatMap(VideoCodec.init(rawValue:))
        let maxPixels = try BatchOptions.maxPixels(arguments)
        return try await VideoWork.run(
            command: "convert",
            identity: ["to=\(container.rawValue)", "codec=\(codecName ?? "")", "crf=\(crf ?? -1)", "max-height=\(maxHeight ?? 0)",
                       "keep-location=\(keepLocation)"],
            outputExtension: container.rawValue, arguments: arguments, console: console
        ) { input, output in
            VideoConverter.convert(VideoRequest(
                input: input, container: container, codec: codec, crf: crf, maxHeight: maxHeight,
                keepLocation: keepLocation, output: output, maxPixels: maxPixels))
        }
    }
}
