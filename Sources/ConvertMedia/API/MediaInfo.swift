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
        if (container?.telemetryGPSFixes ?? 0) > 0 { sources.append(.gpmfTelemetry) }
        if (container?.telemetrySubtitleCues ?? 0) > 0 { sources.append(.djiTelemetry) }
        if container?.unreadTelemetryTracks.isEmpty == false { sources.append(.unreadTelemetry) }
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
            ConvertError(
                code: ConvertError.Code(coded.key, category: ConvertError.Category(coded.category)),
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
