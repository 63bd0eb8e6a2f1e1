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
                for index in 0..<values.count { target[index] = Self.sixteenBit(values[index]) }
            }
        }
        return Bitmap(
            width: width, height: height, channels: 3, samples: .sixteen(out), sourceBitDepth: bitDepth, icc: icc)
    }

    /// Converts the picture's `rows` (all of them by default) one by one, top to bottom, handing
    /// each row's interleaved RGB as 16-bit samples (0...65535, the values
    /// ``rgbBitmap(matrix:fullRange:icc:)`` stores) to `body`, for a caller that makes its own
    /// pixels from them (HDR tone mapping) and so needs no 16-bit bitmap of the whole picture.
    /// Calls for different rows may run at once: each has its own row buffers.
    func withRGBRows(
        matrix: Int, fullRange: Bool, rows: Range<Int>? = nil,
        _ body: (_ row: Int, _ samples: UnsafeBufferPointer<UInt16>) -> Void
    ) {
        var samples = [UInt16](repeating: 0, count: width * 3)
        convert(conversion(matrix: matrix, fullRange: fullRange), rows: rows ?? 0..<height) { row, values in
            samples.withUnsafeMutableBufferPointer { target in
                for index in 0..<values.count { target[index] = Self.sixteenBit(values[index]) }
            }
            samples.withUnsafeBufferPointer { body(row, $0) }
        }
    }

    /// The largest 16-bit sample ``withRGBRows(matrix:fullRange:rows:_:)`` would hand for `rows`
    /// (a PQ still's peak), without making the 16-bit rows: the packing is monotonic, so the
    /// largest value packs to the largest sample.
    func brightestRGBSample(matrix: Int, fullRange: Bool, rows: Range<Int>) -> UInt16 {
        var brightest: Float = 0
        convert(conversion(matrix: matrix, fullRange: fullRange), rows: rows) { _, values in
            for value in values where value > brightest { brightest = value }
        }
        return Self.sixteenBit(brightest)
    }

    /// A value in 0...1 as a 16-bit sample, rounded, out-of-range values clamped.
    private static func sixteenBit(_ value: Float) -> UInt16 { UInt16(max(0, min(65535, value * 65535 + 0.5))) }

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
    /// same code at every bit depth; the rows are raw buffers and the matrix is chosen once a
    /// row, so the per-pixel loop has no bounds checks and no branch.
    private func convert(
        _ c: Conversion, rows: Range<Int>? = nil, store: (_ row: Int, _ values: UnsafeBufferPointer<Float>) -> Void
    ) {
        let width = self.width
        let scratch = UnsafeMutableBufferPointer<Float>.allocate(capacity: width * 6)
        defer { scratch.deallocate() }
        let luma = UnsafeMutableBufferPointer(rebasing: scratch[0..<width])
        let cb = UnsafeMutableBufferPointer(rebasing: scratch[width..<width * 2])
        let cr = UnsafeMutableBufferPointer(rebasing: scratch[width * 2..<width * 3])
        let rgb = UnsafeMutableBufferPointer(rebasing: scratch[width * 3..<width * 6])
        withRawPlanes { planes, strides in
            for row in rows ?? 0..<height {
                loadRow(row, planes: planes, strides: strides, luma: luma, cb: cb, cr: cr)
                let (y0, cb0, cr0, out) = (luma.baseAddress!, cb.baseAddress!, cr.baseAddress!, rgb.baseAddress!)
                if c.identity {
                    for x in 0..<width {
                        out[x * 3] = (cr0[x] - c.chromaOffset) * c.chromaGain + 0.5
                        out[x * 3 + 1] = (y0[x] - c.lumaOffset) * c.lumaGain
                        out[x * 3 + 2] = (cb0[x] - c.chromaOffset) * c.chromaGain + 0.5
                    }
                } else {
                    for x in 0..<width {
                        let y = (y0[x] - c.lumaOffset) * c.lumaGain
                        let u = (cb0[x] - c.chromaOffset) * c.chromaGain
                        let v = (cr0[x] - c.chromaOffset) * c.chromaGain
                        out[x * 3] = y + c.crToR * v
                        out[x * 3 + 1] = y - c.cbToG * u - c.crToG * v
                        out[x * 3 + 2] = y + c.cbToB * u
                    }
                }
                store(row, UnsafeBufferPointer(rgb))
            }
        }
    }

    /// Loads luma row `row` and the chroma row that covers it as floats, each chroma sample
    /// repeated for the two luma columns it covers (nearest neighbour, as libheif converts 4:2:0).
    private func loadRow(
        _ row: Int, planes: [UnsafeRawPointer], strides: [Int], luma: UnsafeMutableBufferPointer<Float>,
        cb: UnsafeMutableBufferPointer<Float>, cr: UnsafeMutableBufferPointer<Float>
    ) {
        let chromaRow = min(row / 2, chromaHeight - 1)
        let deep = bitDepth > 8
        Self.load(planes[0], offset: row * strides[0], deep: deep, halved: false, into: luma)
        Self.load(planes[1], offset: chromaRow * strides[1], deep: deep, halved: true, into: cb)
        Self.load(planes[2], offset: chromaRow * strides[2], deep: deep, halved: true, into: cr)
    }

    /// Loads `row.count` samples of one row as floats; `halved` reads each sample for two columns.
    private static func load(
        _ plane: UnsafeRawPointer, offset: Int, deep: Bool, halved: Bool, into row: UnsafeMutableBufferPointer<Float>
    ) {
        if deep {
            load(plane.assumingMemoryBound(to: UInt16.self) + offset, halved: halved, into: row)
        } else {
            load(plane.assumingMemoryBound(to: UInt8.self) + offset, halved: halved, into: row)
        }
    }

    private static func load<Sample: BinaryInteger>(
        _ samples: UnsafePointer<Sample>, halved: Bool, into row: UnsafeMutableBufferPointer<Float>
    ) {
        let out = row.baseAddress!
        if halved {
            for x in 0..<row.count { out[x] = Float(samples[x >> 1]) }
        } else {
            for x in 0..<row.count { out[x] = Float(samples[x]) }
        }
    }
}
