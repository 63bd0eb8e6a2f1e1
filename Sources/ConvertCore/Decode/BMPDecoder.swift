/// Reads Windows and OS/2 bitmaps (BMP, DIB) in Swift: no library has a BMP reader worth a
/// dependency, and the format is small. Every offset and length is checked against the data;
/// a damaged file throws `.input`, never traps.
///
/// Handled: BITMAPCOREHEADER (12 bytes), BITMAPINFOHEADER (40, and OS/2's 64 and 16 read as it),
/// its V2 (52), V3 (56), V4 (108) and V5 (124) extensions; 1/4/8-bit palettes, RLE8 and RLE4,
/// 16-bit (5-5-5 by default, any masks with BI_BITFIELDS), 24-bit and 32-bit; bottom-up and
/// top-down (negative height) rows; a V5 header's embedded ICC profile; an OS/2 bitmap array
/// (`BA`: bitmaps of several sizes for several displays), read as its largest bitmap. JPEG and
/// PNG inside a BMP (compression 4 and 5, meant for printers) are refused as unsupported.
///
/// Pixels an RLE stream never writes (skipped by a delta or an early end of line or bitmap) are
/// palette index 0, as Windows GDI, Pillow and FFmpeg leave them: the picture stays opaque RGB,
/// and the result matches what other readers show.
enum BMPDecoder {
    /// Compression values of the info header's `biCompression`.
    fileprivate enum Compression: UInt32 {
        case rgb = 0, rle8 = 1, rle4 = 2, bitfields = 3, jpeg = 4, png = 5, alphaBitfields = 6
    }

    /// What a bitmap's headers say, read without decoding any pixel (for `info` and a batch's cost).
    struct Header {
        var width: Int
        /// Always positive; ``topDown`` records the sign the file gave.
        var height: Int
        var topDown: Bool
        var bitCount: Int
        fileprivate var compression: Compression
        /// Red, green, blue and alpha masks for 16- and 32-bit pixels (alpha 0: none).
        var masks: (red: UInt32, green: UInt32, blue: UInt32, alpha: UInt32)
        /// Palette entries as RGB triples.
        var palette: [UInt8]
        /// Where the pixel data starts in the file.
        var dataOffset: Int
        /// The V5 header's embedded profile (PROFILE_EMBEDDED).
        var icc: [UInt8]?
        /// How many bitmaps the file holds: 1, or an OS/2 bitmap array's count (this one the largest).
        var bitmapCount = 1

        /// Whether the pixels may carry alpha (a mask says so; an all-zero channel is then
        /// read as opaque).
        var mayHaveAlpha: Bool { masks.alpha != 0 && (bitCount == 16 || bitCount == 32) }

        /// Bytes per stored row of an uncompressed bitmap: rows are padded to 4 bytes.
        var rowStride: Int { (bitCount * width + 31) / 32 * 4 }
    }

    /// A decoded bitmap and, for a file cut short and read anyway, the note saying so.
    struct Decoded {
        var bitmap: Bitmap
        var damage: String?
        /// How many bitmaps the file holds (an OS/2 bitmap array's; this is the largest).
        var bitmapCount = 1

        /// The note for an OS/2 bitmap array of several bitmaps, nil for one.
        var arrayNote: String? {
            bitmapCount > 1
                ? "an OS/2 bitmap array of \(bitmapCount) bitmaps: the largest (\(bitmap.width)x\(bitmap.height)) converted"
                : nil
        }
    }

    /// The `input.corrupt` error for `path`, with what is wrong.
    private static func damaged(_ path: String, _ reason: String) -> ConvertError {
        ConvertError(code: .inputCorrupt, message: "\(path) is damaged or not a BMP image: \(reason).", path: path)
    }

    /// The sizes of the info headers read (OS/2 2.x's BITMAPINFOHEADER2 may stop after 16 bytes).
    static let infoHeaderSizes = [12, 16, 40, 52, 56, 64, 108, 124]

