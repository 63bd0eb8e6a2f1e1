/// Reads a Photoshop document's flattened composite (PSD, and PSB for large documents): the
/// image-data section at the end of the file, which Photoshop writes with "Maximize
/// compatibility" (the default). Layers are not composited. Every offset and length is checked
/// against the data; a damaged file throws, never traps.
///
/// Handled: 8- and 16-bit grey, duotone (read as its grey), indexed, RGB (a fourth channel is
/// alpha) and CMYK, raw or PackBits RLE. CMYK goes to sRGB through the document's ICC profile
/// (image resource 1039) with lcms2, or by the plain formula without one, with a note either
/// way; an RGB document keeps its profile. Bitmap (1-bit), Lab, multichannel, 32-bit and
/// ZIP-compressed composites are refused as unsupported.
enum PSDDecoder {
    /// What a document's header and resources say, read without decoding any pixel.
    struct Header {
        /// 1 for PSD, 2 for PSB.
        var version: Int
        var channels: Int
        var width: Int
        var height: Int
        /// Bits a sample: 8 or 16.
        var depth: Int
        /// 1 grey, 2 indexed, 3 RGB, 4 CMYK, 8 duotone.
        var mode: Int
        /// An indexed document's colours, 256 RGB triples.
        var palette: [UInt8]
        /// The ICC profile of image resource 1039.
        var icc: [UInt8]?
        /// Where the image-data section (its compression word) starts.
        var dataOffset: Int

        /// Whether the composite has an alpha channel (an RGB document's fourth).
        var hasAlpha: Bool { mode == 3 && channels >= 4 }
        /// Whether the samples are ink.
        var isCMYK: Bool { mode == 4 }
        /// The colour channels the composite is read from.
        var colorChannels: Int { mode == 3 ? 3 : mode == 4 ? 4 : 1 }
        /// The colour model `info` names when it is not RGB.
        var modelName: String? { [1: "grey", 2: "indexed", 4: "CMYK", 8: "duotone"][mode] }
    }

    /// The `input.corrupt` error for `path`, with what is wrong.
    private static func damaged(_ path: String, _ reason: String) -> ConvertError {
        ConvertError(
            code: .inputCorrupt, message: "\(path) is damaged or not a Photoshop document: \(reason).", path: path)
    }

    /// The `input.unsupported-feature` error for a document offconvert does not read.
    private static func unsupported(_ path: String, _ what: String) -> ConvertError {
        ConvertError(
            code: .inputUnsupportedFeature,
            message: "\(path) is a Photoshop document \(what), which offconvert does not read.",
            path: path)
    }

    /// Big-endian reads, each checked against the data.
    private struct Reader {
        let data: [UInt8]
        var at: Int
        let path: String

        mutating func bytes(_ count: Int) throws(ConvertError) -> ArraySlice<UInt8> {
            guard count >= 0, at <= data.count, count <= data.count - at else { throw truncated(path) }
            defer { at += count }
            return data[at..<at + count]
        }
        mutating func u16() throws(ConvertError) -> Int { try bytes(2).reduce(0) { $0 << 8 | Int($1) } }
        mutating func u32() throws(ConvertError) -> Int { try bytes(4).reduce(0) { $0 << 8 | Int($1) } }
        /// A section length: 4 bytes, or 8 in a PSB where `wide`.
        mutating func length(wide: Bool) throws(ConvertError) -> Int {
            let value = try bytes(wide ? 8 : 4).reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
            guard value <= UInt64(data.count) else { throw damaged(path, "a section longer than the file") }
            return Int(value)
        }
    }

    /// Reads the header, colour-mode data and image resources of the document in `data`, and
    /// finds its image-data section.
    static func header(_ data: [UInt8], path: String) throws(ConvertError) -> Header {
        var reader = Reader(data: data, at: 0, path: path)
        guard try reader.bytes(4).elementsEqual(Array("8BPS".utf8)) else { throw damaged(path, "no PSD signature") }
        let version = try reader.u16()
        guard version == 1 || version == 2 else { throw damaged(path, "version \(version)") }
        _ = try reader.bytes(6)
        let channels = try reader.u16()
        let height = try reader.u32()
        let width = try reader.u32()
        let depth = try reader.u16()
        let mode = try reader.u16()
        guard (1...56).contains(channels), width > 0, height > 0 else {
            throw damaged(path, "\(channels) channels of \(width)x\(height)")
        }
        guard depth == 8 || depth == 16 else { throw unsupported(path, "of \(depth)-bit samples") }
        let names = [0: "in bitmap mode", 7: "in multichannel mode", 9: "in Lab colour"]
        guard [1, 2, 3, 4, 8].contains(mode) else { throw unsupported(path, names[mode] ?? "in colour mode \(mode)") }
        let modeData = try reader.bytes(reader.length(wide: false))
        let palette = mode == 2 && modeData.count >= 768 ? Array(modeData.prefix(768)) : []
        if mode == 2, palette.isEmpty { throw damaged(path, "an indexed document without its colours") }
        let resources = try reader.bytes(reader.length(wide: false))
        let icc = iccProfile(Array(resources))
        _ = try reader.bytes(reader.length(wide: version == 2))
        var header = Header(
            version: version, channels: channels, width: width, height: height, depth: depth, mode: mode,
            palette: palette, icc: icc, dataOffset: reader.at)
        guard channels >= header.colorChannels else { throw damaged(path, "\(channels) channels in mode \(mode)") }
        header.icc = icc
        return header
    }

