/// Reads Truevision TGA files in Swift: the format is small and no library on the system reads
/// it. Every offset and length is checked against the data; a damaged file throws, never traps.
///
/// Handled: image types 1, 2 and 3 (colour-mapped, true-colour, grey) and their RLE forms 9, 10
/// and 11; true-colour at 15, 16, 24 and 32 bits (alpha from the fourth byte of a 32-bit pixel,
/// unless every pixel's is 0, which a writer that leaves it unset gives), grey at 8 bits (16:
/// grey and alpha), colour maps of 15-, 16-, 24- and 32-bit entries indexed by 8 or 16 bits; the
/// image descriptor's origin (bottom-left, the default, or top-left) and right-to-left order.
/// The TGA 2.0 footer and extension area are not needed for the pixels and are not read.
enum TGADecoder {
    /// What a TGA's 18-byte header says, read without decoding any pixel.
    struct Header {
        var width: Int
        var height: Int
        /// 1 colour-mapped, 2 true-colour, 3 grey; +8 for RLE.
        var imageType: Int
        /// Bits per stored pixel (or colour index).
        var pixelDepth: Int
        /// Rows run top to bottom (descriptor bit 5); the default is bottom to top.
        var topDown: Bool
        /// Pixels in a row run right to left (descriptor bit 4).
        var rightToLeft: Bool
        /// The colour map as RGBA quadruples (empty without one).
        var palette: [UInt8]
        /// The first index the colour map covers.
        var paletteFirst: Int
        /// Where the pixel data starts.
        var dataOffset: Int

        /// Whether the pixel data is run-length coded.
        var isRLE: Bool { imageType >= 9 }
        /// Whether the picture is grey (types 3 and 11).
        var isGrey: Bool { imageType & 7 == 3 }
        /// Whether the pixels may carry alpha: 32-bit true colour, 16-bit grey, or a colour
        /// map of 32-bit entries.
        var mayHaveAlpha: Bool {
            (imageType & 7 == 2 && pixelDepth == 32) || (isGrey && pixelDepth == 16)
                || (imageType & 7 == 1 && palette.count > 0 && paletteHasAlpha)
        }
        /// Whether a 32-bit colour map was read (its fourth byte is alpha).
        var paletteHasAlpha = false
        /// Bytes a stored pixel takes.
        var bytesPerPixel: Int { (pixelDepth + 7) / 8 }
    }

    /// The `input.corrupt` error for `path`, with what is wrong.
    private static func damaged(_ path: String, _ reason: String) -> ConvertError {
        ConvertError(code: .inputCorrupt, message: "\(path) is damaged or not a TGA image: \(reason).", path: path)
    }

    /// Whether `head` (a file's first bytes) is a header TGA allows: a known image type with a
    /// pixel depth it has, a colour map only where one belongs, a size, and no interleaving.
    static func plausibleHeader(_ head: [UInt8]) -> Bool {
        guard head.count >= 18 else { return false }
        let mapType = head[1]
        let type = Int(head[2])
        let depth = Int(head[16])
        let width = Int(head[12]) | Int(head[13]) << 8
        let height = Int(head[14]) | Int(head[15]) << 8
        guard mapType <= 1, [1, 2, 3, 9, 10, 11].contains(type), width > 0, height > 0, head[17] & 0xC0 == 0 else {
            return false
        }
        switch type & 7 {
        case 1: return mapType == 1 && (depth == 8 || depth == 16) && [15, 16, 24, 32].contains(Int(head[7]))
        case 2: return [15, 16, 24, 32].contains(depth)
        default: return depth == 8 || depth == 16
        }
    }

    /// Reads the header and colour map of the TGA held in `data`.
    static func header(_ data: [UInt8], path: String) throws(ConvertError) -> Header {
        guard plausibleHeader(data) else { throw damaged(path, "an image type, size or depth TGA does not have") }
        func u16(_ at: Int) -> Int { Int(data[at]) | Int(data[at + 1]) << 8 }
        let mapLength = data[1] == 1 ? u16(5) : 0
        let entryBits = Int(data[7])
        let mapStart = 18 + Int(data[0])
        let entryBytes = (entryBits + 7) / 8
        let dataOffset = mapStart + mapLength * entryBytes
        guard dataOffset <= data.count else { throw damaged(path, "the colour map is cut short") }
        var palette: [UInt8] = []
        if mapLength > 0 {
            palette.reserveCapacity(mapLength * 4)
            for index in 0..<mapLength {
                palette += rgba(data, at: mapStart + index * entryBytes, bits: entryBits)
            }
        }
        var header = Header(
            width: u16(12), height: u16(14), imageType: Int(data[2]), pixelDepth: Int(data[16]),
            topDown: data[17] & 0x20 != 0, rightToLeft: data[17] & 0x10 != 0, palette: palette,
            paletteFirst: data[1] == 1 ? u16(3) : 0, dataOffset: dataOffset)
        header.paletteHasAlpha = entryBits == 32
        if header.imageType & 7 == 1, palette.isEmpty { throw damaged(path, "a colour-mapped picture without a map") }
        return header
    }

