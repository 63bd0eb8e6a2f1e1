/// The nclx colour description of a HEIF/AVIF image (ITU-T H.273 code points).
public struct NCLX: Sendable, Hashable, Codable {
    /// Colour primaries (1 BT.709/sRGB, 9 BT.2020, 12 Display P3, ...).
    public var primaries: Int
    /// Transfer characteristics (1 BT.709, 13 sRGB, 16 PQ, 18 HLG, ...).
    public var transfer: Int
    /// Matrix coefficients (1 BT.709, 6 BT.601, 9 BT.2020 NCL, ...).
    public var matrix: Int
    /// Whether YCbCr uses the full range.
    public var fullRange: Bool

    /// Creates a description from its code points.
    public init(primaries: Int, transfer: Int, matrix: Int, fullRange: Bool) {
        self.primaries = primaries
        self.transfer = transfer
        self.matrix = matrix
        self.fullRange = fullRange
    }
}