    /// Image resource 1039's ICC profile in the resources section `block`, if present.
    private static func iccProfile(_ block: [UInt8]) -> [UInt8]? {
        var at = 0
        while at + 12 <= block.count, block[at..<at + 4].elementsEqual(Array("8BIM".utf8)) {
            let id = Int(block[at + 4]) << 8 | Int(block[at + 5])
            // A Pascal name padded to an even length, its length byte included.
            let nameLength = Int(block[at + 6])
            var cursor = at + 6 + ((nameLength + 2) & ~1)
            guard cursor + 4 <= block.count else { return nil }
            let size = block[cursor..<cursor + 4].reduce(0) { $0 << 8 | Int($1) }
            cursor += 4
            guard size <= block.count - cursor else { return nil }
            if id == 1039 { return Array(block[cursor..<cursor + size]) }
            at = cursor + ((size + 1) & ~1)
        }
        return nil
    }

    /// What decoding gives: the bitmap and what was done to its colours.
    struct Decoded {
        var bitmap: Bitmap
        var notes: [String]
    }

    /// Decodes the composite of the document in `data`, refusing one over `maxPixels` before
    /// allocating it.
    static func decode(_ data: [UInt8], maxPixels: Int, path: String) throws(ConvertError) -> Decoded {
        let header = try header(data, path: path)
        try PixelLimit.check(width: header.width, height: header.height, limit: maxPixels, path: path)
        let read = header.colorChannels + (header.hasAlpha ? 1 : 0)
        let planes = try channelPlanes(data, header: header, reading: read, path: path)
        let count = header.width * header.height
        let sample = { (plane: Int, index: Int) -> Int in
            header.depth == 16
                ? Int(planes[plane][index * 2]) << 8 | Int(planes[plane][index * 2 + 1]) : Int(planes[plane][index])
        }
        if header.isCMYK { return cmyk(count: count, header: header, sample: sample) }
        let channels = header.hasAlpha ? 4 : 3
        var out = [UInt16](repeating: 0, count: count * channels)
        for pixel in 0..<count {
            for c in 0..<channels {
                switch header.mode {
                case 2: out[pixel * 3 + c] = UInt16(header.palette[c * 256 + sample(0, pixel)])
                case 3: out[pixel * channels + c] = UInt16(sample(c, pixel))
                default: out[pixel * 3 + c] = UInt16(sample(0, pixel))
                }
            }
        }
        let samples: Bitmap.Samples =
            header.depth == 16 ? .sixteen(out) : .eight(out.map { UInt8(truncatingIfNeeded: $0) })
        let bitmap = Bitmap(
            width: header.width, height: header.height, channels: channels, samples: samples,
            sourceBitDepth: header.depth, icc: header.icc)
        return Decoded(bitmap: bitmap, notes: [])
    }

