/// A photo's gain map (a HEIC's, or a gain-map JPEG's) as the general path carries it: decoded
/// once at its own size, then cut, scaled and padded by the same ``ResizePlan`` as the picture,
/// for each resolution the conversion (or its target-size search) writes.
struct CarriedGainMap: Sendable {
    package var map: HeifGainMap
    /// The displayed size of the source picture the map covers.
    package var sourceWidth: Int
    package var sourceHeight: Int
    /// Which of the decoded frames is the primary picture (`--all-images` decodes them all).
    var frameIndex: Int

    /// The map lined up with a picture `bitmap` made from the source by `resize` and then
    /// `maxLongEdge`: the plan's crop, scale and canvas at the map's own resolution (never
    /// more than the picture's), bars set to "no boost".
    package func plane(resize: PhotoResize?, maxLongEdge: Int?, bitmapWidth: Int, bitmapHeight: Int) -> GrayPlane {
        let plan = ResizePlan(
            sourceWidth: sourceWidth, sourceHeight: sourceHeight, resize: resize, maxLongEdge: maxLongEdge)
        let source = map.plane
        let factor = min(1, Double(source.width) / Double(sourceWidth))
        func scaled(_ value: Int) -> Int { max(1, Int((Double(value) * factor).rounded())) }
        func offset(_ value: Int) -> Int { Int((Double(value) * factor).rounded()) }
        let sx = Double(source.width) / Double(sourceWidth)
        let sy = Double(source.height) / Double(sourceHeight)
        var plane = source.cropped(
            x: Int((Double(plan.crop.x) * sx).rounded()), y: Int((Double(plan.crop.y) * sy).rounded()),
            width: max(1, Int((Double(plan.crop.width) * sx).rounded())),
            height: max(1, Int((Double(plan.crop.height) * sy).rounded())))
        plane = plane.resized(width: scaled(plan.scaledWidth), height: scaled(plan.scaledHeight))
        plane = plane.placed(
            onCanvas: scaled(plan.canvasWidth), scaled(plan.canvasHeight), x: offset(plan.offsetX),
            y: offset(plan.offsetY),
            fill: map.metadata.noBoostCode)
        if plane.width > bitmapWidth || plane.height > bitmapHeight {
            plane = plane.resized(width: bitmapWidth, height: bitmapHeight)
        }
        return plane
    }
}
