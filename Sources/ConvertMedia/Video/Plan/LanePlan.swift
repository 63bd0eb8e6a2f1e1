import ConvertCore
internal import FFmpegLayer

/// What happens to one kept input stream.
enum LanePlan: Sendable, Equatable {
    /// Packets copied as they are.
    case copy(StreamSnapshot)
    /// Decoded, filtered and re-encoded as video.
    case video(StreamSnapshot, VideoEncoding)
    /// Decoded, resampled and re-encoded as audio.
    case audio(StreamSnapshot, AudioEncoding)
    /// Text subtitles (SRT, ASS, WebVTT) written again, cue for cue, in the one text codec the
    /// container shows (MP4's `mov_text`, WebM's WebVTT).
    case subtitle(StreamSnapshot, TextSubtitleCodec)

    var stream: StreamSnapshot {
        switch self {
        case .copy(let stream), .video(let stream, _), .audio(let stream, _),
            .subtitle(let stream, _):
            return stream
        }
    }

    var isCopy: Bool {
        if case .copy = self { return true }
        return false
    }
}

/// The text subtitle codec a container shows as a selectable track, as FFmpeg's encoder names it.
enum TextSubtitleCodec: String, Sendable, Equatable {
    /// MP4's and MOV's `tx3g`.
    case movText = "mov_text"
    /// WebM's only subtitle codec.
    case webVTT = "webvtt"

    /// The codec `format` writes text subtitles as when they are not its own; nil when it has
    /// none (Matroska copies every kind).
    init?(for format: OutputFormat) {
        switch format.muxer {
        case .mp4, .mov: self = .movText
        case .webm: self = .webVTT
        default: return nil
        }
    }

    /// As people know it, for notes.
    var displayName: String { self == .movText ? "mov_text" : "WebVTT" }
}
