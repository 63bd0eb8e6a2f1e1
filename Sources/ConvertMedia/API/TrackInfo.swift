import ConvertCore

/// One track (stream) of a container.
///
/// JSON object:
/// ```
/// {
///   "index": 0,               // FFmpeg stream index
///   "trackID": 1,             // container's own id (MP4 track_ID, MKV track number, TS PID); optional
///   "kind": "video",          // video audio subtitle data attachment unknown
///   "codec": "hevc",          // FFmpeg codec name, or the fourcc when FFmpeg has none (vvc1, mebx, apac, tmcd)
///   "codecTag": "hvc1",       // the fourcc/sample entry as stored; optional
///   "decoderAvailable": true, // whether this build of FFmpeg can decode it
///   "handler": "vide",        // MP4/MOV handler type (vide soun meta tmcd text ...); optional
///   "coverArt": true,         // an attached picture (a song's cover), not a movie; optional
///   "profile": "Main 10",     // optional
///   "language": "eng",        // ISO 639-2, optional ("und" is omitted)
///   "bitRate": 1000000,       // bits per second, optional
///   "durationSeconds": 8.0,   // optional
///   "video": VideoTrackInfo,  // video tracks only
///   "audio": AudioTrackInfo   // audio tracks only
/// }
/// ```
public struct TrackInfo: Sendable, Codable, Hashable {
    /// FFmpeg's stream index.
    public var index: Int
    /// The container's own track id, when it has one.
    public var trackID: Int?
    /// What the track carries.
    public var kind: TrackKind
    /// FFmpeg's codec name (`h264`, `hevc`, `aac`), or the fourcc when FFmpeg does not know the
    /// codec (`vvc1`, `apac`, `mebx`, `tmcd`, `mett`).
    public var codec: String
    /// The stored fourcc / sample-entry type (`hvc1`, `dvh1`, `mp4a`), when the container has one.
    public var codecTag: String?
    /// Whether this build of FFmpeg has a decoder for the codec.
    public var decoderAvailable: Bool
    /// The MP4/MOV handler type (`vide`, `soun`, `meta`, `tmcd`, `text`), when known.
    public var handler: String?
    /// The codec profile, e.g. `Main 10` or `LC`.
    public var profile: String?
    /// The track's language (ISO 639-2), omitted when undetermined.
    public var language: String?
    /// The track's bit rate in bits per second, when known.
    public var bitRate: Int?
    /// The track's duration in seconds, when known.
    public var durationSeconds: Double?
    /// Video details, for video tracks.
    public var video: VideoTrackInfo?
    /// Audio details, for audio tracks.
    public var audio: AudioTrackInfo?
    /// True for cover art (an attached picture: ID3 APIC, FLAC PICTURE, MP4 `covr`), which is a
    /// video track to FFmpeg but a single picture; absent otherwise.
    public var coverArt: Bool?

    /// Creates a track description.
    public init(
        index: Int, trackID: Int? = nil, kind: TrackKind, codec: String, codecTag: String? = nil,
        decoderAvailable: Bool, handler: String? = nil, profile: String? = nil, language: String? = nil,
        bitRate: Int? = nil, durationSeconds: Double? = nil, video: VideoTrackInfo? = nil, audio: AudioTrackInfo? = nil
    ) {
        self.index = index
        self.trackID = trackID
        self.kind = kind
        self.codec = codec
        self.codecTag = codecTag
        self.decoderAvailable = decoderAvailable
        self.handler = handler
        self.profile = profile
        self.language = language
        self.bitRate = bitRate
        self.durationSeconds = durationSeconds
        self.video = video
        self.audio = audio
    }

    enum CodingKeys: String, CodingKey {
        case index, trackID, kind, codec, codecTag, decoderAvailable, handler, profile, language, bitRate
        case durationSeconds, video, audio, coverArt
    }
}
