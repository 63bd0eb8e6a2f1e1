import ConvertCore

/// The audio part of a ``TrackInfo``.
///
/// JSON object: `channels` (integer), `channelLayout` (FFmpeg's description such as `"stereo"` or
/// `"5.1(side)"`; optional), `sampleRate` (Hz), `sampleFormat` (FFmpeg's name; optional).
public struct AudioTrackInfo: Sendable, Codable, Hashable {
    /// Number of channels.
    public var channels: Int
    /// The channel layout, e.g. `stereo`, when known.
    public var channelLayout: String?
    /// Sample rate in Hz.
    public var sampleRate: Int
    /// FFmpeg's sample format name, e.g. `fltp`, when known.
    public var sampleFormat: String?

    /// Creates an audio description.
    public init(channels: Int, channelLayout: String? = nil, sampleRate: Int, sampleFormat: String? = nil) {
        self.channels = channels
        self.channelLayout = channelLayout
        self.sampleRate = sampleRate
        self.sampleFormat = sampleFormat
    }

    enum CodingKeys: String, CodingKey {
        case channels, channelLayout, sampleRate, sampleFormat
    }
}
