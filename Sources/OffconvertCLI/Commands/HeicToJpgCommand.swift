import ConvertCore

/// `offconvert heic-to-jpg FILES...`: iPhone photos to JPEGs anyone can open.
package enum HeicToJpgCommand: Command {
    package static let spec = CommandSpec(
        name: "heic-to-jpg",
        abstract: "Convert HEIC photos to JPEG, upright, colour profile kept, location removed.",
        discussion: """
            Each photo becomes NAME.jpg next to it (or in --output-dir); an existing file is never \
            replaced unless --overwrite is given: NAME (2).jpg is used instead. GPS location, serial \
            numbers and owner names are removed unless you ask to keep them.
            """ + "\n" + PhotoWork.resizeDiscussion,
        arguments: [BatchOptions.files("Photos to convert (any format offconvert reads).")],
        options: PhotoWork.options(PhotoWork.commonOptions),
        examples: ["heic-to-jpg IMG_0001.HEIC IMG_0002.HEIC --output-dir jpgs"])

    package static func run(_ arguments: ParsedArguments, console: Console) async throws -> Int32 {
        let template = try PhotoWork.request(from: arguments, format: .jpeg)
        return try await PhotoWork.run(command: spec.name, template: template, arguments: arguments, console: console)
    }
}
