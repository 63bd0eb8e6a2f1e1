/// Reads Netpbm pictures in Swift: PBM, PGM and PPM in their plain (P1, P2, P3) and raw (P4, P5,
/// P6) forms, and PAM (P7) with the tuple types BLACKANDWHITE, GRAYSCALE, RGB and their _ALPHA
/// forms. Samples with a maxval over 255 (up to 65535, two bytes big-endian) give a 16-bit
/// bitmap; any other maxval is scaled to the full 8- or 16-bit range. `#` comments are allowed
/// wherever a header has whitespace. Every length is checked against the data; a damaged file
/// throws, never traps. A file holding several pictures gives its first.
enum PNMDecoder {
    /// What a Netpbm header says, read without decoding any pixel.
    struct Header {
        /// The magic number's digit, 1...7.
        var kind: Int
        var width: Int
        var height: Int
        /// Samples a pixel: 1 (grey or bits), 2 (grey and alpha), 3 (RGB), 4 (RGBA).
        var depth: Int
        /// The largest sample value (1 for PBM).
        var maxval: Int
        /// Where the raster starts.
        var dataOffset: Int

        /// Whether the picture has an alpha channel.
        var hasAlpha: Bool { depth == 2 || depth == 4 }
        /// Whether the picture is grey (or black and white).
        var isGrey: Bool { depth <= 2 }
        /// Bits a sample needs to hold maxval.
        var bitDepth: Int { Int.bitWidth - maxval.leadingZeroBitCount }
        /// Whether the raster is ASCII numbers (P1, P2, P3).
        var isPlain: Bool { kind <= 3 }
    }

    /// The `input.corrupt` error for `path`, with what is wrong.
    private static func damaged(_ path: String, _ reason: String) -> ConvertError {
        ConvertError(code: .inputCorrupt, message: "\(path) is damaged or not a Netpbm image: \(reason).", path: path)
    }

    /// Reads the header of the Netpbm picture held in `data`.
    static func header(_ data: [UInt8], path: String) throws(ConvertError) -> Header {
        guard data.count >= 3, data[0] == 0x50, (0x31...0x37).contains(data[1]) else {
            throw damaged(path, "no Netpbm magic number")
        }
        let kind = Int(data[1] - 0x30)
        var scanner = Scanner(data: data, at: 2)
        if kind == 7 { return try pamHeader(&scanner, path: path) }
        guard let width = scanner.number(), let height = scanner.number() else {
            throw damaged(path, "the header has no picture size")
        }
        var maxval = 1
        if kind != 1, kind != 4 {
            guard let value = scanner.number() else { throw damaged(path, "the header has no maxval") }
            maxval = value
        }
        // One whitespace byte ends a raw header; a plain raster's numbers skip their own.
        let dataOffset = scanner.at + 1
        let header = Header(
            kind: kind, width: width, height: height, depth: [3, 6].contains(kind) ? 3 : 1, maxval: maxval,
            dataOffset: dataOffset)
        return try checked(header, path: path)
    }

    /// A PAM's header lines, up to ENDHDR.
    private static func pamHeader(_ scanner: inout Scanner, path: String) throws(ConvertError) -> Header {
        var fields: [String: Int] = [:]
        var tupleType = ""
        while true {
            guard let keyword = scanner.word() else { throw damaged(path, "the PAM header has no ENDHDR") }
            if keyword == "ENDHDR" { break }
            if keyword == "TUPLTYPE" {
                tupleType = scanner.word() ?? ""
                continue
            }
            guard let value = scanner.number() else { throw damaged(path, "\(keyword) without a number") }
            fields[keyword] = value
        }
        guard let width = fields["WIDTH"], let height = fields["HEIGHT"], let depth = fields["DEPTH"],
            let maxval = fields["MAXVAL"]
        else { throw damaged(path, "the PAM header lacks WIDTH, HEIGHT, DEPTH or MAXVAL") }
        guard (1...4).contains(depth) else {
            throw ConvertError(
                code: .inputUnsupportedFeature,
                message: "\(path) is a PAM of \(depth) samples a pixel (\(tupleType)), which offconvert does not read.",
                path: path)
        }
        // BLACKANDWHITE (maxval 1, 1 white) reads as grey does.
        let header = Header(
            kind: 7, width: width, height: height, depth: depth, maxval: maxval, dataOffset: scanner.at + 1)
        return try checked(header, path: path)
    }

    /// `header` when its size and maxval are ones Netpbm allows.
    private static func checked(_ header: Header, path: String) throws(ConvertError) -> Header {
        guard header.width > 0, header.height > 0 else { throw damaged(path, "an empty picture") }
        guard (1...65535).contains(header.maxval) else { throw damaged(path, "maxval \(header.maxval)") }
        return header
    }

    /// Decodes the Netpbm picture held in `data`: 8-bit RGB(A) for a maxval up to 255, 16-bit
    /// above. A picture over `maxPixels` is refused before anything is allocated for it; a
    /// raster that ends early is `input.truncated`.
    static func decode(_ data: [UInt8], maxPixels: Int, path: String) throws(ConvertError) -> Bitmap {
        let header = try header(data, path: path)
        try PixelLimit.check(width: header.width, height: header.height, limit: maxPixels, path: path)
        let count = header.width * header.height * header.depth
        let samples: [UInt16]
        if header.isPlain {
            samples = try plainSamples(data, header: header, count: count, path: path)
        } else if header.kind == 4 {
            samples = try packedBits(data, header: header, path: path)
        } else {
            let bytes = header.maxval > 255 ? 2 : 1
            guard header.dataOffset <= data.count, (data.count - header.dataOffset) / bytes >= count else {
                throw truncated(path)
            }
            samples = (0..<count).map { index in
                let at = header.dataOffset + index * bytes
                return bytes == 2 ? UInt16(data[at]) << 8 | UInt16(data[at + 1]) : UInt16(data[at])
            }
        }
        return bitmap(samples, header: header)
    }

