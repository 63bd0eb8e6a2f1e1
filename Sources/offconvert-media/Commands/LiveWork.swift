import ConvertMedia
import Foundation
import OffconvertCLI

extension HeicToJpgCommand {
    /// `heic-to-jpg --live mp4|gif`: the photos, then each Live Photo's motion beside its JPEG.
    static func runWithEngine(_ arguments: ParsedArguments, console: Console) async throws -> Int32 {
        let kind = try arguments.choice("live", liveChoices, default: "mp4")
        let template = try PhotoWork.request(from: arguments, format: .jpeg)
        let photos = try await PhotoWork.run(command: spec.name, template: template, arguments: arguments, console: console)
        let options = try BatchOptions.parse(arguments)
        let pairs = LivePhotos.pairs(among: options.inputs)
        guard !pairs.isEmpty else { return photos }
        let motion = await LiveWork.run(pairs, kind: kind, command: spec.name, options: options, console: console)
        return photos != ExitCode.success ? photos : motion
    }
}

/// The motion of Live Photos as MP4 (like `send-to-windows`) or GIF (like `gif`), each named
/// after its photo: `IMG_0001.HEIC` + `IMG_0001.MOV` give `IMG_0001.mp4`, and so does a MOV
/// renamed on export, since the pair is found by content identifier.
enum LiveWork {
    /// Runs one batch over the pairs' movies.
    static func run(_ pairs: [LivePhotoPair], kind: String, command: String, options: BatchOptions, console: Console) async -> Int32 {
        var options = options
        options.inputs = pairs.map(\.movie)
        let destinations = Dictionary(pairs.map { ($0.movie, destination(of: $0, kind: kind, folder: options.outputDirectory)) },
                                      uniquingKeysWith: { first, _ in first })
        let maxPixels = options.maxPixels
        var work = BatchWork(
            command: command, identity: ["live=\(kind)"], outputExtension: { _ in kind },
            cost: { input in await VideoWork.cost(of: input, frames: kind == "gif" ? 12 * 30 : VideoWork.framesInFlight) },
            convert: { item, progress throws(ConvertError) in
                let output = OutputLocation(path: destinations[item.input] ?? item.destination, overwrite: item.overwrite,
                                            mayRenumber: true)
                let job = kind == "gif"
                    ? VideoConverter.gif(GIFRequest(input: item.input, output: output, maxPixels: maxPixels))
                    : VideoConverter.convert({
                        var request = VideoRequest.sendToWindows(item.input, output: output)
                        request.maxPixels = maxPixels
                        return request
                    }())
                return try await job.result(onProgress: progress)
            })
        work.accepts = .videos
        return await BatchRunner.run(work, options: options, console: console)
    }

    /// `FOLDER/STEM.mp4` for the pair's photo: beside it, or in `folder`.
    static func destination(of pair: LivePhotoPair, kind: String, folder: String?) -> String {
        let name = PathText.lastComponent(pair.photo)
        let stem = name.lastIndex(of: ".").map { String(name[..<$0]) } ?? name
        return (folder ?? PathText.parent(pair.photo)) + "/" + stem + "." + kind
    }
}
