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
    /// Text subtitles (SRT, ASS, WebVTT) written again as MP4's `mov_text`.
    case subtitle(StreamSnapshot)

    var stream: StreamSnapshot {
        switch self {
        case .copy(let stream), .video(let stream, _), .audio(let stream, _), .subtitle(let stream): return stream
        }
    }

    var isCopy: Bool {
        if case .copy = self { return true }
        return false
    }
}
