import ConvertCore

/// The dynamic-range class of a video track: what a player must do with its pixels.
///
/// Decided by ``DynamicRange/classify(transfer:dolbyVision:)``: a Dolby Vision configuration
/// record with a base layer or RPU makes the track Dolby Vision (whatever its codec fourcc says);
/// otherwise the transfer function decides: PQ is HDR10, HLG is HLG, anything else (including an
/// unspecified transfer) is SDR.
///
/// JSON object: `class` (`"sdr"`, `"hdr10"`, `"hlg"`, `"dolbyVision"`), `summary` (readable, e.g.
/// `"Dolby Vision 8.4, HLG-compatible base"`), `needsToneMappingForSDR` (boolean), `sdrConversion`
/// (see ``SDRConversion``) and, for Dolby Vision only, `dolbyVision` (a ``DolbyVisionConfiguration``).
public enum DynamicRange: Hashable, Sendable, Codable, CustomStringConvertible {
    /// Standard dynamic range (BT.709, BT.601, sRGB or unspecified transfer).
    case sdr
    /// HDR10: the PQ (SMPTE ST 2084) transfer, usually BT.2020 primaries, without Dolby Vision.
    case hdr10
    /// Hybrid log-gamma (ARIB STD-B67) without Dolby Vision.
    case hlg
    /// Dolby Vision; the record says which profile and what the base layer is compatible with.
    case dolbyVision(DolbyVisionConfiguration)

    /// Classifies a track from its transfer function and its Dolby Vision record, if any.
    /// A record whose RPU and base layer flags are both clear describes nothing playable and is
    /// ignored.
    public static func classify(
        transfer: TransferCharacteristics, dolbyVision: DolbyVisionConfiguration?
    ) -> DynamicRange {
        if let dolbyVision, dolbyVision.rpuPresent || dolbyVision.baseLayerPresent {
            return .dolbyVision(dolbyVision)
        }
        switch transfer {
        case .pq: return .hdr10
        case .hlg: return .hlg
        default: return .sdr
        }
    }

    /// How a track of this class becomes SDR.
    public enum SDRConversion: String, Hashable, Sendable, Codable {
        /// Already SDR (including Dolby Vision over an SDR-compatible base): no tone mapping.
        case none
        /// Tone map from PQ (HDR10, or Dolby Vision over an HDR10-compatible base).
        case toneMapFromPQ
        /// Tone map from HLG (HLG, or Dolby Vision over an HLG-compatible base).
        case toneMapFromHLG
        /// The base layer is not viewable without Dolby Vision processing (profile 5, compatibility
        /// id 0, or an unknown id): a plain tone map would give green and purple pictures.
        case notPossible
    }

    /// How this track becomes SDR; see ``SDRConversion``.
    public var sdrConversion: SDRConversion {
        switch self {
        case .sdr: return .none
        case .hdr10: return .toneMapFromPQ
        case .hlg: return .toneMapFromHLG
        case .dolbyVision(let record):
            switch record.baseLayerCompatibility {
            case .sdr: return .none
            case .hdr10, .hdr10BluRay: return .toneMapFromPQ
            case .hlg: return .toneMapFromHLG
            default: return .notPossible
            }
        }
    }

    /// Whether making an SDR output from this track needs tone mapping (PQ or HLG pixels).
    /// False for SDR, for Dolby Vision over an SDR base, and for Dolby Vision with no compatible
    /// base (check ``hasNoCompatibleBaseLayer`` for that).
    public var needsToneMappingForSDR: Bool {
        sdrConversion == .toneMapFromPQ || sdrConversion == .toneMapFromHLG
    }

    /// Whether this is Dolby Vision whose base layer no ordinary decoder can show correctly
    /// (profile 5 and other compatibility id 0 streams).
    public var hasNoCompatibleBaseLayer: Bool { sdrConversion == .notPossible }

    /// Whether the pixels are HDR (anything but SDR and Dolby Vision over an SDR base).
    public var isHDR: Bool { sdrConversion != .none }

    /// The Dolby Vision record, for Dolby Vision tracks.
    public var dolbyVision: DolbyVisionConfiguration? {
        if case .dolbyVision(let record) = self { return record }
        return nil
    }

    /// The stable class name used in JSON: `sdr`, `hdr10`, `hlg`, `dolbyVision`.
    public var className: String {
        switch self {
        case .sdr: "sdr"
        case .hdr10: "hdr10"
        case .hlg: "hlg"
        case .dolbyVision: "dolbyVision"
        }
    }

    /// A readable summary: `SDR`, `HDR10 (PQ)`, `HLG`, or e.g.
    /// `Dolby Vision 8.4, HLG-compatible base (level 2, RPU+BL)`.
    public var summary: String {
        switch self {
        case .sdr: return "SDR"
        case .hdr10: return "HDR10 (PQ)"
        case .hlg: return "HLG"
        case .dolbyVision(let record):
            return "Dolby Vision \(record.name), \(record.baseLayerCompatibility.displayName) "
                + "(level \(record.level), \(record.layerSummary))"
        }
    }

    /// Same as ``summary``.

    public var description: String { summary }

    enum CodingKeys: String, CodingKey {
        case className = "class"
        case summary, needsToneMappingForSDR, sdrConversion, dolbyVision
    }

    /// Decodes the JSON form documented on the type.

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        switch try c.decode(String.self, forKey: .className) {
        case "hdr10": self = .hdr10
        case "hlg": self = .hlg
        case "dolbyVision": self = .dolbyVision(try c.decode(DolbyVisionConfiguration.self, forKey: .dolbyVision))
        default: self = .sdr
        }
    }

    /// Encodes the JSON form documented on the type.

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(className, forKey: .className)
        try c.encode(summary, forKey: .summary)
        try c.encode(needsToneMappingForSDR, forKey: .needsToneMappingForSDR)
        try c.encode(sdrConversion, forKey: .sdrConversion)
        try c.encodeIfPresent(dolbyVision, forKey: .dolbyVision)
    }
}
