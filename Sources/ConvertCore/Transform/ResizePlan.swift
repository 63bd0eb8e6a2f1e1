/// The geometry of one resize: which region of the upright source is kept, the size it is
/// scaled to, and the canvas it is centred on (larger than the scaled picture only for
/// ``PhotoResize/Fit/pad``). Pure arithmetic over sizes, so every mode's rounding is unit-tested
/// without decoding anything.
struct ResizePlan: Equatable, Sendable {
    /// A rectangle in pixels.
    struct Rect: Equatable, Sendable {
        package var x: Int
        package var y: Int
        package var width: Int
        package var height: Int
    }

    /// Size of the source the plan was made for.
    package var sourceWidth: Int
    package var sourceHeight: Int
    /// The region of the source that is kept.
    package var crop: Rect
    /// The size the region is scaled to.
    var scaledWidth: Int
    var scaledHeight: Int
    /// The size of the output; the scaled picture is centred on it.
    var canvasWidth: Int
    var canvasHeight: Int

    /// Where the scaled picture sits on the canvas: centred, odd pixels going right and down.
    var offsetX: Int { (canvasWidth - scaledWidth) / 2 }
    var offsetY: Int { (canvasHeight - scaledHeight) / 2 }

    /// Whether the plan leaves the source as it is.
    var isIdentity: Bool {
        crop == Rect(x: 0, y: 0, width: sourceWidth, height: sourceHeight) && scaledWidth == sourceWidth
            && scaledHeight == sourceHeight && canvasWidth == scaledWidth && canvasHeight == scaledHeight
    }

    /// The linear factor the kept region shrinks by (1 when it is not shrunk): a decode at this
    /// fraction of the full size still has every pixel the output needs.
    var requiredScale: Double {
        min(1, max(Double(scaledWidth) / Double(crop.width), Double(scaledHeight) / Double(crop.height)))
    }

    /// The plan for a `sourceWidth`×`sourceHeight` upright picture: `resize` first, then the
    /// whole result shrunk so its long edge is at most `maxLongEdge` (the target-size search
    /// lowers the resolution of a resized photo this way).
    package init(sourceWidth: Int, sourceHeight: Int, resize: PhotoResize?, maxLongEdge: Int?) {
        precondition(sourceWidth > 0 && sourceHeight > 0, "a source has pixels")
        self.sourceWidth = sourceWidth
        self.sourceHeight = sourceHeight
        crop = Rect(x: 0, y: 0, width: sourceWidth, height: sourceHeight)
        var scaled = (width: sourceWidth, height: sourceHeight)
        var canvas = scaled
        if let resize {
            precondition(resize.width > 0 && resize.height > 0, "a resize box has pixels")
            switch resize.fit {
            case .fit:
                scaled = Self.fitted(sourceWidth, sourceHeight, into: resize.width, resize.height)
                canvas = scaled
            case .pad:
                scaled = Self.fitted(sourceWidth, sourceHeight, into: resize.width, resize.height)
                canvas = (resize.width, resize.height)
            case .fill, .crop:
                crop = Self.centredRegion(sourceWidth, sourceHeight, aspectOf: resize.width, resize.height)
                let reachesBox = crop.width >= resize.width || crop.height >= resize.height
                scaled = resize.fit == .fill || reachesBox ? (resize.width, resize.height) : (crop.width, crop.height)
                canvas = scaled
            }
        }
        if let maxLongEdge, max(canvas.width, canvas.height) > maxLongEdge {
            let limited = Resampler.fitting(width: canvas.width, height: canvas.height, longEdge: maxLongEdge)
            let factor = Double(max(limited.width, limited.height)) / Double(max(canvas.width, canvas.height))
            scaled =
                canvas == scaled
                ? limited
                : (
                    min(limited.width, max(1, Int((Double(scaled.width) * factor).rounded()))),
                    min(limited.height, max(1, Int((Double(scaled.height) * factor).rounded())))
                )
            canvas = limited
        }
        scaledWidth = scaled.width
        scaledHeight = scaled.height
        canvasWidth = canvas.width
        canvasHeight = canvas.height
    }

    /// The largest size inside `boxWidth`×`boxHeight` with the source's aspect ratio; the
    /// source's own size when it already fits (never enlarged).
    package static func fitted(_ width: Int, _ height: Int, into boxWidth: Int, _ boxHeight: Int) -> (
        width: Int, height: Int
    ) {
        guard width > boxWidth || height > boxHeight else { return (width, height) }
        // Width-limited when boxWidth/width <= boxHeight/height (compared without division).
        if boxWidth * height <= boxHeight * width {
            return (
                boxWidth, max(1, min(boxHeight, Int((Double(height) * Double(boxWidth) / Double(width)).rounded())))
            )
        }
        return (max(1, min(boxWidth, Int((Double(width) * Double(boxHeight) / Double(height)).rounded()))), boxHeight)
    }

    /// The largest centred region of a `width`×`height` picture with the aspect ratio of
    /// `boxWidth`×`boxHeight`.
    fileprivate static func centredRegion(_ width: Int, _ height: Int, aspectOf boxWidth: Int, _ boxHeight: Int) -> Rect
    {
        var w = width
        var h = height
        if width * boxHeight > boxWidth * height {
            w = max(1, min(width, Int((Double(height) * Double(boxWidth) / Double(boxHeight)).rounded())))
        } else {
            h = max(1, min(height, Int((Double(width) * Double(boxHeight) / Double(boxWidth)).rounded())))
        }
        return Rect(x: (width - w) / 2, y: (height - h) / 2, width: w, height: h)
    }

    /// This plan for the same picture decoded at `width`×`height` (a DCT-scaled JPEG decode):
    /// the kept region is scaled with the picture, the output sizes stay, so the result has the
    /// same dimensions however the source was decoded.
    func forSource(width: Int, height: Int) -> ResizePlan {
        guard width != sourceWidth || height != sourceHeight else { return self }
        let sx = Double(width) / Double(sourceWidth)
        let sy = Double(height) / Double(sourceHeight)
        var plan = self
        plan.sourceWidth = width
        plan.sourceHeight = height
        let x = min(width - 1, Int((Double(crop.x) * sx).rounded()))
        let y = min(height - 1, Int((Double(crop.y) * sy).rounded()))
        plan.crop = Rect(
            x: x, y: y, width: max(1, min(width - x, Int((Double(crop.width) * sx).rounded()))),
            height: max(1, min(height - y, Int((Double(crop.height) * sy).rounded()))))
        return plan
    }
}
