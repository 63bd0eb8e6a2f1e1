/// One 8-bit grey plane, rows packed (an HDR gain map), with the HEIF transforms and the
/// resampling a primary image gets, so the map keeps lining up with it.
package struct GrayPlane: Sendable, Equatable {
    package var width: Int
    package var height: Int
    package var pixels: [UInt8]

    package init(width: Int, height: Int, pixels: [UInt8]) {
        precondition(pixels.count == width * height, "one byte per sample")
        self.width = width
        self.height = height
        self.pixels = pixels
    }

    /// The plane after a HEIF `irot` (anticlockwise quarter turns) or `imir`, as
    /// ``YCbCr420Image/applying(_:)`` moves a luma plane.
    func applying(_ transform: YCbCr420Image.Transform) -> GrayPlane {
        switch transform {
        case .rotate(let quarterTurns):
            let turns = ((quarterTurns % 4) + 4) % 4
            guard turns != 0 else { return self }
            let swapped = turns % 2 == 1
            let targetWidth = swapped ? height : width
            var out = [UInt8](repeating: 0, count: pixels.count)
            for y in 0..<height {
                for x in 0..<width {
                    let (targetX, targetY): (Int, Int)
                    switch turns {
                    case 1: (targetX, targetY) = (y, width - 1 - x)
                    case 2: (targetX, targetY) = (width - 1 - x, height - 1 - y)
                    default: (targetX, targetY) = (height - 1 - y, x)
                    }
                    out[targetY * targetWidth + targetX] = pixels[y * width + x]
                }
            }
            return GrayPlane(width: targetWidth, height: swapped ? width : height, pixels: out)
        case .mirror(let topToBottom):
            var out = [UInt8](repeating: 0, count: pixels.count)
            for y in 0..<height {
                for x in 0..<width {
                    let source = topToBottom ? (height - 1 - y) * width + x : y * width + (width - 1 - x)
                    out[y * width + x] = pixels[source]
                }
            }
            return GrayPlane(width: width, height: height, pixels: out)
        }
    }

    /// The plane resampled to `targetWidth`×`targetHeight` by area averaging (box filter when
    /// shrinking, bilinear when growing), for a primary that was resized.
    package func resized(width targetWidth: Int, height targetHeight: Int) -> GrayPlane {
        guard targetWidth != width || targetHeight != height, targetWidth > 0, targetHeight > 0 else { return self }
        var out = [UInt8](repeating: 0, count: targetWidth * targetHeight)
        let scaleX = Double(width) / Double(targetWidth)
        let scaleY = Double(height) / Double(targetHeight)
        for y in 0..<targetHeight {
            let top = Double(y) * scaleY
            let bottom = min(Double(height), top + max(scaleY, 1))
            for x in 0..<targetWidth {
                let left = Double(x) * scaleX
                let right = min(Double(width), left + max(scaleX, 1))
                var sum = 0.0
                var weight = 0.0
                var sourceY = Int(top)
                while Double(sourceY) < bottom, sourceY < height {
                    let coverY = min(bottom, Double(sourceY + 1)) - max(top, Double(sourceY))
                    var sourceX = Int(left)
                    while Double(sourceX) < right, sourceX < width {
                        let cover = coverY * (min(right, Double(sourceX + 1)) - max(left, Double(sourceX)))
                        sum += cover * Double(pixels[sourceY * width + sourceX])
                        weight += cover
                        sourceX += 1
                    }
                    sourceY += 1
                }
                out[y * targetWidth + x] = UInt8(max(0, min(255, (sum / max(weight, 1e-9)).rounded())))
            }
        }
        return GrayPlane(width: targetWidth, height: targetHeight, pixels: out)
    }

    /// The `width`×`height` region at (`x`, `y`), cut at the plane's edges (at least 1×1).
    func cropped(x: Int, y: Int, width cropWidth: Int, height cropHeight: Int) -> GrayPlane {
        let left = max(0, min(width - 1, x))
        let top = max(0, min(height - 1, y))
        let w = max(1, min(width - left, cropWidth))
        let h = max(1, min(height - top, cropHeight))
        guard left != 0 || top != 0 || w != width || h != height else { return self }
        var out = [UInt8](repeating: 0, count: w * h)
        for row in 0..<h {
            let source = (top + row) * width + left
            out[(row * w)..<(row * w + w)] = pixels[source..<(source + w)]
        }
        return GrayPlane(width: w, height: h, pixels: out)
    }

    /// The plane centred on a `canvasWidth`×`canvasHeight` canvas at (`x`, `y`), the rest `fill`.
    package func placed(onCanvas canvasWidth: Int, _ canvasHeight: Int, x: Int, y: Int, fill: UInt8) -> GrayPlane {
        guard canvasWidth != width || canvasHeight != height else { return self }
        var out = [UInt8](repeating: fill, count: canvasWidth * canvasHeight)
        for row in 0..<height where (0..<canvasHeight).contains(y + row) {
            for column in 0..<width where (0..<canvasWidth).contains(x + column) {
                out[(y + row) * canvasWidth + x + column] = pixels[row * width + column]
            }
        }
        return GrayPlane(width: canvasWidth, height: canvasHeight, pixels: out)
    }

    /// The plane turned upright by EXIF Orientation `orientation`, as
    /// ``Bitmap/applyingOrientation(_:)`` turns the picture it belongs to.
    func applyingOrientation(_ orientation: Int) -> GrayPlane {
        guard (2...8).contains(orientation) else { return self }
        let turn = OrientationTurn(orientation: orientation, width: width, height: height)
        return GrayPlane(width: turn.outputWidth, height: turn.outputHeight, pixels: turn.turned(pixels, channels: 1))
    }
}
