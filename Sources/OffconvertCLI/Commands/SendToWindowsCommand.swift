import ConvertCore
import MediaRequests

/// `offconvert send-to-windows FILE...`: an MP4 that plays on a stock Windows PC.
package enum SendToWindowsCommand: MediaCommand {
    /// Its engine work.
    package static let work = MediaWork.sendToWindows

    /// `--preset`.
    package static let preset = VideoOptions.preset(default: VideoSituation.sendToWindows.defaultPreset)

    /// Its own options (the batch options follow them).
    static let ownOptions: [OptionSpec] = [
        VideoOptions.keepLocation.spec, preset.spec, VideoOptions.start.spec, VideoOptions.duration.spec,
        VideoOptions.rawFrameRate.spec, VideoOptions.subtitles.spec, VideoOptions.slowMotion.spec,
    ]

    package static let spec = CommandSpec(
        name: "send-to-windows",
        abstract: "Make videos that play on any Windows PC (MP4, H.264, AAC).",
        discussion: """
            Copies the video and sound without re-encoding when they already are H.264 and AAC; \
            otherwise re-encodes them (HDR and Dolby Vision are tone mapped to ordinary SDR colours). \
            Keeps the video, the first sound track, text subtitles (as selectable mov_text tracks) and \
            the chapters and the cover; other \
            tracks are left out, each named in a note. A picture \
            larger than 3840x2160 (an 8K clip) is scaled into that box, as H.264 beyond level 5.2 \
            does not play on most Windows PCs. An animated GIF or APNG is taken as a silent clip. \
            The location where the video was recorded is removed unless --keep-location is given.
            """,
        arguments: [BatchOptions.files("The videos to convert.")],
        options: ownOptions + BatchOptions.specs,
        examples: ["send-to-windows IMG_0042.MOV", "send-to-windows *.MOV --output-dir ~/ForWindows"])
}
