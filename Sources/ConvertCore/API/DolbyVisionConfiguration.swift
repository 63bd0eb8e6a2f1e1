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