    /// One true-colour pixel of `bits` bits at `offset` (BGR order, 5-5-5 for 15 and 16 bits)
    /// as R, G, B, A.
    private static func rgba(_ data: [UInt8], at offset: Int, bits: Int) -> [UInt8] {
        switch bits {
        case 15, 16:
            let value = Int(data[offset]) | Int(data[offset + 1]) << 8
            let five = { (shift: Int) -> UInt8 in
                let v = (value >> shift) & 0x1F
                return UInt8(v << 3 | v >> 2)
            }
            return [five(10), five(5), five(0), 255]
        case 24: return [data[offset + 2], data[offset + 1], data[offset], 255]
        default: return [data[offset + 2], data[offset + 1], data[offset], data[offset + 3]]
        }
    }

    /// Decodes the TGA held in `data` to 8-bit RGB, or RGBA when it has alpha. A picture over
    /// `maxPixels` is refused before anything is allocated for it; pixel data that ends early
    /// is `input.truncated`.
    static func decode(_ data: [UInt8], maxPixels: Int, path: String) throws(ConvertError) -> Bitmap {
        let header = try header(data, path: path)
        try PixelLimit.check(width: header.width, height: header.height, limit: maxPixels, path: path)
        let count = header.width * header.height
        let size = header.bytesPerPixel
        // A raw picture's bytes are checked before the picture is allocated.
        if !header.isRLE, data.count - header.dataOffset < count * size { throw truncated(path) }
        let stored = header.isRLE ? try expandRLE(data, header: header, path: path) : nil
        var pixels = [UInt8](repeating: 0, count: count * 4)
        for index in 0..<count {
            let offset = stored == nil ? header.dataOffset + index * size : index * size
            let quad = pixel(stored ?? data, at: offset, header: header)
            // Stored rows run bottom-up unless the descriptor says otherwise.
            let row = index / header.width
            let column = index % header.width
            let y = header.topDown ? row : header.height - 1 - row
            let x = header.rightToLeft ? header.width - 1 - column : column
            let target = (y * header.width + x) * 4
            for c in 0..<4 { pixels[target + c] = quad[quad.startIndex + c] }
        }
        let keepsAlpha = header.mayHaveAlpha && stride(from: 3, to: pixels.count, by: 4).contains { pixels[$0] != 0 }
        return Bitmap(
            width: header.width, height: header.height, channels: keepsAlpha ? 4 : 3,
            samples: .eight(keepsAlpha ? pixels : dropAlpha(pixels, count: count)), sourceBitDepth: 8)
    }

    /// One stored pixel at `offset` of `bytes` as R, G, B, A: a colour map entry (black for an
    /// index past the map), a true-colour pixel or a grey one.
    private static func pixel(_ bytes: [UInt8], at offset: Int, header: Header) -> ArraySlice<UInt8> {
        switch header.imageType & 7 {
        case 1:
            let raw = header.pixelDepth == 16 ? Int(bytes[offset]) | Int(bytes[offset + 1]) << 8 : Int(bytes[offset])
            let index = raw - header.paletteFirst
            guard index >= 0, index * 4 < header.palette.count else { return [0, 0, 0, 255] }
            return header.palette[index * 4..<index * 4 + 4]
        case 2:
            return rgba(bytes, at: offset, bits: header.pixelDepth)[0..<4]
        default:
            let grey = bytes[offset]
            return [grey, grey, grey, header.pixelDepth == 16 ? bytes[offset + 1] : 255]
        }
    }

    /// The stored pixels of an RLE picture, expanded: packets of a repeated pixel or of literal
    /// ones, never past the picture's size nor the data's end.
    private static func expandRLE(_ data: [UInt8], header: Header, path: String) throws(ConvertError) -> [UInt8] {
        let size = header.bytesPerPixel
        let total = header.width * header.height * size
        // Each packet of at most 128 pixels takes at least 1 + size bytes: a header claiming a
        // picture its data cannot hold is refused before the picture is allocated.
        guard (data.count - header.dataOffset) / (1 + size) * 128 * size >= total else { throw truncated(path) }
        var out = [UInt8]()
        out.reserveCapacity(total)
        var at = header.dataOffset
        while out.count < total {
            guard at < data.count else { throw truncated(path) }
            let packet = Int(data[at])
            let length = (packet & 0x7F) + 1
            at += 1
            let bytes = min(length * size, total - out.count)
            if packet & 0x80 != 0 {
                guard at + size <= data.count else { throw truncated(path) }
                let value = data[at..<at + size]
                for _ in 0..<bytes / size { out += value }
                at += size
            } else {
                guard at + bytes <= data.count else { throw truncated(path) }
                out += data[at..<at + bytes]
                at += length * size
            }
        }
        return out
    }

    /// RGB from RGBA pixels.
    private static func dropAlpha(_ pixels: [UInt8], count: Int) -> [UInt8] {
        var rgb = [UInt8](repeating: 0, count: count * 3)
        for i in 0..<count {
            rgb[i * 3] = pixels[i * 4]
            rgb[i * 3 + 1] = pixels[i * 4 + 1]
            rgb[i * 3 + 2] = pixels[i * 4 + 2]
        }
        return rgb
    }

    /// The `input.truncated` error of a file whose pixel data stops early.
    private static func truncated(_ path: String) -> ConvertError {
        ConvertError(code: .inputTruncated, message: "\(path) is damaged: the TGA is cut short.", path: path)
    }
}
