/// Colour primaries, by their ITU-T H.273 code (the numbering MP4 `colr` boxes, HEVC/AV1 VUI and
/// FFmpeg share). An open set: any code is representable, unknown ones print as `code-N`.
///
/// JSON: the short ``name`` as a string, e.g. `"bt2020"`.
public struct ColorPrimaries: H273CodePoint {
    /// The H.273 `ColorPrimaries` value.
    public let code: Int
    /// Creates primaries from an H.273 code.
    public init(code: Int) { self.code = code }

    /// ITU-R BT.709 / sRGB.
    public static let bt709 = ColorPrimaries(code: 1)
    /// Not specified by the file.
    public static let unspecified = ColorPrimaries(code: 2)
    /// ITU-R BT.601 625-line (PAL).
    public static let bt470bg = ColorPrimaries(code: 5)
    /// ITU-R BT.601 525-line (NTSC, SMPTE 170M).
    public static let smpte170m = ColorPrimaries(code: 6)
    /// ITU-R BT.2020 / BT.2100 wide gamut.
    public static let bt2020 = ColorPrimaries(code: 9)
    /// SMPTE RP 431-2 (DCI-P3).
    public static let dciP3 = ColorPrimaries(code: 11)
    /// SMPTE EG 432-1 (Display P3, D65).
    public static let displayP3 = ColorPrimaries(code: 12)

    /// Short (JSON) and readable names of the known codes.
    public static let names: [Int: (String, String)] = [
        0: ("reserved", "Reserved"), 1: ("bt709", "BT.709"), 2: ("unspecified", "Unspecified"),
        4: ("bt470m", "BT.470 M"), 5: ("bt470bg", "BT.601 PAL"), 6: ("smpte170m", "BT.601 NTSC"),
        7: ("smpte240m", "SMPTE 240M"), 8: ("film", "Generic film"), 9: ("bt2020", "BT.2020"),
        10: ("smpte428", "SMPTE ST 428 (XYZ)"), 11: ("smpte431", "DCI-P3"), 12: ("smpte432", "Display P3"),
        22: ("ebu3213", "EBU Tech 3213"),
    ]

    /// The codes that mean "not given by the file".
    public static let unspecifiedCodes: Set<Int> = [0, 2]
}

/// Transfer characteristics (the "gamma" curve), by H.273 code. An open set.
///
/// JSON: the short ``name``, e.g. `"smpte2084"` (PQ) or `"arib-std-b67"` (HLG).
public struct TransferCharacteristics: H273CodePoint {
    /// The H.273 `TransferCharacteristics` value.
    public let code: Int
    /// Creates a transfer function from an H.273 code.
    public init(code: Int) { self.code = code }

    /// ITU-R BT.709 (SDR).
    public static let bt709 = TransferCharacteristics(code: 1)
    /// Not specified by the file.
    public static let unspecified = TransferCharacteristics(code: 2)
    /// ITU-R BT.601 (SDR).
    public static let smpte170m = TransferCharacteristics(code: 6)
    /// IEC 61966-2-1 (sRGB).
    public static let sRGB = TransferCharacteristics(code: 13)
    /// SMPTE ST 2084, the perceptual quantizer (PQ) of HDR10 and Dolby Vision.
    public static let pq = TransferCharacteristics(code: 16)
    /// ARIB STD-B67, hybrid log-gamma (HLG).
    public static let hlg = TransferCharacteristics(code: 18)

    /// Short (JSON) and readable names of the known codes.
    public static let names: [Int: (String, String)] = [
        0: ("reserved", "Reserved"), 1: ("bt709", "BT.709"), 2: ("unspecified", "Unspecified"),
        4: ("gamma22", "Gamma 2.2"), 5: ("gamma28", "Gamma 2.8"), 6: ("smpte170m", "BT.601"),
        7: ("smpte240m", "SMPTE 240M"), 8: ("linear", "Linear"), 9: ("log100", "Log 100:1"),
        10: ("log316", "Log 316:1"), 11: ("iec61966-2-4", "xvYCC"), 12: ("bt1361e", "BT.1361"),
        13: ("iec61966-2-1", "sRGB"), 14: ("bt2020-10", "BT.2020 10-bit"), 15: ("bt2020-12", "BT.2020 12-bit"),
        16: ("smpte2084", "PQ (SMPTE ST 2084)"), 17: ("smpte428", "SMPTE ST 428"),
        18: ("arib-std-b67", "HLG (ARIB STD-B67)"),
    ]

    /// The codes that mean "not given by the file".
    public static let unspecifiedCodes: Set<Int> = [0, 2]
}

/// Matrix coefficients (how RGB became Y'CbCr), by H.273 code. An open set.
///
/// JSON: the short ``name``, e.g. `"bt2020nc"`.
public struct MatrixCoefficients: H273CodePoint {
    /// The H.273 `MatrixCoefficients` value.
    public let code: Int
    /// Creates matrix coefficients from an H.273 code.
    public init(code: Int) { self.code = code }

