/// A picture of `width` × `height` turned upright by EXIF orientation 2...8: the output's size and,
/// for each output pixel, the source pixel it takes (the TIFF/EXIF definition of where row 0 and
/// column 0 are stored). One table for every plane that is turned: a bitmap's samples and the
/// gain map that belongs to it.
struct OrientationTurn {
    let orientation: Int
    let width: Int
    let height: Int

    /// Orientations 5...8 swap the axes.
    var outputWidth: Int { orientation >= 5 ? height : width }
    var outputHeight: Int { orientation >= 5 ? width : height }

    /// The index (in pixels, row by row) of the source pixel shown at output pixel (`x`, `y`).
    func sourceIndex(x: Int, y: Int) -> Int {
        let (w, h) = (width, height)
        let (sx, sy): (Int, Int)
        switch orientation {
        case 2: (sx, sy) = (w - 1 - x, y)
        case 3: (sx, sy) = (w - 1 - x, h - 1 - y)
        case 4: (sx, sy) = (x, h - 1 - y)
        case 5: (sx, sy) = (y, x)
        case 6: (sx, sy) = (y, h - 1 - x)
        case 7: (sx, sy) = (w - 1 - y, h - 1 - x)
        default: (sx, sy) = (w - 1 - y, x)  // 8
        }
        return sy * w + sx
    }

    /// `values` (`channels` interleaved samples a pixel) turned.
    func turned<Sample: FixedWidthInteger>(_ values: [Sample], channels: Int) -> [Sample] {
        let outWidth = outputWidth
        var out = [Sample](repeating: 0, count: values.count)
        for y in 0..<outputHeight {
            for x in 0..<outWidth {
                let s = sourceIndex(x: x, y: y) * channels
                let d = (y * outWidth + x) * channels
                for c in 0..<channels { out[d + c] = values[s + c] }
            }
        }
        return out
    }
}
