/// A Dolby Vision decoder configuration record (ETSI / Dolby "Dolby Vision Streams within the ISO
/// Base Media File Format": the payload of a `dvcC`, `dvvC` or `dvwC` box, FFmpeg's
/// `AVDOVIDecoderConfigurationRecord`).
///
/// JSON object: `versionMajor`, `versionMinor`, `profile`, `level`, `rpuPresent`,
/// `enhancementLayerPresent`, `baseLayerPresent`, `baseLayerCompatibilityID` (integers/booleans
/// as in the record), `baseLayerCompatibility` (`"none"`, `"hdr10"`, `"sdr"`, `"hlg"`,
/// `"hdr10-bluray"` or `"id-N"`), `name` (e.g. `"8.4"`), `configurationBox` (`"dvcC"`, `"dvvC"`,
/// `"dvwC"`, absent when the record came from FFmpeg for a non-MP4 container).
public struct DolbyVisionConfiguration: Hashable, Sendable, Codable {
    /// `dv_version_major`.
    public var versionMajor: Int
    /// `dv_version_minor`.
    public var versionMinor: Int
    /// `dv_profile`: 5 (single layer, IPT-PQ-c2, no compatible base), 7 (dual layer), 8 (single
    /// layer over an HDR10/SDR/HLG base), 9 (AVC over SDR), 10 (AV1), ...
    public var profile: Int
    /// `dv_level`: the maximum resolution and frame rate class.
    public var level: Int
    /// `rpu_present_flag`: the stream carries Dolby Vision reference processing (RPU) metadata.
    public var rpuPresent: Bool
    /// `el_present_flag`: an enhancement layer is present.
    public var enhancementLayerPresent: Bool
    /// `bl_present_flag`: a base layer is present.
    public var baseLayerPresent: Bool
    /// `dv_bl_signal_compatibility_id`: what a non-Dolby-Vision player sees in the base layer.
    public var baseLayerCompatibilityID: Int
    /// The box the record was read from (`dvcC`, `dvvC`, `dvwC`), when it came from our MP4 reader.
    public var configurationBox: String?

    /// Creates a configuration record.
    public init(
        versionMajor: Int = 1, versionMinor: Int = 0, profile: Int, level: Int, rpuPresent: Bool,
        enhancementLayerPresent: Bool, baseLayerPresent: Bool, baseLayerCompatibilityID: Int,
        configurationBox: String? = nil
    ) {
        self.versionMajor = versionMajor
        self.versionMinor = versionMinor
        self.profile = profile
        self.level = level
        self.rpuPresent = rpuPresent
        self.enhancementLayerPresent = enhancementLayerPresent
        self.baseLayerPresent = baseLayerPresent
        self.baseLayerCompatibilityID = baseLayerCompatibilityID
        self.configurationBox = configurationBox
    }

    /// What the base layer is to a player without Dolby Vision.
    public var baseLayerCompatibility: DolbyVisionCompatibility {
        DolbyVisionCompatibility(id: baseLayerCompatibilityID)
    }

    /// The profile as Dolby names it: profile and compatibility id for the profiles whose base
    /// layer matters (8, 9, 10: `"8.4"`, `"8.1"`, `"10.0"`), the profile alone otherwise (`"5"`, `"7"`).
    public var name: String {
        [8, 9, 10].contains(profile) ? "\(profile).\(baseLayerCompatibilityID)" : "\(profile)"
    }

    /// Whether the same fields were found (ignoring which box they came from).
    public func sameRecord(as other: DolbyVisionConfiguration) -> Bool {
        var mine = self
        mine.configurationBox = other.configurationBox
        return mine == other
    }

    /// Layers present, e.g. `RPU+BL`.
    package var layerSummary: String {
        [rpuPresent ? "RPU" : nil, enhancementLayerPresent ? "EL" : nil, baseLayerPresent ? "BL" : nil]
            .compactMap { $0 }.joined(separator: "+")
    }

    enum CodingKeys: String, CodingKey {
        case versionMajor, versionMinor, profile, level, rpuPresent, enhancementLayerPresent, baseLayerPresent
        case baseLayerCompatibilityID, baseLayerCompatibility, name, configurationBox
    }

    /// Decodes the JSON form documented on the type.

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            versionMajor: try c.decode(Int.self, forKey: .versionMajor),
            versionMinor: try c.decode(Int.self, forKey: .versionMinor),
            profile: try c.decode(Int.self, forKey: .profile), level: try c.decode(Int.self, forKey: .level),
            rpuPresent: try c.decode(Bool.self, forKey: .rpuPresent),
            enhancementLayerPresent: try c.decode(Bool.self, forKey: .enhancementLayerPresent),
            baseLayerPresent: try c.decode(Bool.self, forKey: .baseLayerPresent),
            baseLayerCompatibilityID: try c.decode(Int.self, forKey: .baseLayerCompatibilityID),
            configurationBox: try c.decodeIfPresent(String.self, forKey: .configurationBox))
    }

    /// Encodes the JSON form documented on the type.

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(versionMajor, forKey: .versionMajor)
        try c.encode(versionMinor, forKey: .versionMinor)
        try c.encode(profile, forKey: .profile)
        try c.encode(level, forKey: .level)
        try c.encode(rpuPresent, forKey: .rpuPresent)
        try c.encode(enhancementLayerPresent, forKey: .enhancementLayerPresent)
        try c.encode(baseLayerPresent, forKey: .baseLayerPresent)
        try c.encode(baseLayerCompatibilityID, forKey: .baseLayerCompatibilityID)
        try c.encode(baseLayerCompatibility.name, forKey: .baseLayerCompatibility)
        try c.encode(name, forKey: .name)
        try c.encodeIfPresent(configurationBox, forKey: .configurationBox)
    }
}

