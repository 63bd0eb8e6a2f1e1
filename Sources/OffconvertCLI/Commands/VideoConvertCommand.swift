import ConvertCore

/// The video half of `offconvert convert FILE --to mp4|mov|mkv|webm`: a video in exactly the
/// container and codec asked for. ``ConvertCommand`` parses the command line and calls it.
package enum VideoConvertCommand {
    /// The video-only options of `convert`.
    package static let ownOptions: [OptionSpec] = [
        .option("codec", short: "c", value: "codec",
                help: "Video codec: \(VideoCodec.allCases.map(\.rawValue).joined(separator: ", ")) (default: keep the source's when possible)."),
        .option("crf", value: "n", help: "Quality, 0 (best) to 63; lower is better and bigger. Forces a re-encode."),
        presetOption(default: .medium),
        .option("max-height", value: "px", help: "Scale down to at most this displayed height, keeping the aspect."),
        .flag("keep-location", help: "Keep the recording location in the output."),
        .option("audio-track", value: "n", help: "Keep this audio track (1 is the first) instead of the first AAC one."),
        .flag("all-audio", help: "Keep every audio track."),
        .option("start", value: "time", help: "Start the output here: seconds (12.5), mm:ss or hh:mm:ss. Cutting re-encodes."),
        .option("duration", value: "time", help: "Make the output this long: seconds, mm:ss or hh:mm:ss."),
        .option("fps", value: "n", help: "Frame rate for a raw .h264/.hevc stream, which has no timestamps (default: the rate the stream says, else 30)."),
    ]

    /// `--preset`: the x264/x265 speed of a re-encode, named as x264 names it.
    package static func presetOption(default preset: EncoderPreset) -> OptionSpec {
        .option("preset", value: "name",
                help: "H.264/HEVC encoder speed: \(EncoderPreset.allCases.map(\.rawValue).joined(separator: ", ")); "
                    + "slower makes smaller files (default: \(preset.rawValue)).")
    }

    /// The codecs a container holds.
    package static func codecs(for container: VideoContainer) -> [VideoCodec] {
        container == .webm ? [.vp9, .av1] : VideoCodec.allCases
    }
}
