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
