/// Reads Windows icons and cursors (ICO, CUR): the directory's largest picture (the most pixels,
/// then the most bits a pixel), which is a PNG (decoded by libpng, as any PNG input) or a DIB: a
/// bitmap without its file header, twice as tall as the picture, whose colours are followed by a
/// 1-bit AND mask. The DIB's colours are decoded by ``BMPDecoder``; its alpha is the fourth byte
/// of a 32-bit pixel, or else the AND mask (1: transparent). Every offset and length is checked
/// against the data; a damaged file throws, never traps.
enum ICODecoder {
    /// One entry of the icon directory.
    struct Entry {
        /// The picture's size as the directory gives it (a 0 byte is 256).
        var width: Int
        var height: Int
        var bitCount: Int
        /// Where the entry's PNG or DIB lies in the file.
        var offset: Int
        var length: Int
    }

    /// What the directory says, read without decoding any pixel.
    struct Header {
        /// Whether the file is a cursor (type 2).
        var isCursor: Bool
        /// How many pictures the file holds.
        var count: Int
        /// The picture that is decoded.
        var largest: Entry
        /// Whether it is a PNG (otherwise a DIB).
        var isPNG: Bool
        /// The picture's size: a PNG's or DIB's own, which a directory byte cannot give past 256.
        var width: Int
        var height: Int
    }

    /// The `input.corrupt` error for `path`, with what is wrong.
    private static func damaged(_ path: String, _ reason: String) -> ConvertError {
        ConvertError(code: .inputCorrupt, message: "\(path) is damaged or not an icon: \(reason).", path: path)
    }

    private static func u16(_ data: [UInt8], _ at: Int) -> Int { Int(data[at]) | Int(data[at + 1]) << 8 }
    private static func u32(_ data: [UInt8], _ at: Int) -> Int { u16(data, at) | u16(data, at + 2) << 16 }

    /// Reads the directory of the icon held in `data` and picks its largest picture.
    static func header(_ data: [UInt8], path: String) throws(ConvertError) -> Header {
        guard data.count >= 6, u16(data, 0) == 0, [1, 2].contains(u16(data, 2)) else {
            throw damaged(path, "no icon directory")
        }
        let count = u16(data, 4)
        guard count > 0, data.count >= 6 + 16 * count else { throw damaged(path, "the directory is cut short") }
        var entries: [Entry] = []
        for index in 0..<count {
            let at = 6 + 16 * index
            let entry = Entry(
                width: data[at] == 0 ? 256 : Int(data[at]), height: data[at + 1] == 0 ? 256 : Int(data[at + 1]),
                bitCount: u16(data, at + 6), offset: u32(data, at + 12), length: u32(data, at + 8))
            // An entry pointing past the file is skipped (damaged), not read.
            if entry.offset >= 6 + 16 * count, entry.length >= 12, entry.offset <= data.count,
                entry.length <= data.count - entry.offset
            {
                entries.append(entry)
            }
        }
        guard
            let largest = entries.max(by: { ($0.width * $0.height, $0.bitCount) < ($1.width * $1.height, $1.bitCount) })
        else { throw damaged(path, "no picture lies within the file") }
        let body = Array(data[largest.offset..<largest.offset + largest.length])
        let isPNG = body.starts(with: [0x89, 0x50, 0x4E, 0x47])
        var size = (width: largest.width, height: largest.height)
        if isPNG {
            let png = try PNGCodec.header(body, path: path)
            size = (png.width, png.height)
        } else if body.count >= 16, u32(body, 0) >= 40 {
            size = (u32(body, 4), u32(body, 8) / 2)
        }
        return Header(
            isCursor: u16(data, 2) == 2, count: count, largest: largest, isPNG: isPNG, width: size.width,
            height: size.height)
    }

