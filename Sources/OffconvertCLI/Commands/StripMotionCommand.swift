import ConvertCore

/// `offconvert strip-motion FILES...`: each motion photo's still without its video.
package enum StripMotionCommand: Command {
    /// Added to each output's name: `PXL_0001.MP.jpg` becomes `PXL_0001.MP (still).jpg`.
    package static let outputSuffix = " (still)"

    package static let spec = CommandSpec(
        name: "strip-motion",
        abstract: "Remove the video from motion photos, keeping the photo exactly as it is.",
        discussion: """
            Each motion photo becomes 'NAME (still).EXT' next to it (or in --output-dir): the file \
            up to where the video begins, with the XMP properties that pointed at the video \
            removed. Every other byte, the compressed picture and EXIF included, is the \
            original's, so nothing is re-encoded; the file is often half the size. Use \
            extract-motion first to keep the video.
            """,
        arguments: [BatchOptions.files("Motion photos.")],
        options: BatchOptions.specs,
        examples: ["strip-motion PXL_20200710_061629144.MP.jpg", "strip-motion -o stills/ *.MP.jpg"])

    package static func run(_ arguments: ParsedArguments, console: Console) async throws -> Int32 {
        let options = try BatchOptions.parse(arguments)
        var work = BatchWork(
            command: spec.name, identity: [],
            outputExtension: { PathText.fileExtension($0).isEmpty ? "jpg" : PathText.fileExtension($0) },
            outputSuffix: outputSuffix,
            cost: { input in MotionCommands.cost(input) },
            convert: { item, progress throws(ConvertError) in
                let request = MotionPhotoRequest(
                    input: item.input,
                    output: item.outputLocation)
                return try await MotionPhotoEditor.stripVideo(request).result(onProgress: progress)
            })
        work.accepts = .photos
        return await BatchRunner.run(work, options: options, console: console)
    }
}