    /// A plain raster's ASCII numbers (P1's digits may run together).
    private static func plainSamples(_ data: [UInt8], header: Header, count: Int, path: String) throws(ConvertError)
        -> [UInt16]
    {
        // Every number takes two bytes at least (P1: one), so a short file is refused before
        // anything as large as the picture is allocated.
        guard header.dataOffset <= data.count,
            (data.count - header.dataOffset + 1) / (header.kind == 1 ? 1 : 2) >= count
        else { throw truncated(path) }
        var scanner = Scanner(data: data, at: header.dataOffset - 1)
        var samples = [UInt16]()
        samples.reserveCapacity(count)
        while samples.count < count {
            let value = header.kind == 1 ? scanner.digit() : scanner.number()
            guard let value else { throw truncated(path) }
            samples.append(UInt16(min(value, header.maxval)))
        }
        return samples
    }

    /// P4's bits, eight to a byte, each row starting on a byte.
    private static func packedBits(_ data: [UInt8], header: Header, path: String) throws(ConvertError) -> [UInt16] {
        let rowBytes = (header.width + 7) / 8
        guard header.dataOffset <= data.count, (data.count - header.dataOffset) / rowBytes >= header.height else {
            throw truncated(path)
        }
        var samples = [UInt16](repeating: 0, count: header.width * header.height)
        for y in 0..<header.height {
            for x in 0..<header.width {
                let byte = data[header.dataOffset + y * rowBytes + x / 8]
                samples[y * header.width + x] = UInt16(byte >> (7 - UInt8(x % 8)) & 1)
            }
        }
        return samples
    }

    /// The bitmap of `samples` (`header.depth` a pixel, 0...maxval): grey spread to RGB, scaled
    /// to the full range; PBM's 1 is black.
    private static func bitmap(_ samples: [UInt16], header: Header) -> Bitmap {
        let pixels = header.width * header.height
        let channels = header.hasAlpha ? 4 : 3
        let wide = header.maxval > 255
        let top = wide ? 65535 : 255
        let maxval = header.maxval
        let pbm = header.kind == 1 || header.kind == 4
        var out = [UInt16](repeating: 0, count: pixels * channels)
        for pixel in 0..<pixels {
            let base = pixel * header.depth
            let scale = { (value: UInt16) -> UInt16 in UInt16((Int(value) * top + maxval / 2) / maxval) }
            if header.isGrey {
                let grey = pbm ? (samples[base] == 1 ? 0 : UInt16(top)) : scale(samples[base])
                out[pixel * channels] = grey
                out[pixel * channels + 1] = grey
                out[pixel * channels + 2] = grey
            } else {
                for c in 0..<3 { out[pixel * channels + c] = scale(samples[base + c]) }
            }
            if header.hasAlpha { out[pixel * channels + 3] = scale(samples[base + header.depth - 1]) }
        }
        let stored: Bitmap.Samples = wide ? .sixteen(out) : .eight(out.map { UInt8(truncatingIfNeeded: $0) })
        return Bitmap(
            width: header.width, height: header.height, channels: channels, samples: stored,
            sourceBitDepth: header.bitDepth > 8 ? 16 : 8)
    }

    /// The `input.truncated` error of a file whose raster stops early.
    private static func truncated(_ path: String) -> ConvertError {
        ConvertError(code: .inputTruncated, message: "\(path) is damaged: the Netpbm raster is cut short.", path: path)
    }

    /// Reads a header's tokens: whitespace and `#` comments (to the end of the line) between them.
    private struct Scanner {
        let data: [UInt8]
        var at: Int

        init(data: [UInt8], at: Int) {
            self.data = data
            self.at = at
        }

        /// Moves past whitespace and comments.
        private mutating func skipSpace() {
            while at < data.count {
                if data[at] == 0x23 {
                    while at < data.count, data[at] != 0x0A, data[at] != 0x0D { at += 1 }
                } else if [0x20, 0x09, 0x0A, 0x0D, 0x0B, 0x0C].contains(data[at]) {
                    at += 1
                } else {
                    return
                }
            }
        }

        /// The next decimal number (at most 9 digits, so nothing overflows); nil when there is none.
        mutating func number() -> Int? {
            skipSpace()
            var value = 0
            var digits = 0
            while at < data.count, (0x30...0x39).contains(data[at]), digits < 9 {
                value = value * 10 + Int(data[at] - 0x30)
                digits += 1
                at += 1
            }
            return digits > 0 ? value : nil
        }

        /// The next single digit (P1's 0 and 1, which may run together).
        mutating func digit() -> Int? {
            skipSpace()
            guard at < data.count, (0x30...0x39).contains(data[at]) else { return nil }
            at += 1
            return Int(data[at - 1] - 0x30)
        }

        /// The next word of capital letters, digits and underscores (a PAM keyword); nil at the end.
        mutating func word() -> String? {
            skipSpace()
            let start = at
            while at < data.count, data[at] > 0x20, data[at] != 0x23, at - start < 64 { at += 1 }
            return at > start ? String(decoding: data[start..<at], as: UTF8.self) : nil
        }
    }
}
