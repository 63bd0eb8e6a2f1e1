/// The page size of an image album.
public enum PDFPageSize: String, Sendable, Codable, CaseIterable {
    /// Each page is the size of its image (1 pixel = 1 point) plus the margins.
    case fit
    /// ISO A4 (210 × 297 mm), turned to landscape for landscape images.
    case a4
    /// US Letter (8.5 × 11 in), turned to landscape for landscape images.
    case letter
}