    /// Decodes the largest picture of the icon held in `data` to 8-bit RGBA (RGB when every
    /// pixel is opaque), refusing one over `maxPixels` before allocating it.
    static func decode(_ data: [UInt8], maxPixels: Int, path: String) throws(ConvertError) -> Bitmap {
        let header = try header(data, path: path)
        let entry = header.largest
        let body = Array(data[entry.offset..<entry.offset + entry.length])
        if header.isPNG { return try PNGCodec.decode(body, maxPixels: maxPixels, path: path).bitmap }
        return try decodeDIB(body, maxPixels: maxPixels, path: path)
    }

    /// A DIB entry: its colours through ``BMPDecoder`` (behind a made-up file header, its height
    /// halved), then its alpha.
    private static func decodeDIB(_ dib: [UInt8], maxPixels: Int, path: String) throws(ConvertError) -> Bitmap {
        let infoSize = u32(dib, 0)
        guard infoSize >= 40, dib.count >= infoSize else { throw damaged(path, "an icon bitmap without its header") }
        let width = u32(dib, 4)
        let height = Int(Int32(truncatingIfNeeded: u32(dib, 8))) / 2
        let bitCount = u16(dib, 14)
        guard width > 0, width < 1 << 16, height > 0, [1, 4, 8, 24, 32].contains(bitCount) else {
            throw damaged(path, "an icon bitmap of \(width)x\(height) at \(bitCount) bits")
        }
        try PixelLimit.check(width: width, height: height, limit: maxPixels, path: path)
        let colorsUsed = u32(dib, 32)
        let paletteBytes = bitCount <= 8 ? 4 * (colorsUsed > 0 ? min(colorsUsed, 1 << bitCount) : 1 << bitCount) : 0
        let xorStart = infoSize + paletteBytes
        let xorStride = (bitCount * width + 31) / 32 * 4
        let maskStride = (width + 31) / 32 * 4
        guard xorStart + xorStride * height <= dib.count else { throw truncated(path) }
        var info = Array(dib)
        let halved = UInt32(height)
        for byte in 0..<4 { info[8 + byte] = UInt8(truncatingIfNeeded: halved >> (8 * UInt32(byte))) }
        let offset = 14 + xorStart
        let size = 14 + info.count
        var file: [UInt8] = [0x42, 0x4D]
        for value in [size, 0, offset] { file += (0..<4).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) } }
        let colours = try BMPDecoder.decode(file + info, maxPixels: maxPixels, path: path, tolerateCut: false).bitmap
        var rgba = colours.withAlpha().eightBitSamples
        // A 32-bit picture's own alpha; an all-zero one (an old 32-bit icon) defers to the mask.
        var hasOwnAlpha = false
        if bitCount == 32 {
            for row in 0..<height {
                for x in 0..<width {
                    let alpha = dib[xorStart + row * xorStride + x * 4 + 3]
                    rgba[((height - 1 - row) * width + x) * 4 + 3] = alpha
                    hasOwnAlpha = hasOwnAlpha || alpha != 0
                }
            }
        }
        let maskStart = xorStart + xorStride * height
        if !hasOwnAlpha, maskStart + maskStride * height <= dib.count {
            for row in 0..<height {
                for x in 0..<width {
                    let bit = dib[maskStart + row * maskStride + x / 8] >> (7 - UInt8(x % 8)) & 1
                    rgba[((height - 1 - row) * width + x) * 4 + 3] = bit == 1 ? 0 : 255
                }
            }
        } else if !hasOwnAlpha {
            for index in stride(from: 3, to: rgba.count, by: 4) { rgba[index] = 255 }
        }
        let bitmap = Bitmap(width: width, height: height, channels: 4, samples: .eight(rgba), sourceBitDepth: 8)
        return bitmap.hasTransparency ? bitmap : bitmap.flattened(onto: .white)
    }

    /// The `input.truncated` error of an icon whose bitmap stops early.
    private static func truncated(_ path: String) -> ConvertError {
        ConvertError(code: .inputTruncated, message: "\(path) is damaged: the icon's bitmap is cut short.", path: path)
    }
}
