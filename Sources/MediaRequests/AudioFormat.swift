import ConvertCore

/// An audio file format offconvert writes.
public enum AudioFormat: String, Sendable, CaseIterable {
    /// AAC in MPEG-4 audio (`.m4a`); AAC sources are copied without re-encoding.
    case m4a
    /// MP3 (LAME).
    case mp3
    /// Opus in Ogg (`.opus`).
    case opus
    /// 16-bit PCM WAVE.
    case wav
    /// FLAC (lossless).
    case flac

    /// The file name extension, without the dot.
    public var fileExtension: String { rawValue }
}