    /// Identity: the samples are RGB (GBR order).
    public static let identity = MatrixCoefficients(code: 0)
    /// ITU-R BT.709.
    public static let bt709 = MatrixCoefficients(code: 1)
    /// Not specified by the file.
    public static let unspecified = MatrixCoefficients(code: 2)
    /// ITU-R BT.601 625-line.
    public static let bt470bg = MatrixCoefficients(code: 5)
    /// ITU-R BT.601 525-line.
    public static let smpte170m = MatrixCoefficients(code: 6)
    /// ITU-R BT.2020 non-constant luminance.
    public static let bt2020nc = MatrixCoefficients(code: 9)

    /// Short (JSON) and readable names of the known codes.
    public static let names: [Int: (String, String)] = [
        0: ("gbr", "Identity (RGB)"), 1: ("bt709", "BT.709"), 2: ("unspecified", "Unspecified"),
        4: ("fcc", "FCC"), 5: ("bt470bg", "BT.601 PAL"), 6: ("smpte170m", "BT.601 NTSC"),
        7: ("smpte240m", "SMPTE 240M"), 8: ("ycgco", "YCgCo"), 9: ("bt2020nc", "BT.2020 non-constant"),
        10: ("bt2020c", "BT.2020 constant"), 11: ("smpte2085", "SMPTE ST 2085"),
        12: ("chroma-derived-nc", "Chroma-derived non-constant"), 13: ("chroma-derived-c", "Chroma-derived constant"),
        14: ("ictcp", "ICtCp"),
    ]

    /// The codes that mean "not given by the file".
    public static let unspecifiedCodes: Set<Int> = [2, 3]
}

/// Whether sample values use the full code range or the limited ("TV", 16–235 for 8-bit) range.
///
/// JSON: `"limited"`, `"full"` or `"unspecified"`.
public enum ColorRange: String, Hashable, Sendable, Codable, CustomStringConvertible {
    /// Not specified by the file (players assume limited for video).
    case unspecified
    /// Limited ("TV", "MPEG") range.
    case limited
    /// Full ("PC", "JPEG") range.
    case full

    /// The JSON spelling.

    public var description: String { rawValue }
}

/// The colour description of a video track: what its pixel values mean.
///
/// JSON object: `primaries`, `transfer`, `matrix` (H.273 short names, see ``ColorPrimaries``),
/// `range` (`limited`/`full`/`unspecified`), `iccProfileBytes` (size of an ICC profile given
/// instead of, or besides, the codes; absent when none).
public struct ColorDescription: Hashable, Sendable, Codable {
    /// Colour primaries.
    public var primaries: ColorPrimaries
    /// Transfer characteristics.
    public var transfer: TransferCharacteristics
    /// Matrix coefficients.
    public var matrix: MatrixCoefficients
    /// Sample range.
    public var range: ColorRange
    /// Size in bytes of an ICC profile in the container's `colr` box (`prof`/`rICC`), if any.
    public var iccProfileBytes: Int?

    /// Creates a colour description.
    public init(
        primaries: ColorPrimaries = .unspecified, transfer: TransferCharacteristics = .unspecified,
        matrix: MatrixCoefficients = .unspecified, range: ColorRange = .unspecified, iccProfileBytes: Int? = nil
    ) {
        self.primaries = primaries
        self.transfer = transfer
        self.matrix = matrix
        self.range = range
        self.iccProfileBytes = iccProfileBytes
    }

    /// Whether nothing at all is known about the colour.
    public var isUnspecified: Bool {
        primaries.isUnspecified && transfer.isUnspecified && matrix.isUnspecified && range == .unspecified
            && iccProfileBytes == nil
    }

    enum CodingKeys: String, CodingKey {
        case primaries, transfer, matrix, range, iccProfileBytes
    }
}

/// An ITU-T H.273 code point (colour primaries, transfer, matrix): an open set of integer codes
/// with FFmpeg's short names for JSON and readable names for people. Unknown codes print as
/// `code-N` and survive a JSON round trip.
public protocol H273CodePoint: Hashable, Sendable, Codable, CustomStringConvertible {
    /// The H.273 value.
    var code: Int { get }
    /// Creates a value from its H.273 code.
    init(code: Int)
    /// Short (JSON) and readable names of the known codes.
    static var names: [Int: (String, String)] { get }
    /// The codes that mean "not given by the file" (unspecified, reserved).
    static var unspecifiedCodes: Set<Int> { get }
}

extension H273CodePoint {
    /// The short, stable name used in JSON (FFmpeg's spelling), e.g. `bt2020`.
    public var name: String { Self.names[code]?.0 ?? "code-\(code)" }
    /// A readable name, e.g. `BT.2020`.
    public var displayName: String { Self.names[code]?.1 ?? "Code \(code)" }
    /// Whether the file gave no value (unspecified or reserved).
    public var isUnspecified: Bool { Self.unspecifiedCodes.contains(code) }
    /// The stable short name, as written in JSON.
    public var description: String { name }

    /// Decodes the short name (or `code-N`); an unknown name decodes as unspecified (2).
    public init(from decoder: any Swift.Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        if let match = Self.names.first(where: { $0.value.0 == text }) {
            self.init(code: match.key)
        } else if text.hasPrefix("code-"), let code = Int(text.dropFirst(5)) {
            self.init(code: code)
        } else {
            self.init(code: 2)
        }
    }

    /// Encodes the short name.
    public func encode(to encoder: any Swift.Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(name)
    }
}
