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
