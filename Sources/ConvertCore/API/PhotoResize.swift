/// Resizing a photo to a box of `width`×`height` pixels, in one of four ways.
///
/// The box refers to the upright picture: orientation (EXIF, HEIF irot/imir) is applied before
/// resizing, so a portrait photo is fitted as a portrait. Shrinking uses a Lanczos filter.
public struct PhotoResize: Sendable, Equatable, Codable {
    /// How the picture meets the box.
    public enum Fit: String, Sendable, Hashable, Codable, CaseIterable {
        /// The largest size inside the box keeping the aspect ratio; never enlarged. The output
        /// is the box's size in one dimension (or smaller, for a small picture).
        case fit
        /// Exactly the box: scaled (down or up) to cover it keeping the aspect ratio, then the
        /// overflow is cut off evenly on both sides.
        case fill
        /// The box's shape: the centre of the picture with the box's aspect ratio is cut out and
        /// shrunk to the box; a picture smaller than the box is cut to the shape but not
        /// enlarged, so the output is then smaller than the box.
        case crop
        /// Exactly the box: the picture fitted inside it (never enlarged) and centred, the bars
        /// around it filled with ``PhotoResize/padding`` (or transparent, see there).
        case pad
    }

    /// Width of the box in pixels (at least 1).
    public var width: Int
    /// Height of the box in pixels (at least 1).
    public var height: Int
    /// How the picture meets the box.
    public var fit: Fit
    /// Colour of the bars ``Fit/pad`` adds. nil: transparent when the output format has alpha
    /// (PNG, WebP, HEIC, AVIF), otherwise the request's ``PhotoRequest/background``.
    public var padding: RGBColor?

    /// Creates a resize to `width`×`height` with `fit`.
    public init(width: Int, height: Int, fit: Fit = .fit, padding: RGBColor? = nil) {
        self.width = width
        self.height = height
        self.fit = fit
        self.padding = padding
    }

    /// Parses `WxH` (`800x600`, also with `X` or `×`); nil when the text is not two positive
    /// whole numbers.
    public init?(parsing text: String, fit: Fit = .fit, padding: RGBColor? = nil) {
        let parts = text.split(separator: "x", omittingEmptySubsequences: false)
            .flatMap { $0.split(separator: "X", omittingEmptySubsequences: false) }
            .flatMap { $0.split(separator: "×", omittingEmptySubsequences: false) }
        guard parts.count == 2,
            parts.allSatisfy({ !$0.isEmpty && $0.allSatisfy(\.isASCII) && $0.allSatisfy(\.isNumber) }),
            let width = Int(parts[0]), let height = Int(parts[1]), width > 0, height > 0
        else { return nil }
        self.init(width: width, height: height, fit: fit, padding: padding)
    }
}
