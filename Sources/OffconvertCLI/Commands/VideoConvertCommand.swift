import ConvertCore
import MediaRequests

/// The video half of `offconvert convert FILE --to mp4|mov|mkv|webm`: a video in exactly the
/// container and codec asked for. ``ConvertCommand`` parses the command line and calls it.
package enum VideoConvertCommand {
    /// The video-only options of `convert`.
    static let ownOptions: [OptionSpec] = [
        VideoOptions.codec(for: .mp4).spec, VideoOptions.crf.spec, preset.spec, VideoOptions.maxHeight.spec,
        VideoOptions.keepLocation.spec, VideoOptions.audioTrack.spec, VideoOptions.allAudio.spec,
        VideoOptions.start.spec,
        VideoOptions.duration.spec, VideoOptions.rawFrameRate.spec, VideoOptions.subtitles.spec,
        VideoOptions.slowMotion.spec,
    ]

    /// `--preset`.
    package static let preset = VideoOptions.preset(default: VideoSituation.convert.defaultPreset)

    /// The codecs a container holds.
    package static func codecs(for container: VideoContainer) -> [VideoCodec] {
        container == .webm ? [.vp9, .av1] : VideoCodec.allCases
    }
}
