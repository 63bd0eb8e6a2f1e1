/// The nclx colour description of a HEIF/AVIF image: ITU-T H.273 code points, held in the same
/// types as a video's ``ColorDescription``.
///
/// JSON (`info --json`, `color.nclx`): the integer codes, `{"primaries": 1, "transfer": 13,
/// "matrix": 5, "fullRange": true}`, as scripts read them (a ``ColorDescription`` writes short
/// names instead).
public struct NCLX: Sendable, Hashable, Codable {
    /// Colour primaries (1 BT.709/sRGB, 9 BT.2020, 12 Display P3, ...).
    public var primaries: ColorPrimaries
    /// Transfer characteristics (1 BT.709, 13 sRGB, 16 PQ, 18 HLG, ...).
    public var transfer: TransferCharacteristics
    /// Matrix coefficients (1 BT.709, 6 BT.601, 9 BT.2020 NCL, ...).
    public var matrix: MatrixCoefficients
    /// Whether YCbCr uses the full range.
    public var fullRange: Bool

    /// Creates a description from its code points.
    public init(
        primaries: ColorPrimaries, transfer: TransferCharacteristics, matrix: MatrixCoefficients, fullRange: Bool
    ) {
        self.primaries = primaries
        self.transfer = transfer
        self.matrix = matrix
        self.fullRange = fullRange
    }

    /// Creates a description from the integer codes of an nclx box.
    package init(primaries: Int, transfer: Int, matrix: Int, fullRange: Bool) {
        self.init(
            primaries: ColorPrimaries(code: primaries), transfer: TransferCharacteristics(code: transfer),
            matrix: MatrixCoefficients(code: matrix), fullRange: fullRange)
    }

    enum CodingKeys: String, CodingKey {
        case primaries, transfer, matrix, fullRange
    }

    /// Decodes the integer codes.
    public init(from decoder: any Swift.Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            primaries: try container.decode(Int.self, forKey: .primaries),
            transfer: try container.decode(Int.self, forKey: .transfer),
            matrix: try container.decode(Int.self, forKey: .matrix),
            fullRange: try container.decode(Bool.self, forKey: .fullRange))
    }

    /// Encodes the integer codes (not the short names a ``ColorDescription`` writes): the JSON
    /// `info --json` has always printed, which scripts read.
    public func encode(to encoder: any Swift.Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(primaries.code, forKey: .primaries)
        try container.encode(transfer.code, forKey: .transfer)
        try container.encode(matrix.code, forKey: .matrix)
        try container.encode(fullRange, forKey: .fullRange)
    }
}
