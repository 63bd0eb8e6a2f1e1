@testable import ConvertCore
@testable import ConvertMedia

/// Builders for crafted ISO-BMFF byte arrays.
enum BoxBytes {
    static func u16(_ value: Int) -> [UInt8] { [UInt8((value >> 8) & 0xFF), UInt8(value & 0xFF)] }
    static func u32(_ value: UInt32) -> [UInt8] { [24, 16, 8, 0].map { UInt8((value >> UInt32($0)) & 0xFF) } }
    static func u64(_ value: UInt64) -> [UInt8] {
        [56, 48, 40, 32, 24, 16, 8, 0].map { UInt8((value >> UInt64($0)) & 0xFF) }
    }
    /// Latin-1 bytes of a four-character code (`©` is 0xA9).
    static func code(_ text: String) -> [UInt8] { text.unicodeScalars.map { UInt8($0.value & 0xFF) } }

    /// A box with a 32-bit size.
    static func box(_ type: String, _ payload: [UInt8]) -> [UInt8] {
        u32(UInt32(8 + payload.count)) + code(type) + payload
    }

    /// A box with version/flags.
    static func fullBox(_ type: String, version: UInt8 = 0, _ payload: [UInt8]) -> [UInt8] {
        box(type, [version, 0, 0, 0] + payload)
    }

    /// A box header claiming `size` without the payload behind it.
    static func header(_ type: String, size: UInt32) -> [UInt8] { u32(size) + code(type) }

    /// A 24-byte Dolby Vision configuration record.
    static func dolbyVisionRecord(profile: Int, level: Int, rpu: Bool, el: Bool, bl: Bool, compatibility: Int)
        -> [UInt8]
    {
        let bits = (profile << 9) | (level << 3) | (rpu ? 4 : 0) | (el ? 2 : 0) | (bl ? 1 : 0)
        return [1, 0] + u16(bits) + [UInt8(compatibility << 4)] + [UInt8](repeating: 0, count: 19)
    }

    /// A VisualSampleEntry of `format` (78 bytes of fields) followed by `children`.
    static func visualEntry(_ format: String, width: Int = 320, height: Int = 180, children: [UInt8]) -> [UInt8] {
        var fields = [UInt8](repeating: 0, count: 6) + u16(1) + [UInt8](repeating: 0, count: 16)
        fields += u16(width) + u16(height) + u32(0x0048_0000) + u32(0x0048_0000) + u32(0) + u16(1)
        fields += [UInt8](repeating: 0, count: 32) + u16(0x18) + [0xFF, 0xFF]
        return box(format, fields + children)
    }

    /// An AudioSampleEntry of `format` (28 bytes of fields).
    static func audioEntry(_ format: String) -> [UInt8] {
        let fields =
            [UInt8](repeating: 0, count: 6) + u16(1) + [UInt8](repeating: 0, count: 8) + u16(2) + u16(16)
            + u32(0) + u32(48000 << 16)
        return box(format, fields)
    }

    /// A `trak` with a track id, handler and one sample entry.
    static func track(id: UInt32, handler: String, entry: [UInt8]) -> [UInt8] {
        let tkhd = fullBox("tkhd", [UInt8](repeating: 0, count: 8) + u32(id) + [UInt8](repeating: 0, count: 68))
        let hdlr = fullBox("hdlr", u32(0) + code(handler) + [UInt8](repeating: 0, count: 13))
        let stsd = fullBox("stsd", u32(1) + entry)
        return box("trak", tkhd + box("mdia", hdlr + box("minf", box("stbl", stsd))))
    }

    /// An MP4 `ftyp` with the given major brand.
    static func ftyp(_ brand: String) -> [UInt8] { box("ftyp", code(brand) + u32(0) + code(brand) + code("iso6")) }
}

/// A source that claims to be `size` bytes long: its first bytes are given, the rest read as
/// zeros. Lets a test present a multi-terabyte "file" without allocating it.
struct SparseByteSource: ByteSource {
    let prefix: [UInt8]
    let size: UInt64

    func read(at offset: UInt64, count: Int) throws(BoxError) -> [UInt8] {
        precondition(count <= BoxLimits.maximumRead)
        guard offset < size else { return [] }
        let available = Int(min(UInt64(count), size - offset))
        return (0..<available).map { index in
            let position = offset + UInt64(index)
            return position < UInt64(prefix.count) ? prefix[Int(position)] : 0
        }
    }
}
