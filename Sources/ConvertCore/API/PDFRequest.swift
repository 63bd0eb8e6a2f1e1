/// Photos into one PDF, one per page, in the order given.
public struct PDFRequest: Sendable {
    /// The images, in page order.
    public var inputPaths: [String]
    /// Where the PDF goes.
    public var outputPath: String
    /// Page size.
    public var page: PDFPageSize
    /// Margin around each image, in points (1/72 in).
    public var margin: Double
    /// Replace an existing output file.
    public var overwrite: Bool
    /// JPEG quality for images that must be re-encoded (non-JPEG inputs, rotated JPEGs, shrunk
    /// images).
    public var quality: Int
    /// Shrink images whose long edge is longer than this many pixels (never enlarge): a smaller
    /// PDF, at the cost of re-encoding those images. Nil keeps every image's size.
    public var maxLongEdge: Int?
    /// What the output passes through as it is moved into place (the CLI's free tier charges
    /// there); nil for library callers, whose conversions are never charged.
    package var placementGate: (any PlacementGate)?

    /// Creates a request; the default margin is none for `.fit` and 10 mm otherwise.
    public init(
        inputPaths: [String], outputPath: String, page: PDFPageSize = .fit, margin: Double? = nil,
        overwrite: Bool = false, quality: Int = 90, maxLongEdge: Int? = nil
    ) {
        self.inputPaths = inputPaths
        self.outputPath = outputPath
        self.page = page
        self.margin = margin ?? (page == .fit ? 0 : 10 / 25.4 * 72)
        self.overwrite = overwrite
        self.quality = quality
        self.maxLongEdge = maxLongEdge
    }
}
