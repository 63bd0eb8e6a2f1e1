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
