import ConvertCore
/// What ``MediaProbe/probe(path:)`` found out about one file.
///
/// ## JSON (`offconvert info --json`, one object per line)
/// ```
/// {
///   "path": "clip.mov",              // as given
///   "format": "mov",                 // short id: mp4 mov m4a 3gp matroska webm avi mpegts ...,
///                                    // or for images jpeg png webp gif heic heif avif
///   "formatName": "QuickTime movie", // readable name
///   "byteCount": 64565,              // file size in bytes
///   "location": {                    // LocationPresence: always there
///     "present": true,
///     "sources": ["container"]       // exif xmp exif-thumbnail thumbnail other-image container
///   },
///   "container": { ... },            // ContainerInfo; absent for still images
///   "image": { ... },                // ImageInfo; still images only
///   "imageError": {"category": "input", "key": "input.truncated", "message": "..."}
///                                    // why the image part could not be read; absent normally
///   "motionPhoto": { ... }           // MotionPhotoInfo: the video inside a motion photo
///   "livePhoto": {"contentIdentifier": "...", "pairedWith": "IMG_0001.MOV"}  // LivePhotoInfo
/// }
/// ```
/// Field names are stable; new optional fields may be added. Absent optional values are omitted,
/// never `null`. For a still image (detected by its magic bytes: JPEG, PNG, WebP, GIF, or an ISO
/// file whose `ftyp` brand is heic/heix/heim/heis/mif1/msf1/avif/avis) the container part is
/// absent and `image` describes the picture (see ``ImageInfo``: `format`, `width`, `height`,
/// `bitDepth`, `hasAlpha`, `exifOrientation`, `containerRotates`, `animation` {`frames`, `duration`}, `color` {`model`, `iccDescription`,
/// `iccBytes`, `nclx` {`primaries`, `transfer`, `matrix`, `fullRange`}}, `hasEXIF`, `hasXMP`,
/// `hasLocation`, `locationSources`, `make`, `model`, `dateTimeOriginal`, `imageCount`,
/// `auxiliaryImages`, `thumbnailCount`). An image whose details cannot be decoded still gets
/// format and size, with `imageError` saying why: the error the photo reader threw, as the
/// `error` object of a `--json` `failed` line (`category`, `key`, `message`).
public struct MediaInfo: Sendable, Codable, Hashable {
    /// The path as given to the probe.
    public var path: String
    /// A short format id: `mp4`, `mov`, `m4a`, `3gp`, `matroska`, `webm`, `avi`, `mpegts`, another
    /// FFmpeg demuxer name, or `jpeg`, `png`, `webp`, `gif`, `heic`, `heif`, `avif` for images.
    public var format: String
    /// A readable name of the format, e.g. `QuickTime movie`.
    public var formatName: String
    /// The file size in bytes.
    public var byteCount: Int
    /// The container and its tracks; nil for still images.
    public var container: ContainerInfo?
    /// The picture's details; for still images only, nil when they could not be read.
    public var image: ImageInfo?
    /// Why the picture's details could not be read, for a still image without ``image``: the
    /// error the photo reader threw (``ConvertError/code`` says what, as for any other failure).
    public var imageError: ConvertError?
    /// Whether and where the file records the place it was made.
    public var location: LocationPresence
    /// The video inside a motion photo; nil for everything else.
    public var motionPhoto: MotionPhotoInfo?
    /// The Live Photo side of a photo or MOV carrying a content identifier (set by `info`).
    public var livePhoto: LivePhotoInfo?

    /// Creates a description; ``location`` is derived from `container` and `image`.
    public init(
        path: String, format: String, formatName: String, byteCount: Int, container: ContainerInfo? = nil,
        image: ImageInfo? = nil, imageError: ConvertError? = nil, motionPhoto: MotionPhotoInfo? = nil
    ) {
        self.path = path
        self.format = format
        self.formatName = formatName
        self.byteCount = byteCount
        self.container = container
        self.image = image
        self.imageError = imageError
        var sources = image?.locationSources ?? []
        if container?.location != nil { sources.append(.container) }
        if motionPhoto?.video?.location != nil { sources.append(.motionVideo) }
        self.motionPhoto = motionPhoto
        location = LocationPresence(sources: sources)
    }

    /// Whether the file is a still image (by its content, whatever its name).
    public var isImage: Bool { MediaSniffer.imageFormats.contains(format) }

    enum CodingKeys: String, CodingKey {
        case path, format, formatName, byteCount, container, image, imageError, location, motionPhoto, livePhoto
    }

