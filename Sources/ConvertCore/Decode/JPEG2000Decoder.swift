/// Reads JPEG 2000 pictures through OpenJPEG (``OpenJPEGDecoder``): a JP2 or JPX file (the
/// signature box first) or a bare J2K/J2C codestream. One component is grey, two grey and
/// alpha, three RGB (or sYCC, turned to RGB as `opj_decompress` does), four RGBA; a component
/// stored at a lower resolution (subsampled chroma) is spread over the picture's grid.
/// Precisions up to 8 bits give an 8-bit bitmap, up to 16 a 16-bit one scaled to the full range.
/// A CMYK picture, or one of more than 16 bits, is refused as unsupported; a damaged codestream
/// is `input.corrupt` with OpenJPEG's reason, never an abort.
enum JPEG2000Decoder {
    /// What the header says, read without decoding any pixel.
    typealias Header = OpenJPEGDecoder.Header

    /// Whether `data` is a JP2/JPX file (starts with the signature box) rather than a codestream.
    private static func isBoxed(_ data: [UInt8]) -> Bool {
        data.starts(with: [0, 0, 0, 0x0C, 0x6A, 0x50, 0x20, 0x20])
    }

    /// Reads the header of the JPEG 2000 picture in `data`.
    static func header(_ data: [UInt8], path: String) throws(ConvertError) -> Header {
        try OpenJPEGDecoder(data, boxed: isBoxed(data), path: path).header
    }

    /// Decodes the JPEG 2000 picture in `data`, refusing one over `maxPixels` (or one OpenJPEG's
    /// components would need more memory for than the ceiling allows) before decoding.
    static func decode(_ data: [UInt8], maxPixels: Int, path: String) throws(ConvertError) -> Bitmap {
        let decoder = try OpenJPEGDecoder(data, boxed: isBoxed(data), path: path)
        let header = decoder.header
        try PixelLimit.check(width: header.width, height: header.height, limit: maxPixels, path: path)
        // OpenJPEG holds every component as 32-bit samples while it decodes.
        try PixelLimit.check(
            width: header.width, height: header.height * max(1, header.componentCount), limit: maxPixels * 4,
            path: path)
        if header.colorSpace == 5 || header.precision > 16 {
            throw ConvertError(
                code: .inputUnsupportedFeature,
                message:
                    "\(path) is a JPEG 2000 image \(header.colorSpace == 5 ? "in CMYK" : "of \(header.precision)-bit samples"), which offconvert does not read.",
                path: path)
        }
        let components = try decoder.decode()
        return bitmap(components, header: header)
    }

    /// The bitmap of decoded `components` on the grid of the first.
    private static func bitmap(_ components: [OpenJPEGDecoder.Component], header: Header) -> Bitmap {
        let first = components[0]
        let (width, height) = (first.width, first.height)
        let colour = components.count >= 3 ? 3 : 1
        let hasAlpha = components.count == 2 || components.count >= 4
        let channels = hasAlpha ? 4 : 3
        let wide = header.precision > 8
        let top = wide ? 65535 : 255
        // opj_decompress's guess: three components with subsampled chroma and no colour space are sYCC.
        let sycc =
            colour == 3
            && (header.colorSpace == 3
                || (header.colorSpace == 0 && components[1].width < width && components[0].width == width))
        /// Component `c`'s sample under picture pixel (x, y), unsigned, as a fraction of its range.
        func sample(_ c: Int, _ x: Int, _ y: Int) -> Double {
            let component = components[c]
            let cx = min(component.width - 1, x * component.width / width)
            let cy = min(component.height - 1, y * component.height / height)
            var value = Int(component.samples[cy * component.width + cx])
            let range = (1 << component.precision) - 1
            if component.signed { value += 1 << (component.precision - 1) }
            return Double(min(max(value, 0), range)) / Double(range)
        }
        var out = [UInt16](repeating: 0, count: width * height * channels)
        let scale = { (value: Double) -> UInt16 in UInt16((min(max(value, 0), 1) * Double(top)).rounded()) }
        for y in 0..<height {
            for x in 0..<width {
                let base = (y * width + x) * channels
                if colour == 3 {
                    var rgb = [sample(0, x, y), sample(1, x, y), sample(2, x, y)]
                    if sycc {
                        let (luma, cb, cr) = (rgb[0], rgb[1] - 0.5, rgb[2] - 0.5)
                        rgb = [luma + 1.402 * cr, luma - 0.344136 * cb - 0.714136 * cr, luma + 1.772 * cb]
                    }
                    for c in 0..<3 { out[base + c] = scale(rgb[c]) }
                } else {
                    let grey = scale(sample(0, x, y))
                    (out[base], out[base + 1], out[base + 2]) = (grey, grey, grey)
                }
                if hasAlpha { out[base + 3] = scale(sample(components.count == 2 ? 1 : 3, x, y)) }
            }
        }
        let samples: Bitmap.Samples = wide ? .sixteen(out) : .eight(out.map { UInt8(truncatingIfNeeded: $0) })
        return Bitmap(
            width: width, height: height, channels: channels, samples: samples, sourceBitDepth: wide ? 16 : 8,
            icc: header.icc)
    }
}
