/// A place in a file that can record where it was made. One vocabulary for the probe, `info`,
/// `strip-location`'s notes and errors, and `--json` (where the raw value is the stable id).
public enum LocationSource: String, Sendable, Codable, Hashable, CaseIterable {
    /// The EXIF GPS directory.
    case exif
    /// XMP location properties (`exif:GPS*`, `photoshop:City`, ...).
    case xmp
    /// IPTC-IIM City, Sub-location, Province/State or Country.
    case iptc
    /// The EXIF thumbnail directory's own GPS.
    case exifThumbnail = "exif-thumbnail"
    /// A HEIF thumbnail image's own metadata.
    case thumbnail
    /// Another top-level image of a HEIF file.
    case otherImage = "other-image"
    /// The MP4 inside a motion photo.
    case motionVideo = "motion-video"
    /// An MP4/MOV `©xyz` or `com.apple.quicktime.location.ISO6709` tag, or a container's
    /// `location` metadata.
    case container
    /// Samsung's `MCC_Data` trailer entry: the mobile country code of the network the phone was
    /// on, so the country the photo was taken in.
    case samsungCountry = "samsung-mcc"
    /// Sony Ericsson's XMP `cell:` namespace: the mobile country, area and cell tower codes.
    case xmpCell = "xmp-cell"
    /// XMP Darwin Core location terms (`dwc:decimalLatitude`, `dwc:locality`, ...).
    case darwinCore = "darwin-core"
    /// The GPS record of a FLIR thermal camera's APP1 `FLIR` segments (its FFF data).
    case flir
    /// GPS fixes in a GoPro GPMF telemetry track (`gpmd`): `GPS5`/`GPS9` streams, or a
    /// Karma drone's `GPRI`/`GLPI`.
    case gpmfTelemetry = "gpmf-telemetry"
    /// A text subtitle track whose cues are a drone's telemetry (DJI's per-frame SRT:
    /// `[latitude: …] [longitude: …]`, `GPS(…)`).
    case djiTelemetry = "dji-telemetry"
    /// A telemetry track offconvert cannot read (DJI's `djmd`/`dbgi`, Sony's `rtmd`, the
    /// camera-motion `camm` of 360° cameras): the cameras that write them log their position
    /// there, so such a track counts as a location until it can be read, and is never said to
    /// hold none.
    case unreadTelemetry = "unread-telemetry"

    /// The place in words, for notes and messages: "EXIF GPS", "another image in the file".
    public var words: String {
        switch self {
        case .exif: "EXIF GPS"
        case .xmp: "XMP"
        case .iptc: "IPTC"
        case .exifThumbnail: "EXIF thumbnail"
        case .thumbnail: "thumbnail image"
        case .otherImage: "another image in the file"
        case .motionVideo: "the embedded motion video"
        case .container: "container tag"
        case .samsungCountry: "Samsung's mobile country code (MCC_Data)"
        case .xmpCell: "XMP cell tower codes"
        case .darwinCore: "XMP Darwin Core location"
        case .flir: "FLIR thermal GPS record"
        case .gpmfTelemetry: "GoPro telemetry"
        case .djiTelemetry: "DJI telemetry subtitles"
        case .unreadTelemetry: "telemetry offconvert cannot read"
        }
    }
}

extension [LocationSource] {
    /// The places in words, in order: "EXIF GPS, XMP".
    public var words: String { map(\.words).joined(separator: ", ") }
}
