/// The HDR headroom of an iPhone photo, from its Apple MakerNote: tags 0x0021 and 0x0030 (signed
/// rationals), turned into stops with the formula Apple publishes in "Applying Apple HDR effect to
/// your photos".
enum AppleHeadroom {
    /// The MakerNote's signature: "Apple iOS", a NUL, a 2-byte version, then "MM" (big-endian);
    /// its IFD starts right after, and its offsets count from the MakerNote's first byte.
    private static let signature: [UInt8] = Array("Apple iOS".utf8) + [0]
    private static let ifdStart = 14

    /// Headroom in stops (log2 of the brightest HDR white over SDR white), or nil when the EXIF
    /// TIFF stream has no Apple MakerNote with tag 0x0021.
    package static func stops(exif: [UInt8]) -> Double? {
        guard let parsed = Exif(tiff: exif),
            let note = parsed.ifd0.entry(Exif.Tag.exifIFD)?.child?.entry(Exif.Tag.makerNote)
        else { return nil }
        guard let values = rationals(makerNote: note.value), let maker33 = values[0x0021] else { return nil }
        // Apple: images that have 0x0021 but not 0x0030 are read as 0x0030 = 0.
        return stops(maker33: maker33, maker48: values[0x0030] ?? 0)
    }

    /// Apple's formula.
    package static func stops(maker33: Double, maker48: Double) -> Double {
        let stops: Double
        if maker33 < 1 {
            stops = maker48 <= 0.01 ? -20 * maker48 + 1.8 : -0.101 * maker48 + 1.601
        } else {
            stops = maker48 <= 0.01 ? -70 * maker48 + 3 : -0.303 * maker48 + 2.303
        }
        return max(stops, 0)
    }

    /// A MakerNote holding only the HDR headroom tags (0x0021, 0x0030) of the MakerNote in
    /// `exif`, their values as stored: what a HEIC output with Apple's gain map keeps when the
    /// rest of the MakerNote (which may hold serial numbers) is removed. Nil without tag 0x0021.
    static func headroomMakerNote(exif: [UInt8]) -> [UInt8]? {
        guard let parsed = Exif(tiff: exif),
            let note = parsed.ifd0.entry(Exif.Tag.exifIFD)?.child?.entry(Exif.Tag.makerNote)
        else { return nil }
        let bytes = note.value
        guard rationals(makerNote: bytes)?[0x0021] != nil else { return nil }
        func u16(_ at: Int) -> Int { Int(bytes[at]) << 8 | Int(bytes[at + 1]) }
        func u32(_ at: Int) -> Int { (0..<4).reduce(0) { $0 << 8 | Int(bytes[at + $1]) } }
        var kept: [(tag: Int, value: [UInt8])] = []
        for index in 0..<u16(ifdStart) {
            let at = ifdStart + 2 + index * 12
            guard at + 12 <= bytes.count else { break }
            let tag = u16(at)
            let offset = u32(at + 8)
            guard tag == 0x0021 || tag == 0x0030, u16(at + 2) == 10, offset + 8 <= bytes.count else { continue }
            kept.append((tag, Array(bytes[offset..<(offset + 8)])))
        }
        func be(_ value: Int, _ width: Int) -> [UInt8] {
            (0..<width).map { UInt8(truncatingIfNeeded: value >> (8 * (width - 1 - $0))) }
        }
        var out = Array(bytes[0..<ifdStart]) + be(kept.count, 2)
        let values = ifdStart + 2 + kept.count * 12 + 4
        for (index, entry) in kept.enumerated() {
            out += be(entry.tag, 2) + be(10, 2) + be(1, 4) + be(values + index * 8, 4)
        }
        out += be(0, 4)
        for entry in kept { out += entry.value }
        return out
    }

    /// The signed-rational (type 10) single values of the MakerNote's IFD, by tag.
    private static func rationals(makerNote bytes: [UInt8]) -> [UInt16: Double]? {
        guard bytes.count >= ifdStart + 2, bytes.starts(with: signature), bytes[12] == 0x4D, bytes[13] == 0x4D else {
            return nil
        }
        func u16(_ at: Int) -> Int? { at + 2 <= bytes.count ? Int(bytes[at]) << 8 | Int(bytes[at + 1]) : nil }
        func u32(_ at: Int) -> UInt32? {
            at + 4 <= bytes.count ? (0..<4).reduce(UInt32(0)) { $0 << 8 | UInt32(bytes[at + $1]) } : nil
        }
        guard let count = u16(ifdStart), count <= 1000 else { return nil }
        var values: [UInt16: Double] = [:]
        for index in 0..<count {
            let at = ifdStart + 2 + index * 12
            guard let tag = u16(at), let type = u16(at + 2), let items = u32(at + 4), let offset = u32(at + 8) else {
                break
            }
            guard type == 10, items == 1, let numerator = u32(Int(offset)), let denominator = u32(Int(offset) + 4),
                denominator != 0
            else { continue }
            values[UInt16(tag)] = Double(Int32(bitPattern: numerator)) / Double(Int32(bitPattern: denominator))
        }
        return values
    }
}
