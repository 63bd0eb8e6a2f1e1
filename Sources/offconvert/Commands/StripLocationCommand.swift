import ConvertCore
import Foundation

/// `offconvert strip-location FILES... [--in-place]`: removes where a photo or video was made,
/// without re-encoding anything.
enum StripLocationCommand: Command {
    /// Added to each output's name: `IMG_0001.HEIC` becomes `IMG_0001 (no location).HEIC`.
    static let outputSuffix = " (no location)"

    static let spec = CommandSpec(
        name: "strip-location",
        abstract: "Remove the location from photos and videos without re-encoding them.",
        discussion: """
            Removes EXIF GPS, XMP location fields and MP4/MOV location tags (©xyz, \
            com.apple.quicktime.location.*) from JPEG, PNG, WebP, HEIC/AVIF, MP4 and MOV files. \
            Only metadata bytes change: the compressed picture and every audio/video packet stay \
            byte-identical, and so does the file's size. Each file becomes 'NAME (no location).EXT' \
            next to it (or in --output-dir); with --in-place the file itself is replaced through a \
            temporary file and a rename. The result is read back before it is kept: if a location \
            would remain, nothing is written and the file is reported as failed.
            """,
        arguments: [ArgumentSpec(name: "FILES", help: "Photos and videos to clean.", repeating: true)],
        options: [.flag("in-place", help: "Replace each file instead of writing a copy.")] + BatchOptions.specs,
        examples: ["strip-location IMG_0001.HEIC", "strip-location --in-place *.jpg", "strip-location -o clean/ clip.mov"])

    static func run(_ arguments: ParsedArguments, console: Console) async throws -> Int32 {
        let options = try BatchOptions.parse(arguments)
        let inPlace = arguments.flag("in-place")
        if inPlace && options.outputDirectory != nil {
            throw UsageError(message: "'--in-place' and '--output-dir' cannot be used together.")
        }
        guard !options.inputs.isEmpty else { throw UsageError(message: "Missing expected argument 'FILES'.") }
        let cost: @Sendable (String) -> Int64 = { input in
            // Photos are read whole; movies only their movie box.
            var info = stat()
            return stat(input, &info) == 0 ? min(Int64(info.st_size), 256 << 20) + (8 << 20) : 8 << 20
        }
        if inPlace && options.dryRun {
            // The batch front end plans fresh names; in place, each file is its own output.
            let printer = BatchPrinter(console: console, options: options, board: nil)
            for (index, input) in options.inputs.enumerated() {
                printer.planned(index: index, input: input, output: input, memory: cost(input))
            }
            return ExitCode.success
        }
        let work = BatchWork(
            command: "strip-location", identity: [inPlace ? "in-place" : "copy"],
            outputExtension: { ($0 as NSString).pathExtension.isEmpty ? "bin" : ($0 as NSString).pathExtension },
            outputSuffix: inPlace ? "" : outputSuffix,
            cost: cost,
            convert: { item, progress throws(ConvertError) in
                let request = StripLocationRequest(
                    input: item.input, destination: inPlace ? item.input : item.destination, overwrite: item.overwrite)
                return try await LocationStripper.strip(request).result(onProgress: progress)
            })
        return await BatchRunner.run(work, options: options, console: console)
    }
}
