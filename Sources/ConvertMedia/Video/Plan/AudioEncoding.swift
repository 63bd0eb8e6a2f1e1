import ConvertCore

/// How one audio stream is re-encoded.
struct AudioEncoding: Sendable, Equatable {
    /// FFmpeg encoder name (`aac`, `libopus`, `libmp3lame`, `flac`, `pcm_s16le`).
    var encoder: String
    /// Output sample rate; `nil` keeps the source's when the encoder accepts it.
    var sampleRate: Int32?
    /// Output channel count, in FFmpeg's default layout for that many (5.1 for 6, 7.1 for 8).
    var channels: Int32
    /// Target bit rate in bits per second, for lossy encoders.
    var bitRate: Int64?
    /// Filters run before resampling (`atrim` for a cut), or empty.
    var trim = ""
}
