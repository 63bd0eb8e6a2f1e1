/// A minimal ISO-BMFF view over bytes already in memory (a `moov` or a HEIF `meta` box), for the
/// location stripper's in-place edits. Every size is checked against the bytes before use; a box
/// that does not fit ends the walk of its parent.
struct ByteBox {
    /// The box type as four Latin-1 characters (`©xyz` has 0xA9 first).
    var type: String
    /// Offset of the box's first header byte.
    var start: Int
    /// Offset just past the header (where the payload begins).
    var payloadStart: Int
    /// Offset just past the box.
    var end: Int
    /// Whether the size is stored in a 64-bit largesize field.
    var large: Bool

    /// The boxes directly inside `bytes[range]`, in order.
    static func children(of bytes: [UInt8], in range: Range<Int>) -> [ByteBox] {
        var result: [ByteBox] = []
        var offset = range.lowerBound
        while offset + 8 <= range.upperBound, result.count < 10_000 {
            let size32 = Int(ByteBox.u32(bytes, offset))
            let type = String(String.UnicodeScalarView(bytes[(offset + 4)..<(offset + 8)].map { Unicode.Scalar($0) }))
            var size = size32
            var header = 8
            var large = false
            if size32 == 1 {
                guard offset + 16 <= range.upperBound else { break }
                let wide = ByteBox.u64(bytes, offset + 8)
                guard wide <= UInt64(Int.max) else { break }
                size = Int(wide)
                header = 16
                large = true
            } else if size32 == 0 {
                size = range.upperBound - offset
            }
            guard size >= header, offset + size <= range.upperBound else { break }
            result.append(ByteBox(type: type, start: offset, payloadStart: offset + header, end: offset + size, large: large))
            offset += size
        }
        return result
    }

    /// Big-endian 16-bit value at `offset` (the caller checked the bounds).
    static func u16(_ bytes: [UInt8], _ offset: Int) -> UInt16 {
        UInt16(bytes[offset]) << 8 | UInt16(bytes[offset + 1])
    }

    /// Big-endian 32-bit value at `offset` (the caller checked the bounds).
    static func u32(_ bytes: [UInt8], _ offset: Int) -> UInt32 {
        (0..<4).reduce(UInt32(0)) { $0 << 8 | UInt32(bytes[offset + $1]) }
    }

    /// Big-endian 64-bit value at `offset` (the caller checked the bounds).
    static func u64(_ bytes: [UInt8], _ offset: Int) -> UInt64 {
        (0..<8).reduce(UInt64(0)) { $0 << 8 | UInt64(bytes[offset + $1]) }
    }

    /// Big-endian unsigned value of `width` bytes (0, 4 or 8 in `iloc`); nil past the end.
    static func unsigned(_ bytes: [UInt8], _ offset: Int, width: Int) -> Int? {
        guard width >= 0, offset + width <= bytes.count else { return nil }
        let value = (0..<width).reduce(UInt64(0)) { $0 << 8 | UInt64(bytes[offset + $1]) }
        return value <= UInt64(Int.max) ? Int(value) : nil
    }
}
