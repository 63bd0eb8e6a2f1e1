/// A box inside bytes already in memory (a `moov` or a whole HEIF file), with `Int` offsets for
/// the location stripper's in-place edits.
///
/// The walk is the probe's ``BoxReader`` over a ``MemoryByteSource``, so the stripper and the
/// probe share one set of rules for box sizes. A box that does not fit its parent is an error
/// here, not the quiet end of a walk: a location box after it would otherwise be left in a file
/// reported as cleaned.
package struct ByteBox {
    /// The box type.
    package var type: FourCC
    /// Offset of the box's first header byte.
    package var start: Int
    /// Offset just past the header (where the payload begins).
    package var payloadStart: Int
    /// Offset just past the box.
    package var end: Int
    /// Whether the size is stored in a 64-bit largesize field.
    package var large: Bool

    private init(_ header: BoxHeader) {
        type = header.type
        start = Int(header.offset)
        payloadStart = Int(header.payloadOffset)
        end = Int(header.end)
        large = header.headerSize - (header.type == "uuid" ? 16 : 0) == 16
    }

    /// The top-level boxes of a whole file in `bytes`; a last box cut short ends at the end of
    /// the bytes, as the probe treats a truncated download.
    package static func topLevel(of bytes: [UInt8]) throws(BoxError) -> [ByteBox] {
        try BoxReader(source: MemoryByteSource(bytes: bytes)).children(of: nil, depth: 0).map(ByteBox.init)
    }

    /// The boxes filling `bytes[range]`, in order.
    package static func children(of bytes: [UInt8], in range: Range<Int>) throws(BoxError) -> [ByteBox] {
        let parent = BoxHeader(
            type: "root", offset: UInt64(range.lowerBound), headerSize: 0, size: UInt64(range.count), isTruncated: false
        )
        return try BoxReader(source: MemoryByteSource(bytes: bytes)).children(of: parent, depth: 0).map(ByteBox.init)
    }

    /// A box of `type` around `payload`: its 32-bit size, its type, then the payload, as every
    /// box this code writes (in-memory HEIF/AVIF edits) is made.
    package static func box(_ type: String, _ payload: [UInt8]) -> [UInt8] {
        bigEndian32(UInt32(truncatingIfNeeded: 8 + payload.count)) + Array(type.utf8) + payload
    }

    /// The low 16 bits of `value`, big-endian.
    package static func bigEndian16(_ value: UInt32) -> [UInt8] { [UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)] }

    /// `value` as 4 big-endian bytes.
    package static func bigEndian32(_ value: UInt32) -> [UInt8] {
        [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: value >> UInt32($0)) }
    }

    /// Big-endian 16-bit value at `offset` (the caller checked the bounds).
    package static func u16(_ bytes: [UInt8], _ offset: Int) -> UInt16 {
        UInt16(bytes[offset]) << 8 | UInt16(bytes[offset + 1])
    }

    /// Big-endian 32-bit value at `offset` (the caller checked the bounds).
    package static func u32(_ bytes: [UInt8], _ offset: Int) -> UInt32 {
        (0..<4).reduce(UInt32(0)) { $0 << 8 | UInt32(bytes[offset + $1]) }
    }

    /// Big-endian 64-bit value at `offset` (the caller checked the bounds).
    package static func u64(_ bytes: [UInt8], _ offset: Int) -> UInt64 {
        (0..<8).reduce(UInt64(0)) { $0 << 8 | UInt64(bytes[offset + $1]) }
    }

    /// Big-endian unsigned value of `width` bytes (0, 4 or 8 in `iloc`); nil past the end.
    package static func unsigned(_ bytes: [UInt8], _ offset: Int, width: Int) -> Int? {
        guard width >= 0, offset + width <= bytes.count else { return nil }
        let value = (0..<width).reduce(UInt64(0)) { $0 << 8 | UInt64(bytes[offset + $1]) }
        return value <= UInt64(Int.max) ? Int(value) : nil
    }
}

extension ConvertError {
    /// The error for a file whose boxes the location stripper could not walk.
    package static func damagedBoxes(_ path: String, _ error: BoxError) -> ConvertError {
        ConvertError(
            code: .inputCorrupt, message: "\(path) is damaged: \(error.description).", path: path,
            underlying: error.description)
    }
}
