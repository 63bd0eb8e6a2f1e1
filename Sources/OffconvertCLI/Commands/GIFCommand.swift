import ConvertCore

/// `offconvert gif FILE`: an animated GIF from part of a video.
package enum GIFCommand: MediaCommand {
    /// Its engine work.
    package static let work = MediaWork.gif

    /// `-s`.
    package static let start = VideoOptions.time(
        "start", short: "s", help: "Where the GIF starts: seconds, mm:ss or hh:mm:ss.", default: "0")
    /// `-d`.
    package static let duration = VideoOptions.time(
        "duration", short: "d", help: "How long it lasts (at most 30 seconds).")
    /// `--fps`: the GIF's own frame rate.
    package static let fps = Option.integer("fps", in: 1...30, help: "Frames per second, 1 to 30.", default: "12")
    /// `-w`.
    package static let width = Option.integer(
        "width", short: "w", value: "px", in: 16...1280,
        help: "Width in pixels, 16 to 1280; never enlarged.", default: "480")

    /// Its own options (the batch options follow them).
    static let ownOptions: [OptionSpec] = [
        start.spec, duration.spec, fps.spec, width.spec, VideoOptions.slowMotion.spec,
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