    /// Reads the file and info headers, the masks and the palette of the BMP held in `data` (of
    /// an OS/2 bitmap array, its largest bitmap's).
    static func header(_ data: [UInt8], path: String) throws(ConvertError) -> Header {
        guard data.count >= 2, data[0] == 0x42, data[1] == 0x41 else { return try header(data, at: 0, path: path) }
        // OS/2 bitmap array: 14-byte `BA` headers chained by offNext (from the file's start),
        // each followed by a bitmap's file header; the bitmaps' offsets count from the file's start.
        var offset = 0
        var members: [Header] = []
        var visited = Set<Int>()
        while members.count < 64, offset + 14 <= data.count, data[offset] == 0x42, data[offset + 1] == 0x41,
            visited.insert(offset).inserted
        {
            let next = (0..<4).reduce(0) { $0 | Int(data[offset + 6 + $1]) << (8 * $1) }
            let member = offset + 14
            guard member + 2 <= data.count else { break }
            if data[member] == 0x42, data[member + 1] == 0x4D {
                members.append(try header(data, at: member, path: path))
            } else {
                let kind = String(decoding: data[member..<member + 2], as: UTF8.self)
                throw ConvertError(
                    code: .inputUnsupportedFeature,
                    message:
                        "\(path) is an OS/2 bitmap array holding icons or pointers ('\(kind)'), which offconvert does not read.",
                    path: path)
            }
            guard next > offset else { break }
            offset = next
        }
        guard
            var largest = members.max(by: { ($0.width * $0.height, $0.bitCount) < ($1.width * $1.height, $1.bitCount) })
        else { throw damaged(path, "an OS/2 bitmap array without a bitmap") }
        largest.bitmapCount = members.count
        return largest
    }

    /// Reads the headers of the bitmap whose file header starts at `base` in `data` (0, or a
    /// member of an OS/2 bitmap array, whose offsets count from the start of `data` too).
    private static func header(_ data: [UInt8], at base: Int, path: String) throws(ConvertError) -> Header {
        func u16(_ at: Int) -> Int { Int(data[base + at]) | Int(data[base + at + 1]) << 8 }
        func u32(_ at: Int) -> UInt32 { (0..<4).reduce(0) { $0 | UInt32(data[base + at + $1]) << (8 * UInt32($1)) } }
        func i32(_ at: Int) -> Int { Int(Int32(bitPattern: u32(at))) }
        guard data.count >= base + 18, data[base] == 0x42, data[base + 1] == 0x4D else {
            throw damaged(path, "no BMP header")
        }
        let dataOffset = Int(u32(10))
        let infoSize = Int(u32(14))
        guard infoHeaderSizes.contains(infoSize) else {
            throw damaged(path, "unknown header size \(infoSize)")
        }
        guard data.count >= base + 14 + infoSize else { throw damaged(path, "the header is cut short") }
        let width: Int
        let signedHeight: Int
        let bitCount: Int
        let planes: Int
        var compression = Compression.rgb
        var colorsUsed = 0
        if infoSize == 12 {
            width = u16(18)
            signedHeight = u16(20)
            planes = u16(22)
            bitCount = u16(24)
        } else {
            width = i32(18)
            signedHeight = i32(22)
            planes = u16(26)
            bitCount = u16(28)
            // OS/2's BITMAPINFOHEADER2 may end after 16 bytes: the fields it leaves out are 0.
            let raw = infoSize > 16 ? u32(30) : 0
            // OS/2's 64-byte header gives 3 and 4 other meanings (Huffman 1D, RLE24); refused.
            guard let known = Compression(rawValue: raw), !(infoSize == 64 && raw >= 3) else {
                throw ConvertError(
                    code: .inputUnsupportedFeature,
                    message: "\(path) is a BMP compressed in a way offconvert does not read (compression \(raw)).",
                    path: path)
            }
            compression = known
            colorsUsed = infoSize >= 40 ? Int(u32(46)) : 0
        }
        guard planes == 1 else { throw damaged(path, "\(planes) planes") }
        guard width > 0, signedHeight != 0 else { throw damaged(path, "a picture \(width)x\(signedHeight) pixels") }
        if compression == .jpeg || compression == .png {
            throw ConvertError(
                code: .inputUnsupportedFeature,
                message:
                    "\(path) is a BMP holding a \(compression == .jpeg ? "JPEG" : "PNG") picture, which offconvert does not read.",
                path: path)
        }
        let valid: Bool
        switch compression {
        case .rgb: valid = [1, 4, 8, 16, 24, 32].contains(bitCount)
        case .rle8: valid = bitCount == 8
        case .rle4: valid = bitCount == 4
        case .bitfields, .alphaBitfields: valid = bitCount == 16 || bitCount == 32
        case .jpeg, .png: valid = false
        }
        guard valid else { throw damaged(path, "\(bitCount) bits per pixel with compression \(compression.rawValue)") }
        // Masks: in the header from V2 on (alpha from V3); after a 40-byte header when it says
        // BI_BITFIELDS (three) or BI_ALPHABITFIELDS (four).
        var masks: (red: UInt32, green: UInt32, blue: UInt32, alpha: UInt32) =
            bitCount == 16 ? (0x7C00, 0x03E0, 0x001F, 0) : (0xFF_0000, 0xFF00, 0xFF, 0)
        var paletteStart = base + 14 + infoSize
        if compression == .bitfields || compression == .alphaBitfields {
            if infoSize == 40 {
                let count = compression == .alphaBitfields ? 4 : 3
                guard data.count >= base + 54 + 4 * count else {
                    throw damaged(path, "the colour masks are cut short")
                }
                masks = (u32(54), u32(58), u32(62), count == 4 ? u32(66) : 0)
                paletteStart += 4 * count
            } else if infoSize >= 52 {
                masks = (u32(54), u32(58), u32(62), infoSize >= 56 ? u32(66) : 0)
            }
        } else if infoSize >= 56, infoSize != 64, bitCount == 32 || bitCount == 16 {
            // A V3+ header's alpha mask counts with BI_RGB too (as browsers read it); the colour
            // masks stay the defaults BI_RGB fixes. (OS/2's 64-byte header has other fields there.)
            masks.alpha = u32(66)
        }
        for mask in [masks.red, masks.green, masks.blue] where mask == 0 && bitCount > 8 {
            throw damaged(path, "an empty colour mask")
        }
        var palette: [UInt8] = []
        if bitCount <= 8 {
            let entrySize = infoSize == 12 ? 3 : 4
            let declared = colorsUsed > 0 ? colorsUsed : 1 << bitCount
            // The palette ends where the pixels start (or the file does); a count past either
            // is damage, read as far as it goes.
            let end = min(data.count, dataOffset > paletteStart ? dataOffset : data.count)
            let count = min(declared, 1 << bitCount, max(0, (end - paletteStart) / entrySize))
            guard count > 0 else { throw damaged(path, "the palette is missing") }
            palette.reserveCapacity(count * 3)
            for index in 0..<count {
                let at = paletteStart + index * entrySize
                palette += [data[at + 2], data[at + 1], data[at]]
            }
        }
        var icc: [UInt8]?
        // bV5CSType 'MBED' (PROFILE_EMBEDDED): bV5ProfileData is an offset from the info header.
        if infoSize == 124, u32(70) == 0x4D42_4544 {
            let offset = base + 14 + Int(u32(126))
            let size = Int(u32(130))
            if size > 0, offset <= data.count, size <= data.count - offset {
                icc = Array(data[offset..<offset + size])
            }
        }
        guard dataOffset >= base + 14 + infoSize, dataOffset < data.count else {
            throw damaged(path, "the pixel data is missing")
        }
        return Header(
            width: width, height: abs(signedHeight), topDown: signedHeight < 0, bitCount: bitCount,
            compression: compression,
            masks: masks, palette: palette, dataOffset: dataOffset, icc: icc)
    }

