import ConvertCore
import FoundationEssentials
import Glibc

/// `offconvert extract-motion FILES...`: the video inside each motion photo, as its own MP4.
package enum ExtractMotionCommand: Command {
    package static let spec = CommandSpec(
        name: "extract-motion",
        abstract: "Save the video inside Pixel and Samsung motion photos as MP4 files.",
        discussion: """
            A motion photo (Google Pixel 'PXL_*.MP.jpg', Samsung 'Motion photo', a Google HEIC \
            with an 'mpvd' box) carries a short MP4 after the picture. Each one becomes NAME.mp4 \
            next to it (or in --output-dir): the MP4 exactly as the phone stored it, nothing \
            re-encoded, dated with the photo's capture time. A photo whose metadata points at a \
            video that is not there (an app or an upload cut it off) is reported as failed; \
            ordinary photos are reported as having no video.
            """,
        arguments: [BatchOptions.files("Motion photos.")],
        options: BatchOptions.specs,
        examples: ["extract-motion PXL_20200710_061629144.MP.jpg", "extract-motion -o videos/ *.MP.jpg"])

    package static func run(_ arguments: ParsedArguments, console: Console) async throws -> Int32 {
        let options = try BatchOptions.parse(arguments)
        var work = BatchWork(
            command: spec.name, identity: [], outputExtension: { _ in "mp4" },
            cost: { input in MotionCommands.cost(input) },
            convert: { item, progress throws(ConvertError) in
                let request = MotionPhotoRequest(
                    input: item.input,
                    output: item.outputLocation)
                return try await MotionPhotoEditor.extractVideo(request).result(onProgress: progress)
            })
        work.accepts = .photos
        return await BatchRunner.run(work, options: options, console: console)
    }
}

/// What the motion-photo commands share.
enum MotionCommands {
    /// A motion photo is read whole once: its size plus a little.
    static func cost(_ input: String) -> Int64 {
        var info = stat()
        return stat(input, &info) == 0 ? min(Int64(info.st_size), 256 << 20) * 2 + (4 << 20) : 8 << 20
    }
}
