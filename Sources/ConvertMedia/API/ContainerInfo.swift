import ConvertCore

/// The container part of ``MediaInfo``: a movie or audio file and its tracks.
///
/// JSON object:
/// ```
/// {
///   "demuxer": "mov,mp4,m4a,3gp,3g2,mj2",  // FFmpeg's demuxer name
///   "durationSeconds": 8.04,               // absent when unknown
///   "bitRate": 453967,                     // overall, bits per second; absent when unknown
///   "brand": "qt  ",                       // MP4/MOV ftyp major brand, when there is one
///   "location": "+37.7899-122.4221+081.120/", // ISO 6709 (udta ©xyz or the
///                                          // com.apple.quicktime.location.ISO6709 key); absent if none
///   "telemetryGPSFixes": 216,              // GPS fixes in GoPro GPMF telemetry (gpmd); absent without
///                                          // such a track, 0 when it has no fix
///   "telemetrySubtitleCues": 900,          // cues with a position in DJI telemetry subtitle tracks;
///                                          // absent without such a track
///   "tracks": [ TrackInfo, ... ],
///   "chapters": [ ChapterInfo, ... ],      // absent when the clip has none
///   "slowMotion": { SlowMotionInfo },      // a phone's slow motion; absent for other clips
///   "warnings": [ "..." ]                  // absent when empty: damage found, disagreements
/// }
/// ```
public struct ContainerInfo: Sendable, Codable, Hashable {
    /// FFmpeg's demuxer name, e.g. `mov,mp4,m4a,3gp,3g2,mj2` or `matroska,webm`.
    public var demuxer: String
    /// Duration in seconds, when known.
    public var durationSeconds: Double?
    /// Overall bit rate in bits per second, when known.
    public var bitRate: Int?
    /// The `ftyp` major brand of an MP4/MOV file.
    public var brand: String?
    /// Location metadata as an ISO 6709 string, e.g. `+51.5334-000.1255+026.756/`, when present.
    public var location: String?
    /// The GPS fixes recorded in GoPro GPMF telemetry tracks (`gpmd`: `GPS5`/`GPS9` fixes, a
    /// Karma drone's `GPRI`/`GLPI`); nil when the file has no such track, 0 when it has no fix.
    public var telemetryGPSFixes: Int?
    /// The cues with a position in text subtitle tracks that are a drone's telemetry (DJI's
    /// SRT muxed in); nil when the file has no such track.
    public var telemetrySubtitleCues: Int?
    /// The tracks, in the container's order.
    public var tracks: [TrackInfo]
    /// The chapters, in order; empty when the clip has none.
    public var chapters: [ChapterInfo] = []
    /// A phone's slow motion (segments and capture rate); nil for other clips.
    public var slowMotion: SlowMotionInfo?
    /// Things a user may want to know: damage the box reader found, disagreements between our MP4
    /// reader and FFmpeg. Empty for a healthy file.
    public var warnings: [String]

    /// Creates a container description.
    public init(
        demuxer: String, durationSeconds: Double? = nil, bitRate: Int? = nil, brand: String? = nil,
        location: String? = nil, tracks: [TrackInfo] = [], warnings: [String] = []
    ) {
        self.demuxer = demuxer
        self.durationSeconds = durationSeconds
        self.bitRate = bitRate
        self.brand = brand
        self.location = location
        self.tracks = tracks
        self.warnings = warnings
    }

    /// Whether the file carries location metadata.
    public var hasLocation: Bool { location != nil }

    /// The telemetry tracks offconvert cannot read, by maker and sample entry ("DJI djmd", "Sony
    /// rtmd"), in the container's order: a location source (``LocationSource/unreadTelemetry``)
    /// whose contents cannot be checked. Derived from ``tracks``.
    public var unreadTelemetryTracks: [String] {
        tracks.compactMap { track in
            guard track.kind == .data, let tag = track.codecTag, VideoPlanner.unreadTelemetryTracks.contains(tag)
            else { return nil }
            return "\(VideoPlanner.telemetryTracks[tag] ?? "") \(tag)"
        }
    }

    /// The video tracks.
    public var videoTracks: [TrackInfo] { tracks.filter { $0.kind == .video } }

    enum CodingKeys: String, CodingKey {
        case demuxer, durationSeconds, bitRate, brand, location, telemetryGPSFixes, telemetrySubtitleCues, tracks,
            chapters, slowMotion,
            warnings
    }

    /// Decodes the JSON form documented on the type.

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        demuxer = try c.decode(String.self, forKey: .demuxer)
        durationSeconds = try c.decodeIfPresent(Double.self, forKey: .durationSeconds)
        bitRate = try c.decodeIfPresent(Int.self, forKey: .bitRate)
        brand = try c.decodeIfPresent(String.self, forKey: .brand)
        location = try c.decodeIfPresent(String.self, forKey: .location)
        telemetryGPSFixes = try c.decodeIfPresent(Int.self, forKey: .telemetryGPSFixes)
        telemetrySubtitleCues = try c.decodeIfPresent(Int.self, forKey: .telemetrySubtitleCues)
        tracks = try c.decode([TrackInfo].self, forKey: .tracks)
        chapters = try c.decodeIfPresent([ChapterInfo].self, forKey: .chapters) ?? []
        slowMotion = try c.decodeIfPresent(SlowMotionInfo.self, forKey: .slowMotion)
        warnings = try c.decodeIfPresent([String].self, forKey: .warnings) ?? []
    }

    /// Encodes the JSON form documented on the type.

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(demuxer, forKey: .demuxer)
        try c.encodeIfPresent(durationSeconds, forKey: .durationSeconds)
        try c.encodeIfPresent(bitRate, forKey: .bitRate)
        try c.encodeIfPresent(brand, forKey: .brand)
        try c.encodeIfPresent(location, forKey: .location)
        try c.encodeIfPresent(telemetryGPSFixes, forKey: .telemetryGPSFixes)
        try c.encodeIfPresent(telemetrySubtitleCues, forKey: .telemetrySubtitleCues)
        try c.encode(tracks, forKey: .tracks)
        if !chapters.isEmpty { try c.encode(chapters, forKey: .chapters) }
        try c.encodeIfPresent(slowMotion, forKey: .slowMotion)
        if !warnings.isEmpty { try c.encode(warnings, forKey: .warnings) }
    }
}
