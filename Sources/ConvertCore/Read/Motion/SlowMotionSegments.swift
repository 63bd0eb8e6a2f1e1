/// The slow-motion segments a Samsung phone writes in the SEF trailer at the end of a video: the
/// `SlowMotion_Data` entry (directory type `0x0890`, or one of a super slow-motion clip's), whose text lists `start:end:mode` triples in
/// milliseconds of the file's timeline, separated by `*` (`88:879:2*1255:1970:4`). A mode `m`
/// plays its part `2^(m-1)` times slower than the rest, as androidx/media's SefReader reads it.
///
/// The trailer ends the file: a directory (`SEFH`, a version, an entry count, then per entry two
/// flag bytes, the type, the distance back from `SEFH` to the entry's data and its length, all
/// little-endian), its length and `SEFT`. Every length and offset is checked against the file
/// and a small bound before anything is read, so a damaged or lying trailer gives
/// ``Reading/damaged(_:)``, never a read outside the file.
package struct SlowMotionSegments: Sendable, Equatable {
    /// One slowed part of the clip.
    package struct Segment: Sendable, Equatable {
        /// Where the part starts, in milliseconds of the file's timeline.
        package var startMilliseconds: Int
        /// Where the part ends, in milliseconds of the file's timeline.
        package var endMilliseconds: Int
        /// How many times slower than the rest the part plays (2, 4, 8, ...).
        package var speedDivisor: Int
    }

    /// What reading a file's trailer found.
    package enum Reading: Sendable, Equatable {
        /// No SEF trailer, or one without a slow-motion entry.
        case absent
        /// The segments, in time order.
        case segments(SlowMotionSegments)
        /// A trailer or slow-motion entry that cannot be read, and why (for a note).
        case damaged(String)
    }

    /// The directory types androidx/media's SefReader follows: `SlowMotion_Data` (`0x0890`) and
    /// a super slow-motion clip's entries (`0x0b00`, `0x0b01`, `0x0b03`, `0x0b04`). As there,
    /// the entry is then known by its name, not its type: phones do not write the types
    /// consistently.
    static let slowMotionTypes: Set<UInt16> = [0x0890, 0x0B00, 0x0B01, 0x0B03, 0x0B04]
    /// The name of the entry holding the segments.
    static let slowMotionName = "SlowMotion_Data"
    /// The largest directory or entry read: far more than any phone writes.
    private static let maximumRead = 64 << 10
    /// The largest speed mode accepted (a divisor of 128).
    private static let maximumMode = 8

    /// The segments, sorted by start, not overlapping.
    package var segments: [Segment]

    /// Reads the SEF trailer at the end of `source`.
    package static func read(from source: some ByteSource) -> Reading {
        switch locate(in: source) {
        case .absent: return .absent
        case .damaged(let why): return .damaged(why)
        case .entries(let entries):
            for entry in entries {
                guard let data = try? source.read(at: entry.offset, count: entry.length), data.count == entry.length
                else { return .damaged("its slow-motion entry is cut short") }
                if name(of: data) == slowMotionName { return parse(entry: data) }
            }
            return .absent
        }
    }

    /// Where a trailer's candidate entries lie.
    private enum Location {
        case absent
        case damaged(String)
        case entries([(offset: UInt64, length: Int)])
    }

    /// Finds the entries of the slow-motion types in the trailer at the end of `source`, checking
    /// the directory's length and each entry's offset and length against the file.
    private static func locate(in source: some ByteSource) -> Location {
        guard source.size >= 20, let tail = try? source.read(at: source.size - 8, count: 8), tail.count == 8,
            Array(tail[4...]) == Array("SEFT".utf8)
        else { return endsInCutTrailer(source) ? .damaged("its SEF trailer is cut short") : .absent }
        let length = Int(le32(tail, 0))
        guard length >= 12, length <= maximumRead, UInt64(length) <= source.size - 8 else {
            return .damaged("its SEF trailer's directory lies outside the file")
        }
        let start = source.size - 8 - UInt64(length)
        guard let bytes = try? source.read(at: start, count: length), bytes.count == length,
            Array(bytes.prefix(4)) == Array("SEFH".utf8)
        else { return .damaged("its SEF trailer's directory is damaged") }
        let count = Int(le32(bytes, 8))
        guard count <= (length - 12) / 12 else { return .damaged("its SEF trailer's directory is cut short") }
        var entries: [(offset: UInt64, length: Int)] = []
        for index in 0..<count {
            let record = 12 + index * 12
            guard slowMotionTypes.contains(UInt16(bytes[record + 2]) | UInt16(bytes[record + 3]) << 8) else { continue }
            let back = UInt64(le32(bytes, record + 4))
            let size = Int(le32(bytes, record + 8))
            guard back <= start, size >= 8, size <= maximumRead, UInt64(size) <= back else {
                return .damaged("its slow-motion entry points outside the file")
            }
            entries.append((start - back, size))
        }
        return entries.isEmpty ? .absent : .entries(entries)
    }

    /// The name in an entry's data (after its type and flags and the name's length), or nil.
    private static func name(of data: [UInt8]) -> String? {
        guard data.count >= 8 else { return nil }
        let length = Int(le32(data, 4))
        guard length <= data.count - 8 else { return nil }
        return String(decoding: data[8..<(8 + length)], as: UTF8.self)
    }

    /// The bytes of the file's Samsung trailer, when its last top-level box is a whole `sefd` box
    /// ending in `SEFT`: what a copy appends to keep the phone's slow motion (its offsets count
    /// back from its own directory, so the box means the same at the end of another file). Nil for
    /// any other ending, or a box over the bound a trailer ever needs.
    package static func trailerBox(in source: some ByteSource) -> [UInt8]? {
        guard let top = try? BoxReader(source: source).children(of: nil, depth: 0), let last = top.last,
            last.type == "sefd", !last.isTruncated, last.end == source.size, last.size <= UInt64(maximumRead),
            let bytes = try? source.read(at: last.offset, count: Int(last.size)), bytes.count == Int(last.size),
            bytes.suffix(4).elementsEqual("SEFT".utf8)
        else { return nil }
        return bytes
    }

    /// Whether the file's last top-level box is a Samsung `sefd` trailer that runs past its end.
    private static func endsInCutTrailer(_ source: some ByteSource) -> Bool {
        guard let top = try? BoxReader(source: source).children(of: nil, depth: 0), let last = top.last else {
            return false
        }
        return last.type == "sefd" && last.isTruncated
    }

    /// The segments of one entry's data: type, flags, name length, name, then the text.
    static func parse(entry data: [UInt8]) -> Reading {
        guard data.count >= 8 else { return .damaged("its slow-motion entry is cut short") }
        let nameLength = Int(le32(data, 4))
        guard nameLength <= data.count - 8 else { return .damaged("its slow-motion entry is cut short") }
        return parse(text: String(decoding: data[(8 + nameLength)...], as: UTF8.self))
    }

    /// The segments of a `start:end:mode*...` text.
    static func parse(text: String) -> Reading {
        var segments: [Segment] = []
        let trimmed = text.filter { $0 != "\0" && !$0.isWhitespace }
        for part in trimmed.split(separator: "*", omittingEmptySubsequences: true) {
            let values = part.split(separator: ":", omittingEmptySubsequences: false).map { Int($0) }
            guard values.count == 3, let start = values[0], let end = values[1], let mode = values[2],
                start >= 0, end > start, end <= 24 * 3_600_000, (1...maximumMode).contains(mode)
            else { return .damaged("its slow-motion entry reads \"\(part.prefix(40))\"") }
            // Mode 1 is normal speed: nothing to slow.
            if mode > 1 {
                segments.append(Segment(startMilliseconds: start, endMilliseconds: end, speedDivisor: 1 << (mode - 1)))
            }
        }
        segments.sort { $0.startMilliseconds < $1.startMilliseconds }
        for (earlier, later) in zip(segments, segments.dropFirst())
        where later.startMilliseconds < earlier.endMilliseconds {
            return .damaged("its slow-motion segments overlap")
        }
        return segments.isEmpty ? .absent : .segments(SlowMotionSegments(segments: segments))
    }

    private static func le32(_ bytes: [UInt8], _ offset: Int) -> UInt32 {
        guard offset >= 0, offset + 4 <= bytes.count else { return UInt32.max }
        return (0..<4).reduce(UInt32(0)) { $0 | UInt32(bytes[offset + $1]) << (8 * UInt32($1)) }
    }
}