    /// Decodes the BMP held in `data` to 8-bit RGB (RGBA when an alpha mask gives any pixel
    /// alpha). A picture over `maxPixels` is refused before anything is allocated for it. With
    /// `tolerateCut`, a file that ends inside its pixel data is decoded as far as it goes, the
    /// missing rows grey, and ``Decoded/damage`` says so; otherwise it is `input.truncated`. An
    /// RLE stream that sets no pixel is read as Windows reads it (the palette's first colour),
    /// with a note, or refused without `tolerateCut`.
    static func decode(_ data: [UInt8], maxPixels: Int, path: String, tolerateCut: Bool) throws(ConvertError) -> Decoded
    {
        let header = try header(data, path: path)
        try PixelLimit.check(width: header.width, height: header.height, limit: maxPixels, path: path)
        let rowsPresent: Int
        let rgba: [UInt8]
        var empty: String?
        switch header.compression {
        case .rle8, .rle4:
            let decoded = decodeRLE(data, header: header)
            rgba = decoded.pixels
            rowsPresent = decoded.rowsReached
            guard rowsPresent > 0 else { throw truncated(path) }
            if !decoded.pixelsWritten {
                // An RLE stream that ends (or skips to the end) before it sets one pixel: Windows
                // and Pillow show the palette's first colour everywhere, so does offconvert, saying why.
                guard tolerateCut else {
                    throw ConvertError(
                        code: .inputCorrupt, message: "\(path) is damaged: its RLE data holds no pixels.", path: path)
                }
                empty = "its RLE data holds no pixels: every pixel is the palette's first colour, as Windows shows it"
            }
        default:
            // Count the whole rows the file holds before allocating: a header claiming a large
            // picture in a small file costs nothing.
            rowsPresent = min(header.height, (data.count - header.dataOffset) / header.rowStride)
            guard rowsPresent > 0 else { throw truncated(path) }
            rgba = decodeRows(data, header: header, rows: rowsPresent)
        }
        let missing = header.height - rowsPresent
        if missing > 0 && !tolerateCut { throw truncated(path) }
        // Judged before grey fills the missing rows, whose alpha is 255.
        let keepsAlpha = header.mayHaveAlpha && stride(from: 3, to: rgba.count, by: 4).contains { rgba[$0] != 0 }
        var pixels = rgba
        if missing > 0 {
            // Stored rows run bottom-up unless the height is negative: the rows never read are
            // the top of the picture in the usual case.
            let rows = header.topDown ? rowsPresent..<header.height : 0..<missing
            for index in (rows.lowerBound * header.width * 4)..<(rows.upperBound * header.width * 4) {
                pixels[index] = index % 4 == 3 ? 255 : 128
            }
        }
        let count = header.width * header.height
        let samples: [UInt8]
        if keepsAlpha {
            samples = pixels
        } else {
            // No alpha, or an all-zero channel (a writer that left the padding byte at 0): opaque.
            var rgb = [UInt8](repeating: 0, count: count * 3)
            for i in 0..<count {
                rgb[i * 3] = pixels[i * 4]
                rgb[i * 3 + 1] = pixels[i * 4 + 1]
                rgb[i * 3 + 2] = pixels[i * 4 + 2]
            }
            samples = rgb
        }
        let bitmap = Bitmap(
            width: header.width, height: header.height, channels: keepsAlpha ? 4 : 3, samples: .eight(samples),
            sourceBitDepth: 8, icc: header.icc)
        return Decoded(
            bitmap: bitmap,
            damage: missing > 0
                ? cutNote(missingRows: missing, height: header.height, topDown: header.topDown) : empty,
            bitmapCount: header.bitmapCount)
    }

