import ConvertCore

/// `offconvert send-to-windows FILE...`: an MP4 that plays on a stock Windows PC.
package enum SendToWindowsCommand: MediaCommand {
    /// Its engine work.
    package static let work = MediaWork.sendToWindows

    /// Its own options (the batch options follow them).
    package static let ownOptions: [OptionSpec] = [
        .flag("keep-location", help: "Keep the recording location in the output."),
        VideoConvertCommand.presetOption(default: VideoSituation.sendToWindows.defaultPreset),
        .option("start", value: "time", help: "Start the output here: seconds (12.5), mm:ss or hh:mm:ss. Cutting re-encodes."),
        .option("duration", value: "time", help: "Make the output this long: seconds, mm:ss or hh:mm:ss."),
        .option("fps", value: "n", help: "Frame rate for a raw .h264/.hevc stream, which has no timestamps (default: the rate the stream says, else 30)."),
    ]

    package static let spec = CommandSpec(
        name: "send-to-windows",
        abstract: "Make videos that play on any Windows PC (MP4, H.264, AAC).",
        discussion: """
            Copies the video and sound without re-encoding when they already are H.264 and AAC; \
            otherwise re-encodes them (HDR and Dolby Vision are tone mapped to ordinary SDR colours). \
            Keeps the video and the first sound track only; other tracks are left out. The location \
            where the video was recorded is removed unless --keep-location is given.
            """,
        arguments: [BatchOptions.files("The videos to convert.")],
        options: ownOptions + BatchOptions.specs,
        examples: ["send-to-windows IMG_0042.MOV", "send-to-windows *.MOV --output-dir ~/ForWindows"])
}
