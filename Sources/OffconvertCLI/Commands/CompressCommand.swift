import ConvertCore

/// `offconvert compress FILE... --target 25MB`: videos at most a given size.
package enum CompressCommand: MediaCommand {
    package static let spec = CommandSpec(
        name: "compress",
        abstract: "Compress videos to at most a given size (MP4, H.264, AAC).",
        discussion: """
            Each output is never larger than --target and lands as close under it as the codec allows: \
            the sound is counted exactly, the video is encoded in two passes, the result is measured and \
            the second pass is repeated at a lower bitrate if it came out over. When the bitrate gets too \
            low for the picture, the resolution (then the frame rate) is lowered first. A video that \
            already fits and plays everywhere is copied without re-encoding. A target that cannot be \
            reached fails before anything is written, saying the smallest size that can. \
            Sizes: KB = 1000 bytes, MB = 1000^2, GB = 1000^3; KiB = 1024 bytes, MiB = 1024^2, GiB = 1024^3. \
            The recording location is removed unless --keep-location is given.
            """,
        arguments: [ArgumentSpec(name: "FILES", help: "The videos to compress.", repeating: true)],
        options: [
            .option("target", short: "t", value: "size",
                    help: "The largest each output may be, e.g. 25MB (25,000,000 bytes) or 8MiB (8,388,608 bytes)."),
            .flag("keep-location", help: "Keep the recording location in the output."),
        ] + BatchOptions.specs,
        examples: ["compress clip.mov --target 25MB", "compress *.MOV --target 8MiB --output-dir small"])
}

/// `offconvert email FILE...`: videos small enough to attach to an e-mail.
package enum EmailCommand: MediaCommand {
    package static let spec = CommandSpec(
        name: "email",
        abstract: "Make videos small enough to attach to an e-mail (at most 25 MB, MP4, H.264, AAC).",
        discussion: """
            The same as 'compress --target 25MB' (25 MB = 25,000,000 bytes, under the common 25 MB \
            attachment limit): each output is never larger, and as close under as the codec allows. \
            A video that already fits and plays everywhere is copied without re-encoding. The recording \
            location is removed unless --keep-location is given.
            """,
        arguments: [ArgumentSpec(name: "FILES", help: "The videos to send.", repeating: true)],
        options: [.flag("keep-location", help: "Keep the recording location in the output.")] + BatchOptions.specs,
        examples: ["email IMG_0042.MOV", "email *.MOV --output-dir ~/Attach"])
}

