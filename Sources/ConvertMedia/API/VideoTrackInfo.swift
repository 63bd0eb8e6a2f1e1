import ConvertCore

/// The video part of a ``TrackInfo``.
///
/// JSON object:
/// ```
/// {
///   "width": 720, "height": 1280,          // picture size as displayed (after rotation)
///   "rotation": 90,                        // clockwise degrees to turn the stored picture upright: 0 90 180 270
///   "mirrored": false,                     // the display matrix also flips the picture
///   "frameRate": 29.97,                    // average frames per second; optional
///   "pixelFormat": "yuv420p10le",          // FFmpeg's name; optional (absent when undecodable)
///   "bitDepth": 10,                        // bits per sample; optional
///   "colour": ColorDescription,
///   "dynamicRange": DynamicRange,
///   "masteringDisplay": MasteringDisplay,  // optional
///   "contentLight": ContentLightLevel,     // optional
///   "stereoscopic": true,                  // spatial (3D, MV-HEVC) video only
///   "interlaced": "top-first"              // interlaced video only: "top-first" or "bottom-first"
/// }
/// ```
public struct VideoTrackInfo: Sendable, Codable, Hashable {
    /// Width in pixels as displayed, after ``rotation`` (the coded height when it turns the
    /// picture a quarter).
    public var width: Int
    /// Height in pixels as displayed, after ``rotation``.
    public var height: Int
    /// How far the stored picture is turned to show it upright, in degrees clockwise (0, 90, 180
    /// or 270), from the display matrix; ``width`` and ``height`` are after it. The same
    /// convention as ``ImageInfo/containerRotation`` for photos.
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
    /// For interlaced video (fields, not frames), which field is shown first; absent for
    /// progressive video and when the file does not say.
    public var interlaced: FieldOrder?

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

    enum CodingKeys: String, CodingKey {
        case width, height, rotation, mirrored, frameRate, pixelFormat, bitDepth, dynamicRange
        case masteringDisplay, contentLight, stereoscopic, interlaced
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
