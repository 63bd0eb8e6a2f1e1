/// What to do with a photo's colours.
public enum ColorPolicy: String, Sendable, Codable, CaseIterable {
    /// Keep the pixels in the source's colour space and embed its ICC profile (or one matching
    /// its nclx description).
    case keep
    /// Convert the pixels to sRGB with lcms2 and embed an sRGB profile.
    case sRGB = "srgb"
}

/// One photo conversion: which file, to what, and with which metadata, colour and naming rules.
public struct PhotoRequest: Sendable {
    /// The photo to read (format detected from its content).
    public var inputPath: String
    /// The output format (not `.gif`).
    public var format: PhotoFormat
    /// Encoder quality, 1...100 (JPEG, lossy WebP, HEIC, AVIF).
    public var quality: Int
    /// Lossless WebP instead of lossy.
    public var lossless: Bool
    /// Folder for the output; nil: next to the input. Ignored when ``outputPath`` is set.
    public var outputDirectory: String?
    /// An explicit output file; with several images it gets `-1`, `-2`, ... before the extension.
    public var outputPath: String?
    /// ``outputPath`` is a name chosen for the user (by the caller's batch naming), not one
    /// the user typed: if another process takes it before the output is committed, the output
    /// is numbered around it (`photo (2).jpg`) instead of failing with `output.exists`.
    public var outputMayBeRenumbered = false
    /// What happens to EXIF and XMP.
    public var metadata: MetadataPolicy
    /// What happens to colours.
    public var color: ColorPolicy
    /// Colour that transparency is flattened onto when the output has no alpha.
    public var background: RGBColor
    /// Every top-level image of a multi-image HEIF, not just the primary one.
    public var allImages: Bool
    /// Replace an existing output instead of choosing `name (2).ext`. The input is never replaced.
    public var overwrite: Bool
    /// Shrink so the long edge is at most this many pixels (never enlarged). Not together with
    /// ``resize``.
    public var maxLongEdge: Int?
    /// Crop, scale or pad the upright picture to a box (see ``PhotoResize``). Not together with
    /// ``maxLongEdge``; the box may hold at most ``maxPixels`` pixels.
    public var resize: PhotoResize?
    /// Bits per channel of a HEIC or AVIF output; nil: 10 for HEIC from a source deeper than
    /// 8 bits, else 8 (see ``PhotoBitDepth``). Ignored by the other formats.
    public var bitDepth: PhotoBitDepth?
    /// libheif decoding threads for this photo; nil: one per core.
    public var decodingThreads: Int?
    /// Largest acceptable output file in bytes (JPEG and WebP): the highest quality that fits is
    /// chosen, then the resolution is lowered if no quality fits. Overrides ``quality``.
    public var targetByteCount: Int64?
    /// The most pixels an input image may declare; larger ones are refused with
    /// `input.too-many-pixels` before anything is decoded (see ``PixelLimit``).
    public var maxPixels: Int
    /// What happens to an HDR gain map (default: kept where the output can carry one).
    public var hdr: HDRPolicy = .keep
    /// Refuse a damaged input (`input.truncated`) instead of converting what decodes. By default
    /// a photo cut short or with corrupt data is converted as viewers show it, and the result's
    /// notes say what is wrong: the user's picture is what must not be lost.
    public var strict = false
    /// The frame of an animated GIF or WebP to write as a still, counting from 1; nil: the
    /// first, with a note, or, for a WebP output, the whole animation.
    public var frame: Int?
    /// The input as a batch's cost estimate already read it (format and HEIF item model), so the
    /// conversion does not parse it again; nil: the conversion reads it. Ignored when its path
    /// is not ``inputPath``.
    package var probed: PhotoInput?
    /// What the output passes through as it is moved into place (the CLI's free tier charges
    /// there); nil for library callers, whose conversions are never charged.
    package var placementGate: (any PlacementGate)?

    /// Creates a request with share-safe defaults: the format's ``PhotoFormat/defaultQuality``
    /// (85; 55 for HEIC), location removed, colours kept,
    /// white background, primary image only, no overwriting.
    public init(
        inputPath: String, format: PhotoFormat, quality: Int? = nil, lossless: Bool = false,
        outputDirectory: String? = nil, outputPath: String? = nil, metadata: MetadataPolicy = .shareSafe,
        color: ColorPolicy = .keep, background: RGBColor = .white, allImages: Bool = false, overwrite: Bool = false,
        maxLongEdge: Int? = nil, decodingThreads: Int? = nil, targetByteCount: Int64? = nil,
        maxPixels: Int = PixelLimit.defaultMaxPixels, resize: PhotoResize? = nil
    ) {
        self.inputPath = inputPath
        self.format = format
        self.quality = quality ?? format.defaultQuality
        self.lossless = lossless
        self.outputDirectory = outputDirectory
        self.outputPath = outputPath
        self.metadata = metadata
        self.color = color
        self.background = background
        self.allImages = allImages
        self.overwrite = overwrite
        self.maxLongEdge = maxLongEdge
        self.decodingThreads = decodingThreads
        self.targetByteCount = targetByteCount
        self.maxPixels = maxPixels
        self.resize = resize
    }
}
