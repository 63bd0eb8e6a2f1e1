/// Chroma subsampling of a JPEG output.
public enum JPEGSubsampling: String, Sendable, Codable, CaseIterable {
    /// Full-resolution colour (largest files, best for graphics).
    case s444 = "4:4:4"
    /// Colour halved horizontally.
    case s422 = "4:2:2"
    /// Colour halved in both directions: the usual choice for photos.
    case s420 = "4:2:0"
}
