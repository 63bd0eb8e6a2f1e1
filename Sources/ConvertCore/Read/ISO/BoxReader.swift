/// Bounds that keep the box reader's work and memory proportional to what it needs, whatever
/// sizes a hostile file claims.
enum BoxLimits {
    /// The largest single read, and so the largest box payload ever held in memory.
    static let maximumRead = 1 << 20
    /// Boxes nested deeper than this are refused (real files nest about ten deep).
    package static let maximumDepth = 24
    /// Box headers read per file before giving up (a moov of millions of 8-byte boxes is hostile).
    static let maximumBoxes = 100_000
}

/// Why a box structure could not be read. Converted to a ``ConvertError`` naming the file by the
/// probe.
package enum BoxError: Error, Equatable, CustomStringConvertible {
    /// A box's size field is smaller than its own header (sizes 2...7, or a largesize below 16).
    case sizeTooSmall(type: FourCC, offset: UInt64)
    /// A box inside another box claims to end past its parent's end.
    case pastParentEnd(type: FourCC, offset: UInt64)
    /// A box's payload is shorter than its fields need.
    case truncatedPayload(type: FourCC)
    /// A payload the reader needs is larger than ``BoxLimits/maximumRead``.
    case tooLarge(type: FourCC, size: UInt64)
    /// Boxes nest deeper than ``BoxLimits/maximumDepth``.
    case tooDeep
    /// More than ``BoxLimits/maximumBoxes`` box headers.
    case tooManyBoxes
    /// A table holds more entries than a reader's limit for it (`what` names the entries, as
    /// "items" or "item references").
    case overLimit(what: String, limit: Int)
    /// Reading the file failed.
    case io(errno: Int32)

    package var description: String {
        switch self {
        case .sizeTooSmall(let type, let offset): "box '\(type)' at byte \(offset) has an impossible size"
        case .pastParentEnd(let type, let offset): "box '\(type)' at byte \(offset) runs past the box that contains it"
        case .truncatedPayload(let type): "box '\(type)' is shorter than its contents"
        case .tooLarge(let type, let size): "box '\(type)' is implausibly large (\(size) bytes)"
        case .tooDeep: "boxes are nested too deeply"
        case .tooManyBoxes: "the file has too many boxes"
        case .overLimit(let what, let limit): "it has more \(what) than offconvert's limit of \(limit)"
        case .io(let code): "a read failed (errno \(code))"
        }
    }
}

/// A four-character code (box type, sample-entry format, handler type), kept as its big-endian
/// 32-bit value.
package struct FourCC: Hashable, Sendable, CustomStringConvertible, ExpressibleByStringLiteral {
    package let rawValue: UInt32

    package init(rawValue: UInt32) { self.rawValue = rawValue }

    /// `"moov"`, `"©xyz"`: each character's low byte (Latin-1), so `©` is 0xA9 as in QuickTime.
    package init(stringLiteral value: String) {
        precondition(value.unicodeScalars.count == 4, "a FourCC has four characters")
        self.rawValue = value.unicodeScalars.reduce(0) { ($0 << 8) | (UInt32($1.value) & 0xFF) }
    }

    /// Bytes as Latin-1 characters when all four are printable, else `0x` and eight hex digits, so
    /// a hostile code never prints control characters.
    package var description: String {
        let bytes = [24, 16, 8, 0].map { UInt8((rawValue >> UInt32($0)) & 0xFF) }
        if bytes.allSatisfy({ (0x20...0x7E).contains($0) || $0 == 0xA9 }) {
            return String(String.UnicodeScalarView(bytes.map { Unicode.Scalar($0) }))
        }
        return "0x" + String(rawValue, radix: 16).leftPadded(to: 8)
    }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}

/// One box header: where the box is and how big it says it is.
package struct BoxHeader: Equatable {
    /// The box type.
    package var type: FourCC
    /// Offset of the box's first byte in its source.
    package var offset: UInt64
    /// Header length: 8, 16 with a 64-bit largesize, plus 16 for a `uuid` user type.
    package var headerSize: UInt64
    /// Total size including the header, clamped to the source's end when ``isTruncated``.
    package var size: UInt64
    /// Whether the box claimed to run past the end of the file (a top-level box only).
    package var isTruncated: Bool

    package init(type: FourCC, offset: UInt64, headerSize: UInt64, size: UInt64, isTruncated: Bool) {
        self.type = type
        self.offset = offset
        self.headerSize = headerSize
        self.size = size
        self.isTruncated = isTruncated
    }

    /// Offset of the first payload byte.
    var payloadOffset: UInt64 { offset + headerSize }
    /// Offset just past the box.
    package var end: UInt64 { offset + size }
    /// Payload length.
    package var payloadSize: UInt64 { size - headerSize }
}

