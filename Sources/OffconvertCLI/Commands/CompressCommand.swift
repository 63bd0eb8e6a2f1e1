import ConvertCore

/// `offconvert compress FILE... --target 25MB`: videos at most a given size.
package enum CompressCommand: MediaCommand {
    /// Its engine work.
    package static let work = MediaWork.compress

    /// `-t`: the size limit; its unit is checked where it is read.
    package static let target = Option.byteCount(
        "target", short: "t", value: "size",
        help: "The largest each output may be, with a unit: e.g. 25MB (25,000,000 bytes) or 8MiB (8,388,608 bytes).")
    /// `--max-height`, as the size commands explain it.
    static let sizedMaxHeight = VideoOptions.maxHeight.spec.helping(
        "Never taller than this (displayed height, aspect kept). Without it, a tight target lowers the resolution "
            + "only when the picture needs it: text and screen recordings keep their size.")
    /// `--duration`, as the size commands explain it.
    static let sizedDuration = VideoOptions.duration.spec.helping(
        "Make the output this long: seconds, mm:ss or hh:mm:ss. The size limit is spent on that part.")

    package static let spec = CommandSpec(
        name: "compress",
        abstract: "Compress videos to at most a given size (MP4, H.264, AAC).",
        discussion: """
            Each output is never larger than --target, and the target is a ceiling, not a goal: nor is \
            an output larger than its input while a smaller re-encode keeps the picture. A video that \
            already fits and plays everywhere is copied without re-encoding. One that must be re-encoded \
            (HEVC, HDR, 4:4:4, MP3 sound...) gets the normal quality of send-to-windows (H.264 CRF 23) \
            when that fits, so it is not made bigger than it needs to be; a video that needs more than \
            the target allows is found out within its first frames and encoded once up to the target. \
            The sound is copied whenever it fits, and cut only as far as the target needs. The result \
            is measured and encoded again at a lower bitrate in the rare case it came out over. When \
            the bitrate gets too low for the picture, the resolution is lowered first (unless the first \
            frames show the picture is easy to code, as text and screen recordings are, and it grows \
            back, at the normal quality when that easy; --max-height sets it yourself), then the frame rate (a 120 fps clip keeps 120 fps \
            down to 720p), and the notes say so. A target \
            that cannot be reached fails before anything is written, saying the smallest size that can. \
            A phone's slow motion plays as the phone plays it (--slow-motion flatten, re-encoded) and the \
            target is spent on that timeline. \
            --dry-run prints each plan (copy or re-encode, bitrate, size at most, frame rate) or why the \
            target cannot be reached, and exits 1 when one cannot. \
            The target needs a unit: KB = 1000 bytes, MB = 1000^2, GB = 1000^3; KiB = 1024 bytes, \
            MiB = 1024^2, GiB = 1024^3; B for bytes. \
            The recording location is removed unless --keep-location is given.
            """,
        arguments: [BatchOptions.files("The videos to compress.")],
        options: [
            target.spec, VideoOptions.keepLocation.spec, VideoOptions.start.spec, sizedDuration,
            VideoOptions.rawFrameRate.spec,
            sizedMaxHeight, VideoOptions.slowMotion.spec,
        ] + BatchOptions.specs,
        examples: [
            "compress clip.mov --target 25MB", "compress *.MOV --target 8MiB --output-dir small",
            "compress --from-file list.txt --target 50MB --dry-run",
        ])
}

/// `offconvert email FILE...`: videos small enough to attach to an e-mail.
package enum EmailCommand: MediaCommand {
    /// Its engine work.
    package static let work = MediaWork.email

    package static let spec = CommandSpec(
        name: "email",
        abstract: "Make videos small enough to attach to an e-mail (at most 25 MB, MP4, H.264, AAC).",
        discussion: """
            The same as 'compress --target 25MB' (25 MB = 25,000,000 bytes, under the common 25 MB \
            attachment limit): each output is never larger. The limit is a ceiling, not a goal: a video \
            that already fits and plays everywhere is copied without re-encoding, one that must be \
            re-encoded gets the normal quality of send-to-windows when that fits, and only a longer \
            video is encoded up to the limit. --dry-run prints each plan. The recording \
            location is removed unless --keep-location is given.
            """,
        arguments: [BatchOptions.files("The videos to send.")],
        options: [
            VideoOptions.keepLocation.spec, VideoOptions.start.spec, CompressCommand.sizedDuration,
            VideoOptions.rawFrameRate.spec,
            CompressCommand.sizedMaxHeight, VideoOptions.slowMotion.spec,
        ] + BatchOptions.specs,
        examples: [
            "email IMG_0042.MOV", "email *.MOV --output-dir ~/Attach", "email holiday.mp4 --start 0:02 --duration 5",
        ])
}
