import ConvertCore

/// `offconvert gif FILE`: an animated GIF from part of a video.
package enum GIFCommand: MediaCommand {
    /// Its engine work.
    package static let work = MediaWork.gif

    /// Its own options (the batch options follow them).
    package static let ownOptions: [OptionSpec] = [
        .option("start", short: "s", value: "time", help: "Where the GIF starts: seconds, mm:ss or hh:mm:ss.", default: "0"),
        .option("duration", short: "d", value: "time", help: "How long it lasts (at most 30 seconds)."),
        .option("fps", value: "n", help: "Frames per second, 1 to 30.", default: "12"),
        .option("width", short: "w", value: "px", help: "Width in pixels, 16 to 1280; never enlarged.", default: "480"),
    ]

    package static let spec = CommandSpec(
        name: "gif",
        abstract: "Make an animated GIF from a video clip.",
        discussion: """
            Builds one palette for the whole clip and dithers lightly, so colours stay smooth and the \
            file stays small. GIFs are limited to 30 seconds.
            """,
        arguments: [BatchOptions.files("The videos.")],
        options: ownOptions + BatchOptions.specs,
        examples: ["gif clip.mp4 --start 3 --duration 4", "gif clip.mov --fps 15 --width 320"])
}
