import ConvertCore

/// `offconvert convert FILES... --to FORMAT`: photos to any photo format, videos to any container.
/// The target decides which engine runs; video targets go to ``VideoConvertCommand``.
enum ConvertCommand: Command {
    static let targets = ["jpg", "jpeg", "png", "webp", "heic", "avif"]
    static let videoTargets = VideoContainer.allCases.map(\.rawValue)

    static let spec = CommandSpec(
        name: "convert",
        abstract: "Convert photos to JPEG, PNG, WebP, HEIC or AVIF, and videos to MP4, MOV, MKV or WebM.",
        discussion: """
            Reads JPEG, PNG, WebP, HEIC, AVIF and GIF (first frame), recognised by content, not by \
            name. Orientation is applied to the pixels, the colour profile is kept, and location \
            metadata is removed unless --keep-location or --keep-metadata is given.

            Videos (--to mp4|mov|mkv|webm): streams that already fit the target are copied \
            without re-encoding; the rest are re-encoded. HEVC and AV1 keep HDR; H.264 and VP9 get \
            HDR tone mapped to SDR. Keeps the video and the first sound track only.
            """,
        arguments: [ArgumentSpec(name: "FILES", help: "Photos to convert.", repeating: true)],
        options: mergedOptions,
        examples: ["convert *.png --to webp --quality 80", "convert photo.heic --to avif",
                   "convert clip.mp4 --to webm --codec av1 --max-height 720"])

    /// Photo options, then the video-only ones (an option both engines take is listed once).
    private static var mergedOptions: [OptionSpec] {
        var options: [OptionSpec] = [
            .option("to", short: "t", value: "format", help: "Output format: jpg, png, webp, heic, avif (photos) or mp4, mov, mkv, webm (videos).")
        ]
        options += PhotoBatch.commonOptions + [.flag("lossless", help: "Lossless WebP.")]
        for option in VideoConvertCommand.spec.options where !options.contains(where: { $0.long == option.long }) {
            options.append(option)
        }
        return options
    }

    static func run(_ arguments: ParsedArguments, console: Console) async throws -> Int32 {
        guard let target = arguments.value("to") else { throw UsageError(message: "Missing '--to <format>'.") }
        if videoTargets.contains(target.lowercased()) {
            return try await VideoConvertCommand.run(arguments, console: console)
        }
        let format: PhotoFormat
        switch try arguments.choice("to", targets + videoTargets, default: "jpg") {
        case "png": format = .png
        case "webp": format = .webp
        case "heic": format = .heic
        case "avif": format = .avif
        default: format = .jpeg
        }
        var template = try PhotoBatch.request(from: arguments, format: format)
        template.lossless = arguments.flag("lossless")
        if template.lossless && format != .webp { throw UsageError(message: "'--lossless' applies to '--to webp' only.") }
        return await PhotoBatch.convert(arguments.positionals, template: template, json: arguments.flag("json"), console: console)
    }
}