    /// ``imageError`` in JSON: the parts scripts branch on, as a `--json` `failed` line gives them
    /// (decoded, the error names ``path`` and has no ``ConvertError/underlyingDescription``).
    private struct CodedError: Codable {
        var category: String
        var key: String
        var message: String
    }

    /// Decodes the JSON form documented on the type.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let path = try c.decode(String.self, forKey: .path)
        self.path = path
        format = try c.decode(String.self, forKey: .format)
        formatName = try c.decode(String.self, forKey: .formatName)
        byteCount = try c.decode(Int.self, forKey: .byteCount)
        container = try c.decodeIfPresent(ContainerInfo.self, forKey: .container)
        image = try c.decodeIfPresent(ImageInfo.self, forKey: .image)
        imageError = try c.decodeIfPresent(CodedError.self, forKey: .imageError).map { coded in
            ConvertError(code: ConvertError.Code(coded.key, category: ConvertError.Category(coded.category)),
                         message: coded.message, path: path)
        }
        location = try c.decode(LocationPresence.self, forKey: .location)
        motionPhoto = try c.decodeIfPresent(MotionPhotoInfo.self, forKey: .motionPhoto)
        livePhoto = try c.decodeIfPresent(LivePhotoInfo.self, forKey: .livePhoto)
    }

    /// Encodes the JSON form documented on the type.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(path, forKey: .path)
        try c.encode(format, forKey: .format)
        try c.encode(formatName, forKey: .formatName)
        try c.encode(byteCount, forKey: .byteCount)
        try c.encodeIfPresent(container, forKey: .container)
        try c.encodeIfPresent(image, forKey: .image)
        try c.encodeIfPresent(
            imageError.map { CodedError(category: $0.category.identifier, key: $0.key, message: $0.message) },
            forKey: .imageError)
        try c.encode(location, forKey: .location)
        try c.encodeIfPresent(motionPhoto, forKey: .motionPhoto)
        try c.encodeIfPresent(livePhoto, forKey: .livePhoto)
    }
}

/// Whether a file records where it was made, and in which places.
///
/// JSON object: `{"present": true, "sources": ["exif", "xmp"]}`, the sources as
/// ``LocationSource``'s stable ids.
public struct LocationPresence: Sendable, Codable, Hashable {
    /// Whether any location is recorded.
    public var present: Bool
    /// Where.
    public var sources: [LocationSource]
    /// True when the file could not be read whole (a damaged picture): ``sources`` lists what
    /// could be found, and there may be more, so an empty list does not mean no location.
    /// Absent (nil) for a file read whole.
    public var incomplete: Bool?

    /// A presence built from its sources (present when there is at least one).
    public init(sources: [LocationSource]) {
        self.sources = sources
        present = !sources.isEmpty
    }
}

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
///   "tracks": [ TrackInfo, ... ],
///   "chapters": [ ChapterInfo, ... ],      // absent when the clip has none
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
    /// The tracks, in the container's order.
    public var tracks: [TrackInfo]
    /// The chapters, in order; empty when the clip has none.
    public var chapters: [ChapterInfo] = []
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

    /// The video tracks.
    public var videoTracks: [TrackInfo] { tracks.filter { $0.kind == .video } }

    enum CodingKeys: String, CodingKey {
        case demuxer, durationSeconds, bitRate, brand, location, tracks, chapters, warnings
    }

    /// Decodes the JSON form documented on the type.

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        demuxer = try c.decode(String.self, forKey: .demuxer)
        durationSeconds = try c.decodeIfPresent(Double.self, forKey: .durationSeconds)
        bitRate = try c.decodeIfPresent(Int.self, forKey: .bitRate)
        brand = try c.decodeIfPresent(String.self, forKey: .brand)
        location = try c.decodeIfPresent(String.self, forKey: .location)
        tracks = try c.decode([TrackInfo].self, forKey: .tracks)
        chapters = try c.decodeIfPresent([ChapterInfo].self, forKey: .chapters) ?? []
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
        try c.encode(tracks, forKey: .tracks)
        if !chapters.isEmpty { try c.encode(chapters, forKey: .chapters) }
        if !warnings.isEmpty { try c.encode(warnings, forKey: .warnings) }
    }
}

/// What a track carries. An open set; JSON: the ``name`` string.
public struct TrackKind: Hashable, Sendable, Codable, CustomStringConvertible {
    /// The stable name: `video`, `audio`, `subtitle`, `data`, `attachment` or `unknown`.
    public let name: String
    /// Creates a kind from its name.
    public init(_ name: String) { self.name = name }

