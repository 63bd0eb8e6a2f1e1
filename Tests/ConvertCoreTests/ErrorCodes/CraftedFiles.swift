/// Byte-level edits that turn a good fixture into the damaged file a user might have: the ISO
/// boxes of a HEIF or an MP4 rewritten in place (sizes unchanged), a JPEG given an ICC profile.
enum CraftedFiles {
    /// Boxes whose children are boxes, for the walks below.
    static let containers: Set<String> = ["moov", "trak", "mdia", "minf", "stbl", "edts", "meta"]

    /// A box of `type` around `payload`.
    static func box(_ type: String, _ payload: [UInt8]) -> [UInt8] {
        withUnsafeBytes(of: UInt32(8 + payload.count).bigEndian, Array.init) + Array(type.utf8) + payload
    }

    /// Calls `visit` with the type and offset of every box under `range` of `bytes` that is not a
    /// container (a `meta` box's children start 4 bytes in, after its version and flags).
    static func walk(_ bytes: [UInt8], _ range: Range<Int>, _ visit: (String, Int) -> Void) {
        var offset = range.lowerBound
        while offset + 8 <= range.upperBound {
            let size =
                Int(bytes[offset]) << 24 | Int(bytes[offset + 1]) << 16 | Int(bytes[offset + 2]) << 8
                | Int(bytes[offset + 3])
            let type = String(decoding: bytes[(offset + 4)..<(offset + 8)], as: UTF8.self)
            guard size >= 8, offset + size <= range.upperBound else { return }
            if containers.contains(type) {
                walk(bytes, (offset + 8 + (type == "meta" ? 4 : 0))..<(offset + size), visit)
            } else {
                visit(type, offset)
            }
            offset += size
        }
    }

    /// Writes `value` big-endian into `count` bytes at `offset`.
    static func put(_ value: UInt64, _ count: Int, at offset: Int, in bytes: inout [UInt8]) {
        for index in 0..<count { bytes[offset + index] = UInt8(truncatingIfNeeded: value >> (8 * (count - 1 - index))) }
    }

    /// A HEIF (`ftyp` and `meta`) whose `iinf` lists `count` items (at most 65535) and nothing else.
    static func heifWithItems(_ count: Int) -> [UInt8] {
        var entries: [UInt8] = []
        for id in 0..<count {
            entries += box(
                "infe", [2, 0, 0, 0, UInt8(id >> 8 & 0xFF), UInt8(id & 0xFF), 0, 0] + Array("hvc1".utf8) + [0])
        }
        let iinf = box("iinf", [0, 0, 0, 0, UInt8(count >> 8 & 0xFF), UInt8(count & 0xFF)] + entries)
        let handler = box(
            "hdlr", [UInt8](repeating: 0, count: 8) + Array("pict".utf8) + [UInt8](repeating: 0, count: 13))
        let meta = box(
            "meta",
            [0, 0, 0, 0] + handler + box("pitm", [0, 0, 0, 0, 0, 1]) + iinf + box("iloc", [1, 0, 0, 0, 0x44, 0, 0, 0])
                + box("iprp", box("ipco", [])))
        return box("ftyp", Array("heic".utf8) + [0, 0, 0, 0] + Array("mif1heic".utf8)) + meta
    }

    /// Sets the length of every extent in the HEIF's `iloc` to `length`; returns how many it set.
    static func setExtentLengths(in bytes: inout [UInt8], to length: UInt64) -> Int {
        var iloc: Int?
        walk(bytes, 0..<bytes.count) { type, offset in if type == "iloc" { iloc = offset } }
        guard let start = iloc else { return 0 }
        let version = Int(bytes[start + 8])
        var cursor = start + 12
        func read(_ count: Int) -> Int {
            defer { cursor += count }
            return (0..<count).reduce(0) { $0 << 8 | Int(bytes[cursor + $1]) }
        }
        let sizes = read(2)
        let (offsetSize, lengthSize, baseSize) = (sizes >> 12, sizes >> 8 & 15, sizes >> 4 & 15)
        let indexSize = version >= 1 ? sizes & 15 : 0
        var set = 0
        for _ in 0..<read(version < 2 ? 2 : 4) {
            cursor += (version < 2 ? 2 : 4) + (version >= 1 ? 2 : 0) + 2 + baseSize
            for _ in 0..<read(2) {
                cursor += indexSize + offsetSize
                put(length, lengthSize, at: cursor, in: &bytes)
                cursor += lengthSize
                set += 1
            }
        }
        return set
    }

    /// Empties the sample tables of every track (the counts of `stsz`, `stts`, `stsc`, `stco`,
    /// `stss`, `ctts` and `co64` set to 0); returns how many tables it emptied.
    static func emptySampleTables(in bytes: inout [UInt8]) -> Int {
        var emptied = 0
        walk(bytes, 0..<bytes.count) { type, offset in
            switch type {
            case "stsz":
                // After version, flags and the common sample size.
                put(0, 4, at: offset + 16, in: &bytes)
            case "stts", "stsc", "stco", "co64", "stss", "ctts":
                put(0, 4, at: offset + 12, in: &bytes)
            default:
                return
            }
            emptied += 1
        }
        return emptied
    }

    /// Sets the durations of the movie (`mvhd`), its tracks (`tkhd`) and their media (`mdhd`) to
    /// 0 and hides the edit lists; returns how many durations it zeroed.
    static func zeroDurations(in bytes: inout [UInt8]) -> Int {
        var zeroed = 0
        walk(bytes, 0..<bytes.count) { type, offset in
            let long = bytes[offset + 8] == 1
            // Version and flags, then the creation and modification times.
            let times = offset + 12 + (long ? 16 : 8)
            switch type {
            case "mvhd", "mdhd":
                // The timescale comes before the duration.
                put(0, long ? 8 : 4, at: times + 4, in: &bytes)
            case "tkhd":
                // The track ID and a reserved word come before the duration.
                put(0, long ? 8 : 4, at: times + 8, in: &bytes)
            case "elst":
                bytes.replaceSubrange((offset + 4)..<(offset + 8), with: Array("free".utf8))
                return
            default:
                return
            }
            zeroed += 1
        }
        return zeroed
    }

    /// An ICC profile that declares an RGB display device and has no tags: it opens, but no
    /// transform can be made from it.
    static func taglessRGBProfile() -> [UInt8] {
        var header = [UInt8](repeating: 0, count: 128)
        put(132, 4, at: 0, in: &header)
        header.replaceSubrange(4..<8, with: Array("lcms".utf8))
        put(0x0210_0000, 4, at: 8, in: &header)
        header.replaceSubrange(12..<24, with: Array("mntrRGB XYZ ".utf8))
        header.replaceSubrange(36..<40, with: Array("acsp".utf8))
        // The D50 illuminant, as s15.16.
        for (index, value) in [63190, 65536, 54061].enumerated() {
            put(UInt64(value), 4, at: 68 + 4 * index, in: &header)
        }
        // The tag count.
        return header + [0, 0, 0, 0]
    }

    /// `jpeg` with `profile` in an APP2 ICC_PROFILE segment right after its SOI.
    static func jpeg(_ jpeg: [UInt8], withICC profile: [UInt8]) -> [UInt8] {
        let payload = Array("ICC_PROFILE\0".utf8) + [1, 1] + profile
        let length = payload.count + 2
        return Array(jpeg[..<2]) + [0xFF, 0xE2, UInt8(length >> 8), UInt8(length & 0xFF)] + payload + Array(jpeg[2...])
    }
}
