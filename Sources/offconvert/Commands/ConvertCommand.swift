import ConvertCore

/// `offconvert convert FILES... --to FORMAT`: any photo format to any other.
enum ConvertCommand: Command {
    static let targets = ["jpg", "jpeg", "png", "webp", "heic", "avif"]

    static let spec = CommandSpec(
        name: "convert",
        abstract: "Convert photos to JPEG, PNG, WebP, HEIC or AVIF.",
        discussion: """
            Reads JPEG, PNG, WebP, HEIC, AVIF and GIF (first frame), recognised by content, not by \
            name. Orientation is applied to the pixels, the colour profile is kept, and location \
            metadata is removed unless --keep-location or --keep-metadata is given.
            """,
        arguments: [ArgumentSpec(name: "FILES", help: "Photos to convert.", repeating: true)],
        options: [.option("to", value: "format", help: "Output format: jpg, png, webp, heic or avif.")]
            + PhotoBatch.commonOptions + [.flag("lossless", help: "Lossless WebP.")],
        examples: ["convert *.png --to webp --quality 80", "convert photo.heic --to avif"])

    static func run(_ arguments: ParsedArguments, console: Console) async throws -> Int32 {
        guard arguments.value("to") != nil else { throw UsageError(message: "Missing '--to <format>'.") }
        let format: PhotoFormat
        switch try arguments.choice("to", targets, default: "jpg") {
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
