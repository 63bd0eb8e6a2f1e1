/// What a still image contains: size, depth, colour, orientation, metadata and where (if
/// anywhere) it records the place it was taken.
public struct ImageInfo: Sendable, Codable, Hashable {
    /// An animation's length.
    public struct Animation: Sendable, Codable, Hashable {
        /// The number of frames.
        public var frames: Int
        /// One pass through every frame, in seconds.
        public var duration: Double

        init(_ summary: AnimationSummary) {
            frames = summary.frames
            duration = Double(summary.milliseconds) / 1000
        }
    }

    /// The colour description of an image.
    public struct Color: Sendable, Codable, Hashable {
        /// The colour model the samples are stored in when it is not RGB or YCbCr: "CMYK" or
        /// "YCCK" (a print-shop or Photoshop JPEG, a CMYK Photoshop document); for a TGA, Netpbm,
        /// Photoshop or JPEG 2000 picture also "grey", "black and white", "indexed" or
        /// "duotone"; nil otherwise.
        public var model: String? = nil
        /// The embedded ICC profile's description ("Display P3"), when there is a readable one.
        public var iccDescription: String?
        /// Size of the embedded ICC profile in bytes, when there is one.
        public var iccBytes: Int?
        /// The nclx code points of a HEIF/AVIF image, when it has them.
        public var nclx: NCLX?
    }

    /// Detected format (by content).
    public var format: PhotoFormat
    /// Width as displayed (after rotation).
    public var width: Int
    /// Height as displayed (after rotation).
    public var height: Int
    /// Bits per channel of the source as stored (1, 2, 4, 8, 10, 12, 16; a palette's index depth).
    public var bitDepth: Int
    /// Whether the image has an alpha channel.
    public var hasAlpha: Bool
    /// EXIF Orientation (1...8), when the EXIF records one.
    public var exifOrientation: Int?
    /// Whether the HEIF container rotates the coded image by 90° or 270° (irot); libheif and
    /// offconvert apply it, and EXIF Orientation is then informational only.
    public var containerRotates: Bool?
    /// How far a HEIF container's `irot` turns the stored primary image to show it upright, in
    /// degrees clockwise (90, 180, 270); nil when it has none. ``width`` and ``height`` are after
    /// it, as displayed. The same convention as a video track's `rotation` (ConvertMedia's
    /// `VideoTrackInfo`); `irot` itself counts anticlockwise quarter turns (an `irot` of 1 is 270).
    public var containerRotation: Int?
    /// Whether a HEIF container's `imir` mirrors the primary image: "top-to-bottom" or
    /// "left-to-right"; nil when it has none.
    public var containerMirror: String?
    /// Colour profile.
    public var color: Color
    /// Whether EXIF metadata is present.
    public var hasEXIF: Bool
    /// Whether an XMP packet is present.
    public var hasXMP: Bool
    /// Whether a location is recorded anywhere.
    public var hasLocation: Bool
    /// Where the location is recorded.
    public var locationSources: [LocationSource]
    /// True when the EXIF has a GPS block that records no position (GPSStatus V, time or speed
    /// only): not a location, yet worth saying; nil otherwise.
    public var gpsWithoutPosition: Bool?
    /// Camera maker, model and capture time from EXIF.
    public var make: String?
    /// Camera model from EXIF.
    public var model: String?
    /// DateTimeOriginal from EXIF (`YYYY:MM:DD HH:MM:SS`).
    public var dateTimeOriginal: String?
    /// Number of top-level images (1 except for bursts, stereo pairs, ...).
    public var imageCount: Int
    /// Auxiliary images of the primary image: "depth" and the URNs of others (HDR gain maps, ...).
    public var auxiliaryImages: [String]
    /// Number of thumbnail images (HEIF thumbnail items, or 1 for an EXIF IFD1 thumbnail).
    public var thumbnailCount: Int
    /// The frames of an animated GIF, PNG or WebP; nil for a still image.
    public var animation: Animation? = nil
    /// The HDR gain map the photo carries, when offconvert can read its parameters.
    public var gainMap: GainMap? = nil
    /// Why a gain-map auxiliary image the photo has is ignored (nothing states its parameters:
    /// an ISO 21496-1 map without a `tmap` item, Samsung's without `hdrgm:` values, Apple's
    /// without the MakerNote headroom); nil when there is none or it is read (``gainMap``).
    public var ignoredGainMap: String? = nil
    /// What the other pictures of a multi-picture JPEG (MPO) are: "stereo" for a stereo pair's
    /// other eye, "multi-angle" for views of one scene; nil for every other file.
    public var multiPicture: String? = nil
    /// Damage a conversion works around, as its note says it (a PNG whose file ends early: what
    /// is missing); nil when the file reads whole or was not read that far (only `info` reads a
    /// PNG's rows).
    public var damage: String? = nil

    /// An HDR gain map: whose description of it was read, and how far above SDR white it goes.
    public struct GainMap: Sendable, Codable, Hashable {
        /// "Apple" (MakerNote), "ISO 21496-1" (a `tmap` item or APP2 record) or "Ultra HDR" (`hdrgm:` XMP).
        public var origin: String
        /// The HDR headroom in stops: log2 of the brightest HDR white over SDR white.
        public var headroomStops: Double
        /// Whether the map brightens anything (a flat one, as some Pixel files carry, is not kept).
        public var brightens = true
    }
}
