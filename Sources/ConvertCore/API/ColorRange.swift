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
