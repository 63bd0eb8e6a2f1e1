import ConvertCore

/// `offconvert heic-to-png FILES...`: lossless copies of HEIC photos.
package enum HeicToPngCommand: Command {
    package static let spec = CommandSpec(
        name: "heic-to-png",
        abstract: "Convert HEIC photos to lossless PNG (16-bit for 10/12-bit photos).",
        discussion: """
            Each photo becomes NAME.png next to it (or in --output-dir). Transparency is kept. \
            Photos with more than 8 bits per channel are written as 16-bit PNGs.
            """ + "\n" + PhotoWork.resizeDiscussion,
        arguments: [BatchOptions.files("Photos to convert (any format offconvert reads).")],
        options: PhotoWork.options(PhotoWork.commonOptions.filter { Catalogue.photoOption($0.long, appliesTo: .png) }),
        examples: ["heic-to-png photo.heic"])

    package static func run(_ arguments: ParsedArguments, console: Console) async throws -> Int32 {
        let template = try PhotoWork.request(from: arguments, format: .png)
        return try await PhotoWork.run(command: spec.name, template: template, arguments: arguments, console: console)
    }
}