    /// Pictures.
    public static let video = TrackKind("video")
    /// Sound.
    public static let audio = TrackKind("audio")
    /// Subtitles or captions.
    public static let subtitle = TrackKind("subtitle")
    /// Timed metadata, timecode and other data (`mebx`, `tmcd`, `mett`, ...).
    public static let data = TrackKind("data")
    /// An attached file (Matroska fonts, cover art).
    public static let attachment = TrackKind("attachment")
    /// Anything else.
    public static let unknown = TrackKind("unknown")

    /// The stable short name, as written in JSON.

    public var description: String { name }

    /// Decodes the JSON form documented on the type.

    public init(from decoder: any Decoder) throws {
        self.init(try decoder.singleValueContainer().decode(String.self))
    }

    /// Encodes the JSON form documented on the type.

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(name)
    }
}

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

/// The video part of a ``TrackInfo``.
///
/// JSON object:
/// ```
/// {
///   "width": 1280, "height": 720,          // coded picture size
///   "rotation": 90,                        // clockwise degrees to turn for display: 0 90 180 270
///   "mirrored": false,                     // the display matrix also flips the picture
///   "frameRate": 29.97,                    // average frames per second; optional
///   "pixelFormat": "yuv420p10le",          // FFmpeg's name; optional (absent when undecodable)
///   "bitDepth": 10,                        // bits per sample; optional
///   "colour": ColorDescription,
///   "dynamicRange": DynamicRange,
///   "masteringDisplay": MasteringDisplay,  // optional
///   "contentLight": ContentLightLevel,     // optional
///   "stereoscopic": true                   // spatial (3D, MV-HEVC) video only
/// }
/// ```
public struct VideoTrackInfo: Sendable, Codable, Hashable {
    /// Coded width in pixels.
    public var width: Int
    /// Coded height in pixels.
    public var height: Int
    /// Clockwise rotation in degrees (0, 90, 180 or 270) a player applies for display, from the
    /// display matrix.
    public var rotation: Int
    /// Whether the display matrix also mirrors the picture.
    public var mirrored: Bool
    /// Average frame rate, when known.
    public var frameRate: Double?
    /// FFmpeg's pixel format name, when known.
    public var pixelFormat: String?
    /// Bits per sample of the pixel format, when known.
    public var bitDepth: Int?
    /// The colour description.
    public var color: ColorDescription
    /// The dynamic-range class; see ``DynamicRange``.
    public var dynamicRange: DynamicRange
    /// Mastering display colour volume, when the file gives one.
    public var masteringDisplay: MasteringDisplay?
    /// Content light level, when the file gives one.
    public var contentLight: ContentLightLevel?
    /// `true` for a spatial (3D, MV-HEVC) video with a second view; absent otherwise.
    public var stereoscopic: Bool?

    /// Creates a video description.
    public init(
        width: Int, height: Int, rotation: Int = 0, mirrored: Bool = false, frameRate: Double? = nil,
        pixelFormat: String? = nil, bitDepth: Int? = nil, color: ColorDescription = ColorDescription(),
        dynamicRange: DynamicRange = .sdr, masteringDisplay: MasteringDisplay? = nil,
        contentLight: ContentLightLevel? = nil
    ) {
        self.width = width
        self.height = height
        self.rotation = rotation
        self.mirrored = mirrored
        self.frameRate = frameRate
        self.pixelFormat = pixelFormat
        self.bitDepth = bitDepth
        self.color = color
        self.dynamicRange = dynamicRange
        self.masteringDisplay = masteringDisplay
        self.contentLight = contentLight
    }

    /// Width and height as displayed, after ``rotation``.
    public var displaySize: (width: Int, height: Int) {
        rotation % 180 == 0 ? (width, height) : (height, width)
    }

    enum CodingKeys: String, CodingKey {
        case width, height, rotation, mirrored, frameRate, pixelFormat, bitDepth, dynamicRange
        case masteringDisplay, contentLight, stereoscopic
        /// The JSON key stays `colour`, as `info --json` has always written it: scripts read it.
        case color = "colour"
    }
}

extension VideoTrackInfo {
    /// Bytes one decoded pixel takes in memory, from ``bitDepth`` (FFmpeg's descriptor, not the
    /// format's name: `nv12` is 8-bit): 8-bit 4:2:0's 1.5 rounded up to 2, and 3 when samples
    /// take two bytes each.
    package var decodedBytesPerPixel: Int { (bitDepth ?? 8) > 8 ? 3 : 2 }
}

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
