import ConvertCore

/// `offconvert compress-photos FILES...`: smaller photos for sharing, optionally under a size.
package enum CompressPhotosCommand: Command {
    /// The output formats it writes.
    package static let targets: [PhotoFormat] = [.jpeg, .webp]

    /// `--target-size`.
    package static let targetSize = Option.byteCount(
        "target-size", help: "Largest file size per photo, e.g. 500KB or 2MB.")
    /// `--to`.
    package static let format = Option<PhotoFormat>.choice(
        "to", value: "jpg|webp", names: [("jpg", .jpeg), ("jpeg", .jpeg), ("webp", .webp)], help: "Output format.",
        default: "jpg")

    package static let spec = CommandSpec(
        name: "compress-photos",
        abstract: "Shrink photos to JPEG (or WebP), at a quality or under a target file size.",
        discussion: """
            Each photo becomes NAME (small).jpg (or .webp) next to it or in --output-dir; one that \
            comes out larger than its original (an already well-compressed JPEG at a high \
            --quality) says so. With --target-size, each photo gets the highest quality whose file fits (never over \
            the target); if no quality from 40 to 95 fits, the resolution is lowered too, decoding \
            the original again at the smaller size. Location metadata is removed unless kept on \
            purpose.
            """ + "\n" + PhotoWork.resizeDiscussion,
        arguments: [BatchOptions.files("Photos to compress (any format offconvert reads).")],
        options: PhotoWork.options(
            [
                targetSize.spec, format.spec,
            ]
                + PhotoWork.commonOptions.map { option in
                    // The same option as everywhere, with the default this command gives it.
                    option.long == PhotoWork.quality.long
                        ? .option(option.long, value: "n", help: "Encoder quality, 1 to 100.", default: "80") : option
                }),
        examples: ["compress-photos *.jpg --target-size 500KB", "compress-photos IMG_0001.HEIC --max-size 2048"])

    package static func run(_ arguments: ParsedArguments, console: Console) async throws -> Int32 {
        var template = try PhotoWork.request(from: arguments, format: try arguments.value(format, default: .jpeg))
        if !arguments.has(PhotoWork.quality) { template.quality = 80 }
        if let target = try arguments.value(targetSize) {
            if arguments.has(PhotoWork.quality) {
                throw UsageError(message: "'--quality' and '--target-size' cannot be used together.")
            }
            guard target >= 1000 else { throw UsageError(message: "'--target-size' must be at least 1KB.") }
            template.targetByteCount = target
        }
        return try await PhotoWork.run(
            command: spec.name, template: template, arguments: arguments, console: console, outputSuffix: outputSuffix,
            shrinking: true)
    }

    /// Added to each output's name, so `photo.jpg` gives `photo (small).jpg` beside it rather than
    /// `photo (2).jpg`, which reads as a duplicate.
    package static let outputSuffix = " (small)"
}
