/// Bits per channel of a HEIC or AVIF output.
///
/// By default (``PhotoRequest/bitDepth`` nil) a HEIC keeps 10 bits when the source has more
/// than 8 (a 10-bit HEIC, a 12-bit camera file, a 16-bit PNG) and 8 bits otherwise. AVIF is
/// written at 8 bits: libheif 1.15's AV1 (aom) plugin aborts the process on 10-bit input, so
/// asking for 10-bit AVIF is refused with `output.depth-unsupported` instead.
public enum PhotoBitDepth: Int, Sendable, Codable, CaseIterable {
    /// 8 bits: what every viewer decodes (HEVC Main, AV1 Main 8-bit).
    case eight = 8
    /// 10 bits: HEVC Main 10, keeping the gradations of deeper sources.
    case ten = 10
}
