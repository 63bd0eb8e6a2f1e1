/// YCbCr → RGB for HEIF pictures decoded by ``HeifYCbCrDecoder``, so that a HEIC goes to PNG,
/// WebP, HEIC or AVIF without libheif parsing the file.
///
/// The matrix is the H.273 code point the item (nclx) or its stream (VUI) signals: 1 BT.709, 5/6
/// BT.601 (and 2, unspecified, as BT.601, libheif's default), 9/10 BT.2020, 0 identity (GBR).
/// Chroma is upsampled by nearest neighbour, as libheif 1.15 and 1.23 both do by default (they
/// agree to within one level; a bilinear upsampling differs from both by tens of levels at edges).
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
    func rgbBitmap(matrix: Int, fullRange: Bool, icc: [UInt8]?) -> Bitmap {
        let conversion = conversion(matrix: matrix, fullRange: fullRange)
        if bitDepth == 8 {
            var out = [UInt8](repeating: 0, count: width * height * 3)
            out.withUnsafeMutableBufferPointer { buffer in
                convert(conversion) { row, values in
                    let target = buffer.baseAddress! + row * values.count
                    for index in 0..<values.count { target[index] = UInt8(max(0, min(255, values[index] * 255 + 0.5))) }
                }
            }
            return Bitmap(width: width, height: height, channels: 3, samples: .eight(out), sourceBitDepth: 8, icc: icc)
        }
        var out = [UInt16](repeating: 0, count: width * height * 3)
        out.withUnsafeMutableBufferPointer { buffer in
            convert(conversion) { row, values in
                let target = buffer.baseAddress! + row * values.count
                for index in 0..<values.count { target[index] = UInt16(max(0, min(65535, values[index] * 65535 + 0.5))) }
            }
        }
        return Bitmap(width: width, height: height, channels: 3, samples: .sixteen(out), sourceBitDepth: bitDepth, icc: icc)
    }

    /// Converts the picture's `rows` (all of them by default) one by one, top to bottom, handing
    /// each row's interleaved RGB as 16-bit samples (0...65535, the values
    /// ``rgbBitmap(matrix:fullRange:icc:)`` stores) to `body`, for a caller that makes its own
    /// pixels from them (HDR tone mapping) and so needs no 16-bit bitmap of the whole picture.
    /// Calls for different rows may run at once: each has its own row buffers.
    func withRGBRows(
        matrix: Int, fullRange: Bool, rows: Range<Int>? = nil, _ body: (_ row: Int, _ samples: UnsafeBufferPointer<UInt16>) -> Void
    ) {
        var samples = [UInt16](repeating: 0, count: width * 3)
        convert(conversion(matrix: matrix, fullRange: fullRange), rows: rows ?? 0..<height) { row, values in
            samples.withUnsafeMutableBufferPointer { target in
                for index in 0..<values.count { target[index] = UInt16(max(0, min(65535, values[index] * 65535 + 0.5))) }
            }
            samples.withUnsafeBufferPointer { body(row, $0) }
        }
    }

    private func conversion(matrix: Int, fullRange: Bool) -> Conversion {
        let maximum = Double((1 << bitDepth) - 1)
        let scale = Double(1 << (bitDepth - 8))
        // Normalised value = (sample − offset) × gain, luma to 0...1 and chroma to −0.5...0.5.
        let lumaOffset = fullRange ? 0 : 16 * scale
        let lumaGain = fullRange ? 1 / maximum : 1 / (219 * scale)
        let chromaOffset = 128 * scale
        let chromaGain = fullRange ? 1 / maximum : 1 / (224 * scale)
        let (kr, kb) = Self.coefficients(matrix: matrix)
        let kg = 1 - kr - kb
        return Conversion(
            lumaOffset: Float(lumaOffset), lumaGain: Float(lumaGain), chromaOffset: Float(chromaOffset),
            chromaGain: Float(chromaGain), crToR: Float(2 * (1 - kr)), cbToG: Float(2 * kb * (1 - kb) / kg),
            crToG: Float(2 * kr * (1 - kr) / kg), cbToB: Float(2 * (1 - kb)), identity: matrix == 0)
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

    /// Converts `rows` (all of them by default) one by one, handing each row's interleaved RGB
    /// (0...1) to `store`. Samples are loaded into float rows first, so the arithmetic is the
    /// same code at every bit depth.
    private func convert(
        _ c: Conversion, rows: Range<Int>? = nil, store: (_ row: Int, _ values: UnsafeBufferPointer<Float>) -> Void
    ) {
        let (width, height, chromaHeight) = (self.width, self.height, self.chromaHeight)
        let deep = bitDepth > 8
        withRawPlanes { planes, strides in
            var luma = [Float](repeating: 0, count: width)
            var cb = [Float](repeating: 0, count: width)
            var cr = [Float](repeating: 0, count: width)
            var rgb = [Float](repeating: 0, count: width * 3)
            for row in rows ?? 0..<height {
                let chromaRow = min(row / 2, chromaHeight - 1)
                Self.load(planes[0], offset: row * strides[0], deep: deep, count: width, halved: false, into: &luma)
                Self.load(planes[1], offset: chromaRow * strides[1], deep: deep, count: width, halved: true, into: &cb)
                Self.load(planes[2], offset: chromaRow * strides[2], deep: deep, count: width, halved: true, into: &cr)
                rgb.withUnsafeMutableBufferPointer { out in
                    for x in 0..<width {
                        let y = (luma[x] - c.lumaOffset) * c.lumaGain
                        let u = (cb[x] - c.chromaOffset) * c.chromaGain
                        let v = (cr[x] - c.chromaOffset) * c.chromaGain
                        if c.identity {
                            (out[x * 3], out[x * 3 + 1], out[x * 3 + 2]) = (v + 0.5, y, u + 0.5)
                        } else {
                            out[x * 3] = y + c.crToR * v
                            out[x * 3 + 1] = y - c.cbToG * u - c.crToG * v
                            out[x * 3 + 2] = y + c.cbToB * u
                        }
                    }
                    store(row, UnsafeBufferPointer(out))
                }
            }
        }
    }

    /// Loads `count` samples of one row as floats; `halved` reads each chroma sample for the two
    /// luma columns it covers (nearest neighbour, as libheif converts 4:2:0).
    private static func load(
        _ plane: UnsafeRawPointer, offset: Int, deep: Bool, count: Int, halved: Bool, into row: inout [Float]
    ) {
        row.withUnsafeMutableBufferPointer { out in
            if deep {
                let samples = plane.assumingMemoryBound(to: UInt16.self) + offset
                for x in 0..<count { out[x] = Float(samples[halved ? x >> 1 : x]) }
            } else {
                let samples = plane.assumingMemoryBound(to: UInt8.self) + offset
                for x in 0..<count { out[x] = Float(samples[halved ? x >> 1 : x]) }
            }
        }
    }
}