/// What a Dolby Vision base layer looks like to a player without Dolby Vision
/// (`dv_bl_signal_compatibility_id`). An open set.
public struct DolbyVisionCompatibility: Hashable, Sendable, CustomStringConvertible {
    /// The compatibility id.
    public let id: Int
    /// Creates a compatibility from its id.
    public init(id: Int) { self.id = id }

    /// 0: no compatible base layer (profile 5's IPT-PQ-c2); needs a Dolby Vision decoder.
    public static let none = DolbyVisionCompatibility(id: 0)
    /// 1: HDR10 (BT.2020, PQ).
    public static let hdr10 = DolbyVisionCompatibility(id: 1)
    /// 2: SDR (BT.709).
    public static let sdr = DolbyVisionCompatibility(id: 2)
    /// 4: HLG (BT.2100 HLG).
    public static let hlg = DolbyVisionCompatibility(id: 4)
    /// 6: Ultra HD Blu-ray HDR10 (BT.2020, PQ).
    public static let hdr10BluRay = DolbyVisionCompatibility(id: 6)

    /// The stable name used in JSON: `none`, `hdr10`, `sdr`, `hlg`, `hdr10-bluray` or `id-N`.
    public var name: String {
        switch id {
        case 0: "none"
        case 1: "hdr10"
        case 2: "sdr"
        case 4: "hlg"
        case 6: "hdr10-bluray"
        default: "id-\(id)"
        }
    }

    /// A readable phrase, e.g. `HLG-compatible base` or `no compatible base`.
    public var displayName: String {
        switch id {
        case 0: "no compatible base"
        case 1: "HDR10-compatible base"
        case 2: "SDR-compatible base"
        case 4: "HLG-compatible base"
        case 6: "HDR10 (Blu-ray)-compatible base"
        default: "base compatibility id \(id)"
        }
    }

    /// Same as ``displayName``.

    public var description: String { displayName }
}

/// A chromaticity coordinate in CIE 1931 xy.
///
/// JSON object: `x`, `y` (numbers).
public struct Chromaticity: Hashable, Sendable, Codable {
    /// CIE x.
    public var x: Double
    /// CIE y.
    public var y: Double
    /// Creates a coordinate.
    public init(x: Double, y: Double) {
        self.x = x
        self.y = y
    }
}

/// SMPTE ST 2086 mastering display colour volume (MP4 `mdcv`, HEVC/AV1 metadata, FFmpeg's
/// `AVMasteringDisplayMetadata`).
///
/// JSON object: `red`, `green`, `blue`, `whitePoint` (``Chromaticity``, absent when the file gave
/// no primaries), `minLuminance`, `maxLuminance` (cd/m², absent when not given).
public struct MasteringDisplay: Hashable, Sendable, Codable {
    /// Red primary.
    public var red: Chromaticity?
    /// Green primary.
    public var green: Chromaticity?
    /// Blue primary.
    public var blue: Chromaticity?
    /// White point.
    public var whitePoint: Chromaticity?
    /// Minimum luminance of the mastering display, cd/m².
    public var minLuminance: Double?
    /// Maximum luminance of the mastering display, cd/m².
    public var maxLuminance: Double?

    /// Creates a mastering display description.
    public init(
        red: Chromaticity? = nil, green: Chromaticity? = nil, blue: Chromaticity? = nil,
        whitePoint: Chromaticity? = nil, minLuminance: Double? = nil, maxLuminance: Double? = nil
    ) {
        self.red = red
        self.green = green
        self.blue = blue
        self.whitePoint = whitePoint
        self.minLuminance = minLuminance
        self.maxLuminance = maxLuminance
    }

    /// Whether `other` describes the same display within rounding (FFmpeg keeps rationals, boxes
    /// keep integers in 0.00002 and 0.0001 cd/m² steps).
    package func approximatelyEqual(_ other: MasteringDisplay) -> Bool {
        func close(_ a: Double?, _ b: Double?, _ tolerance: Double) -> Bool {
            switch (a, b) {
            case (nil, nil): true
            case (let a?, let b?): abs(a - b) <= tolerance
            default: false
            }
        }
        let points = [(red, other.red), (green, other.green), (blue, other.blue), (whitePoint, other.whitePoint)]
        return points.allSatisfy { close($0.0?.x, $0.1?.x, 0.0001) && close($0.0?.y, $0.1?.y, 0.0001) }
            && close(minLuminance, other.minLuminance, 0.001) && close(maxLuminance, other.maxLuminance, 0.5)
    }
}

/// CTA-861.3 content light level (MP4 `clli`, FFmpeg's `AVContentLightMetadata`).
///
/// JSON object: `maxCLL`, `maxFALL` (integers, cd/m²).
public struct ContentLightLevel: Hashable, Sendable, Codable {
    /// Maximum content light level, cd/m².
    public var maxCLL: Int
    /// Maximum frame-average light level, cd/m².
    public var maxFALL: Int
    /// Creates a content light level.
    public init(maxCLL: Int, maxFALL: Int) {
        self.maxCLL = maxCLL
        self.maxFALL = maxFALL
    }
}
