/// YCbCr → RGB for HEIF pictures decoded by ``HeifYCbCrDecoder``, so that a HEIC goes to PNG,
/// WebP, HEIC or AVIF without libheif parsing the file.
///
/// The matrix is the H.273 code point the item (nclx) or its stream (VUI) signals: 1 BT.709, 5/6
/// BT.601 (and 2, unspecified, as BT.601, libheif's default), 9/10 BT.2020, 0 identity (GBR).
/// Chroma is upsampled by averaging the nearest chroma samples (bilinear at the half-sample
/// phase), as libheif does by default.
extension YCbCr420Image {
    /// Kr and Kb of an H.273 matrix code point.
    private static func coefficients(matrix: Int) -> (kr: Double, kb: Double) {
        switch matrix {
        case 1: (0.2126, 0.0722)
        case 4: (0.30, 0.11)
        case 7: (0.212, 0.087)
        case 9, 10: (0.2627, 0.0593)
        default: (0.299, 0.114)
        }
    }

    /// The picture as interleaved RGB: 8-bit samples from an 8-bit picture, 16-bit samples
    /// (0...65535) from a deeper one; `sourceBitDepth` records the picture's depth.
    package func rgbBitmap(matrix: Int, fullRange: Bool, icc: [UInt8]?) -> Bitmap {
        let maximum = Double((1 << bitDepth) - 1)
        let scale = Double(1 << (bitDepth - 8))
        // Normalised value = (sample − offset) × gain, luma to 0...1 and chroma to −0.5...0.5.
        let lumaOffset = fullRange ? 0 : 16 * scale
        let lumaGain = fullRange ? 1 / maximum : 1 / (219 * scale)
        let chromaOffset = 128 * scale
        let chromaGain = fullRange ? 1 / maximum : 1 / (224 * scale)
        let (kr, kb) = Self.coefficients(matrix: matrix)
        let kg = 1 - kr - kb
        let conversion = Conversion(
            lumaOffset: Float(lumaOffset), lumaGain: Float(lumaGain), chromaOffset: Float(chromaOffset),
            chromaGain: Float(chromaGain), crToR: Float(2 * (1 - kr)), cbToG: Float(2 * kb * (1 - kb) / kg),
            crToG: Float(2 * kr * (1 - kr) / kg), cbToB: Float(2 * (1 - kb)), identity: matrix == 0)
        if bitDepth == 8 {
            var out = [UInt8](repeating: 0, count: width * height * 3)
            out.withUnsafeMutableBufferPointer { buffer in
                convert(UInt8.self, conversion, outputMaximum: 255, into: buffer.baseAddress!)
            }
            return Bitmap(width: width, height: height, channels: 3, samples: .eight(out), sourceBitDepth: 8, icc: icc)
        }
        var out = [UInt16](repeating: 0, count: width * height * 3)
        out.withUnsafeMutableBufferPointer { buffer in
            convert(UInt16.self, conversion, outputMaximum: 65535, into: buffer.baseAddress!)
        }
        return Bitmap(width: width, height: height, channels: 3, samples: .sixteen(out), sourceBitDepth: bitDepth, icc: icc)
    }

    private struct Conversion {
        var lumaOffset: Float
        var lumaGain: Float
        var chromaOffset: Float
        var chromaGain: Float
        var crToR: Float
        var cbToG: Float
        var crToG: Float
        var cbToB: Float
        var identity: Bool
    }

    private func convert<Sample: FixedWidthInteger & UnsignedInteger, Output: FixedWidthInteger & UnsignedInteger>(
        _: Sample.Type, _ c: Conversion, outputMaximum: Float, into out: UnsafeMutablePointer<Output>
    ) {
        let (width, height, chromaWidth, chromaHeight) = (self.width, self.height, self.chromaWidth, self.chromaHeight)
        withRawPlanes { planes, strides in
            let y = planes[0].assumingMemoryBound(to: Sample.self)
            let cb = planes[1].assumingMemoryBound(to: Sample.self)
            let cr = planes[2].assumingMemoryBound(to: Sample.self)
            // One row of upsampled, normalised chroma, reused for every luma row.
            var rowCb = [Float](repeating: 0, count: width)
            var rowCr = [Float](repeating: 0, count: width)
            for row in 0..<height {
                Self.upsampleRow(cb, cr, stride: strides[1], row: row, chromaWidth: chromaWidth, chromaHeight: chromaHeight,
                                 width: width, c, &rowCb, &rowCr)
                let lumaRow = y + row * strides[0]
                let target = out + row * width * 3
                for x in 0..<width {
                    let luma = (Float(lumaRow[x]) - c.lumaOffset) * c.lumaGain
                    let (u, v) = (rowCb[x], rowCr[x])
                    let (r, g, b) = c.identity
                        ? (v + 0.5, luma, u + 0.5)
                        : (luma + c.crToR * v, luma - c.cbToG * u - c.crToG * v, luma + c.cbToB * u)
                    target[x * 3] = Output(max(0, min(outputMaximum, r * outputMaximum + 0.5)))
                    target[x * 3 + 1] = Output(max(0, min(outputMaximum, g * outputMaximum + 0.5)))
                    target[x * 3 + 2] = Output(max(0, min(outputMaximum, b * outputMaximum + 0.5)))
                }
            }
        }
    }

    /// The normalised chroma of luma row `row`: vertically between the two nearest chroma rows
    /// (3:1, chroma sited between luma rows), horizontally the same between columns.
    private static func upsampleRow<Sample: FixedWidthInteger & UnsignedInteger>(
        _ cb: UnsafePointer<Sample>, _ cr: UnsafePointer<Sample>, stride: Int, row: Int, chromaWidth: Int, chromaHeight: Int,
        width: Int, _ c: Conversion, _ rowCb: inout [Float], _ rowCr: inout [Float]
    ) {
        let near = min(row / 2, chromaHeight - 1)
        let far = min(max(row % 2 == 0 ? near - 1 : near + 1, 0), chromaHeight - 1)
        func vertical(_ plane: UnsafePointer<Sample>, _ x: Int) -> Float {
            (3 * Float(plane[near * stride + x]) + Float(plane[far * stride + x])) * 0.25
        }
        rowCb.withUnsafeMutableBufferPointer { outCb in
            rowCr.withUnsafeMutableBufferPointer { outCr in
                var previous = (vertical(cb, 0), vertical(cr, 0))
                for cx in 0..<chromaWidth {
                    let current = (vertical(cb, cx), vertical(cr, cx))
                    let next = cx + 1 < chromaWidth ? (vertical(cb, cx + 1), vertical(cr, cx + 1)) : current
                    let left = 2 * cx, right = 2 * cx + 1
                    outCb[left] = ((3 * current.0 + previous.0) * 0.25 - c.chromaOffset) * c.chromaGain
                    outCr[left] = ((3 * current.1 + previous.1) * 0.25 - c.chromaOffset) * c.chromaGain
                    if right < width {
                        outCb[right] = ((3 * current.0 + next.0) * 0.25 - c.chromaOffset) * c.chromaGain
                        outCr[right] = ((3 * current.1 + next.1) * 0.25 - c.chromaOffset) * c.chromaGain
                    }
                    previous = current
                }
            }
        }
    }
}
