import ConvertCore

/// `offconvert gif FILE`: an animated GIF from part of a video.
enum GIFCommand: Command {
    /// Its own options (the batch options follow them).
    static let ownOptions: [OptionSpec] = [
        .option("start", short: "s", value: "seconds", help: "Where the GIF starts.", default: "0"),
        .option("duration", short: "d", value: "seconds", help: "How long it lasts (at most 30)."),
        .option("fps", value: "n", help: "Frames per second, 1 to 30.", default: "12"),
        .option("width", short: "w", value: "px", help: "Width in pixels, 16 to 1280; never enlarged.", default: "480"),
    ]

    static let spec = CommandSpec(
        name: "gif",
        abstract: "Make an animated GIF from a video clip.",
        discussion: """
            Builds one palette for the whole clip and dithers lightly, so colours stay smooth and the \
            file stays small. GIFs are limited to 30 seconds.
            """,
        arguments: [BatchOptions.files("The videos.")],
        options: ownOptions + BatchOptions.specs,
        examples: ["gif clip.mp4 --start 3 --duration 4", "gif clip.mov --fps 15 --width 320"])

    static func run(_ arguments: ParsedArguments, console: Console) async throws -> Int32 {
        let start = try VideoWork.seconds(arguments, "start") ?? 0
        let duration = try VideoWork.seconds(arguments, "duration")
        if let duration, duration <= 0 || duration > GIFRequest.maximumDuration {
            throw UsageError(message: "The value for '--duration' must be more than 0 and at most 30 seconds.")
        }
        let fps = try arguments.integer("fps", in: 1...30, default: 12)
        let width = try arguments.integer("width", in: 16...1280, default: 480)
        // The palette is built from every frame of the clip, so all of them are held at once.
        let frames = fps * Int((duration ?? GIFRequest.maximumDuration).rounded(.up))
        let maxPixels = try BatchOptions.maxPixels(arguments)
        return try await VideoWork.run(
            command: spec.name, identity: ["start=\(start)", "duration=\(duration ?? -1)", "fps=\(fps)", "width=\(width)"],
            outputExtension: "gif", arguments: arguments, console: console,
            cost: { input in await VideoWork.cost(of: input, frames: frames, width: width) }
        ) { input, output in
            VideoConverter.gif(GIFRequest(input: input, start: start, duration: duration, framesPerSecond: fps, width: width,
                                          output: output, maxPixels: maxPixels))
        }
    }
}