    /// The `input.truncated` error of a file whose pixel data stops early.
    private static func truncated(_ path: String) -> ConvertError {
        ConvertError(code: .inputTruncated, message: "\(path) is damaged: the BMP is cut short.", path: path)
    }

    /// The note for a BMP cut short, worded as for a PNG (``PNGCodec/cutNote(missingRows:height:)``)
    /// but naming the edge that is missing: a bottom-up bitmap loses its top.
    static func cutNote(missingRows: Int, height: Int, topDown: Bool) -> String {
        let percent = max(1, Int((Double(missingRows) * 100 / Double(max(1, height))).rounded()))
        return
            "the file ends early (an interrupted copy or download): the \(topDown ? "bottom" : "top") \(percent)% of the picture is missing (shown grey)"
    }

    /// The first `rows` stored rows of an uncompressed bitmap as RGBA in display order (top row
    /// first); the caller checked that they are all in `data`. Alpha is 0 unless a mask gives it.
    private static func decodeRows(_ data: [UInt8], header: Header, rows: Int) -> [UInt8] {
        let width = header.width
        let height = header.height
        var out = [UInt8](repeating: 0, count: width * height * 4)
        let palette = header.palette
        let paletteCount = palette.count / 3
        let red = Channel(header.masks.red)
        let green = Channel(header.masks.green)
        let blue = Channel(header.masks.blue)
        let alpha = Channel(header.masks.alpha)
        for stored in 0..<rows {
            let y = header.topDown ? stored : height - 1 - stored
            let row = header.dataOffset + stored * header.rowStride
            var target = y * width * 4
            for x in 0..<width {
                switch header.bitCount {
                case 1, 4, 8:
                    let bits = header.bitCount
                    let bitOffset = x * bits
                    let byte = Int(data[row + bitOffset / 8])
                    let index = (byte >> (8 - bits - bitOffset % 8)) & ((1 << bits) - 1)
                    // An index past a short palette is black, as other readers show it.
                    if index < paletteCount {
                        out[target] = palette[index * 3]
                        out[target + 1] = palette[index * 3 + 1]
                        out[target + 2] = palette[index * 3 + 2]
                    }
                case 24:
                    let at = row + x * 3
                    out[target] = data[at + 2]
                    out[target + 1] = data[at + 1]
                    out[target + 2] = data[at]
                default:
                    let at = row + x * (header.bitCount / 8)
                    var value = UInt32(data[at]) | UInt32(data[at + 1]) << 8
                    if header.bitCount == 32 { value |= UInt32(data[at + 2]) << 16 | UInt32(data[at + 3]) << 24 }
                    out[target] = red.value(value)
                    out[target + 1] = green.value(value)
                    out[target + 2] = blue.value(value)
                    out[target + 3] = alpha.value(value)
                }
                target += 4
            }
        }
        return out
    }

