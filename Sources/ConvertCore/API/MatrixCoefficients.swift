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