    /// A CMYK composite (stored 0 = full ink, Photoshop's way) as RGB: through the document's
    /// profile at its own depth, or by the plain formula at 8 bits.
    private static func cmyk(count: Int, header: Header, sample: (Int, Int) -> Int) -> Decoded {
        let top = header.depth == 16 ? 65535 : 255
        if let icc = header.icc {
            // lcms2 takes 0 as no ink.
            var ink = [UInt16](repeating: 0, count: count * 4)
            for pixel in 0..<count {
                for c in 0..<4 { ink[pixel * 4 + c] = UInt16(top - sample(c, pixel)) }
            }
            if header.depth == 16, let converted = ColorProfiles.cmykToSRGB(ink, icc: icc) {
                let bitmap = Bitmap(
                    width: header.width, height: header.height, channels: 3, samples: .sixteen(converted.rgb),
                    sourceBitDepth: 16, icc: converted.icc)
                return Decoded(bitmap: bitmap, notes: [profileNote(icc)])
            }
            if header.depth == 8, let converted = ColorProfiles.cmykToSRGB(ink.map { UInt8($0) }, icc: icc) {
                let bitmap = Bitmap(
                    width: header.width, height: header.height, channels: 3, samples: .eight(converted.rgb),
                    sourceBitDepth: 8, icc: converted.icc)
                return Decoded(bitmap: bitmap, notes: [profileNote(icc)])
            }
        }
        var stored = [UInt8](repeating: 0, count: count * 4)
        for pixel in 0..<count {
            for c in 0..<4 { stored[pixel * 4 + c] = UInt8((sample(c, pixel) * 255 + top / 2) / top) }
        }
        let converted = CMYKConversion.rgb(cmyk: stored, pixelCount: count, inverted: true, profile: header.icc)
        let bitmap = Bitmap(
            width: header.width, height: header.height, channels: 3, samples: .eight(converted.rgb),
            sourceBitDepth: 8, icc: converted.icc)
        return Decoded(bitmap: bitmap, notes: [converted.note])
    }

    /// The note of a CMYK document converted through its profile.
    private static func profileNote(_ icc: [UInt8]) -> String {
        let name = ColorProfiles.describe(icc).map { " (\"\($0)\")" } ?? ""
        return "CMYK converted to sRGB through its colour profile\(name)"
    }

    /// The first `reading` channels of the composite, each a plane of rows, raw or PackBits.
    private static func channelPlanes(_ data: [UInt8], header: Header, reading: Int, path: String) throws(ConvertError)
        -> [[UInt8]]
    {
        var reader = Reader(data: data, at: header.dataOffset, path: path)
        let compression = try reader.u16()
        let rowBytes = header.width * header.depth / 8
        switch compression {
        case 0:
            guard (data.count - reader.at) / rowBytes / header.height >= reading else { throw truncated(path) }
            return try (0..<reading).map { (_: Int) throws(ConvertError) -> [UInt8] in
                Array(try reader.bytes(rowBytes * header.height))
            }
        case 1:
            let rows = header.channels * header.height
            let wide = header.version == 2
            var counts: [Int] = []
            guard (data.count - reader.at) / (wide ? 4 : 2) >= rows else { throw truncated(path) }
            for _ in 0..<rows { counts.append(wide ? try reader.u32() : try reader.u16()) }
            // PackBits grows a row by 128 times at most: a table claiming more is damage, found
            // before a plane is allocated.
            for index in 0..<reading * header.height where counts[index] * 128 < rowBytes {
                throw damaged(path, "row \(index % header.height) of channel \(index / header.height) is too short")
            }
            var planes: [[UInt8]] = []
            for channel in 0..<reading {
                var plane = [UInt8]()
                plane.reserveCapacity(rowBytes * header.height)
                for row in 0..<header.height {
                    let packed = try reader.bytes(counts[channel * header.height + row])
                    guard unpackBits(packed, into: &plane, rowBytes: rowBytes) else {
                        throw damaged(path, "row \(row) of channel \(channel) does not unpack to its width")
                    }
                }
                planes.append(plane)
            }
            return planes
        default:
            throw unsupported(path, "whose composite is ZIP-compressed (compression \(compression))")
        }
    }

    /// Appends the PackBits row `packed` to `plane`: true when it gives exactly `rowBytes` bytes.
    private static func unpackBits(_ packed: ArraySlice<UInt8>, into plane: inout [UInt8], rowBytes: Int) -> Bool {
        var produced = 0
        var at = packed.startIndex
        while at < packed.endIndex, produced < rowBytes {
            let n = Int(Int8(bitPattern: packed[at]))
            at += 1
            if n >= 0 {
                guard at + n + 1 <= packed.endIndex, produced + n + 1 <= rowBytes else { return false }
                plane += packed[at..<at + n + 1]
                at += n + 1
                produced += n + 1
            } else if n != -128 {
                guard at < packed.endIndex, produced + 1 - n <= rowBytes else { return false }
                plane += repeatElement(packed[at], count: 1 - n)
                at += 1
                produced += 1 - n
            }
        }
        return produced == rowBytes
    }

    /// The `input.truncated` error of a document whose image data stops early.
    private static func truncated(_ path: String) -> ConvertError {
        ConvertError(
            code: .inputTruncated, message: "\(path) is damaged: the Photoshop document is cut short.", path: path)
    }
}