    /// One colour mask: where its bits are and how many, to scale a field to 0...255.
    private struct Channel {
        let mask: UInt32
        let shift: UInt32
        let maximum: UInt32

        init(_ mask: UInt32) {
            self.mask = mask
            shift = mask == 0 ? 0 : UInt32(mask.trailingZeroBitCount)
            maximum = mask >> shift
        }

        /// The field of `pixel` scaled to 8 bits, rounded (5 bits: 31 → 255); 0 for no mask.
        func value(_ pixel: UInt32) -> UInt8 {
            guard maximum > 0 else { return 0 }
            let field = UInt64((pixel & mask) >> shift)
            return UInt8(truncatingIfNeeded: (field * 255 + UInt64(maximum) / 2) / UInt64(maximum))
        }
    }

    /// Decodes an RLE8 or RLE4 stream to RGBA (alpha 0: never used). Returns the pixels and how
    /// many stored rows the stream reached before it ended: all of them after an end-of-bitmap
    /// escape, fewer when the file stops first.
    private static func decodeRLE(_ data: [UInt8], header: Header) -> (
        pixels: [UInt8], rowsReached: Int, pixelsWritten: Bool
    ) {
        let width = header.width
        let height = header.height
        let palette = header.palette
        let paletteCount = palette.count / 3
        // Index 0 everywhere first: what skipped pixels show (see the type's documentation).
        var out = [UInt8](repeating: 0, count: width * height * 4)
        if paletteCount > 0 {
            for pixel in 0..<(width * height) {
                out[pixel * 4] = palette[0]
                out[pixel * 4 + 1] = palette[1]
                out[pixel * 4 + 2] = palette[2]
            }
        }
        var written = false
        func put(_ x: Int, _ stored: Int, _ index: Int) {
            guard x < width, stored < height, index < paletteCount else { return }
            written = true
            let y = header.topDown ? stored : height - 1 - stored
            let target = (y * width + x) * 4
            out[target] = palette[index * 3]
            out[target + 1] = palette[index * 3 + 1]
            out[target + 2] = palette[index * 3 + 2]
        }
        let four = header.compression == .rle4
        var position = header.dataOffset
        var x = 0
        var row = 0
        while row < height {
            guard position + 1 < data.count else { return (out, row, written) }
            let count = Int(data[position])
            let value = Int(data[position + 1])
            position += 2
            if count > 0 {
                // An encoded run: one index (RLE8) or two alternating (RLE4), `count` pixels.
                for i in 0..<count {
                    put(x + i, row, four ? (i % 2 == 0 ? value >> 4 : value & 0x0F) : value)
                }
                x += count
                continue
            }
            switch value {
            case 0:
                x = 0
                row += 1
            case 1:
                return (out, height, written)
            case 2:
                guard position + 1 < data.count else { return (out, row, written) }
                x += Int(data[position])
                row += Int(data[position + 1])
                position += 2
            default:
                // An absolute run of `value` indices, padded to a 16-bit boundary.
                let bytes = four ? (value + 1) / 2 : value
                guard position + bytes <= data.count else { return (out, row, written) }
                for i in 0..<value {
                    let index: Int
                    if four {
                        let byte = Int(data[position + i / 2])
                        index = i % 2 == 0 ? byte >> 4 : byte & 0x0F
                    } else {
                        index = Int(data[position + i])
                    }
                    put(x + i, row, index)
                }
                x += value
                position += bytes + bytes % 2
            }
        }
        // Rows ran out (a delta past the top, or lines without an end-of-bitmap): all reached.
        return (out, height, written)
    }
}