/// Reads the box structure of an ISO base media file (MP4, MOV, HEIF) from a ``ByteSource``.
///
/// Every read is bounded; a box header is validated against its parent before anything is
/// trusted: size 0 means "to the parent's end", size 1 means a 64-bit largesize follows, sizes
/// below the header are refused, and a child running past its parent's end is an error (at the top
/// level it marks the file as truncated instead). Each box is at least 8 bytes, so walking a level
/// always moves forward and cannot loop; depth and the number of headers read are capped.
package final class BoxReader {
    package let source: any ByteSource
    private var headersRead = 0

    package init(source: any ByteSource) { self.source = source }

    /// The boxes directly inside `parent` (or at the top level when `parent` is nil), in order.
    /// `depth` is the parent's nesting depth. Fewer than 8 trailing bytes (QuickTime's 32-bit zero
    /// terminator) end the level quietly.
    package func children(of parent: BoxHeader?, depth: Int) throws(BoxError) -> [BoxHeader] {
        guard depth < BoxLimits.maximumDepth else { throw .tooDeep }
        let start = parent?.payloadOffset ?? 0
        let end = parent?.end ?? source.size
        var boxes: [BoxHeader] = []
        var position = start
        while end >= 8, position <= end - 8 {
            headersRead += 1
            guard headersRead <= BoxLimits.maximumBoxes else { throw .tooManyBoxes }
            let header = try readHeader(at: position, parentEnd: end, isTopLevel: parent == nil)
            boxes.append(header)
            if header.isTruncated { break }
            position = header.end
        }
        return boxes
    }

    /// The first child of `parent` with type `type`.
    package func child(_ type: FourCC, of parent: BoxHeader, depth: Int) throws(BoxError) -> BoxHeader? {
        try children(of: parent, depth: depth).first { $0.type == type }
    }

    /// The whole payload of `box`; refuses payloads above `limit` bytes.
    package func payload(of box: BoxHeader, limit: Int = BoxLimits.maximumRead) throws(BoxError) -> [UInt8] {
        guard box.payloadSize <= UInt64(limit) else { throw .tooLarge(type: box.type, size: box.size) }
        let bytes = try source.read(at: box.payloadOffset, count: Int(box.payloadSize))
        guard bytes.count == Int(box.payloadSize) else { throw .truncatedPayload(type: box.type) }
        return bytes
    }

    /// The first `count` payload bytes of `box` (fewer when the payload is shorter).
    package func payloadPrefix(of box: BoxHeader, count: Int) throws(BoxError) -> [UInt8] {
        try source.read(at: box.payloadOffset, count: Int(min(UInt64(count), box.payloadSize)))
    }

    private func readHeader(at position: UInt64, parentEnd: UInt64, isTopLevel: Bool) throws(BoxError) -> BoxHeader {
        let bytes = try source.read(at: position, count: Int(min(32, parentEnd - position)))
        var cursor = ByteCursor(bytes, type: "box ")
        let size32 = try cursor.u32()
        let type = FourCC(rawValue: try cursor.u32())
        var headerSize: UInt64 = 8
        var size: UInt64
        switch size32 {
        case 0:
            size = parentEnd - position
        case 1:
            guard let large = try? cursor.u64() else { throw .pastParentEnd(type: type, offset: position) }
            headerSize = 16
            size = large
        default:
            size = UInt64(size32)
        }
        if type == "uuid" { headerSize += 16 }
        guard size >= headerSize else { throw .sizeTooSmall(type: type, offset: position) }
        var truncated = false
        if size > parentEnd - position {
            guard isTopLevel else { throw .pastParentEnd(type: type, offset: position) }
            truncated = true
            size = parentEnd - position
            if size < headerSize { throw .truncatedPayload(type: type) }
        }
        return BoxHeader(type: type, offset: position, headerSize: headerSize, size: size, isTruncated: truncated)
    }
}

/// Reads big-endian fields from a payload, throwing ``BoxError/truncatedPayload(type:)`` instead
/// of reading past its end.
package struct ByteCursor {
    package let bytes: [UInt8]
    package let type: FourCC
    private(set) var position = 0

    package init(_ bytes: [UInt8], type: FourCC) {
        self.bytes = bytes
        self.type = type
    }

    package var remaining: Int { bytes.count - position }

    package mutating func u8() throws(BoxError) -> UInt8 {
        guard remaining >= 1 else { throw .truncatedPayload(type: type) }
        defer { position += 1 }
        return bytes[position]
    }

    package mutating func u16() throws(BoxError) -> UInt16 {
        UInt16(try u8()) << 8 | UInt16(try u8())
    }

    package mutating func u32() throws(BoxError) -> UInt32 {
        UInt32(try u16()) << 16 | UInt32(try u16())
    }

    package mutating func u64() throws(BoxError) -> UInt64 {
        UInt64(try u32()) << 32 | UInt64(try u32())
    }

    package mutating func skip(_ count: Int) throws(BoxError) {
        guard count >= 0, remaining >= count else { throw .truncatedPayload(type: type) }
        position += count
    }

    package mutating func take(_ count: Int) throws(BoxError) -> [UInt8] {
        guard count >= 0, remaining >= count else { throw .truncatedPayload(type: type) }
        defer { position += count }
        return Array(bytes[position..<position + count])
    }

    /// The rest of the payload.
    package mutating func rest() -> [UInt8] {
        defer { position = bytes.count }
        return Array(bytes[position...])
    }
}

extension ByteCursor {
    /// The big-endian 32-bit value at `offset` of `bytes`, which the caller has checked is long enough.
    package static func u32(_ bytes: [UInt8], at offset: Int) -> UInt32 {
        bytes[offset..<offset + 4].reduce(0) { $0 << 8 | UInt32($1) }
    }
}
