/// Samsung's SEF trailer: `SEFH`, a version, an entry count and 12-byte entries (type, distance
/// back from `SEFH` to the entry's data, length), then the directory's length and `SEFT`. Each
/// entry's data is a 4-byte header, its name length, its name (`MotionPhoto_Data`,
/// `Image_UTC_Data`, ...) and the payload. JPEGs carry it after the picture; HEICs in a
/// top-level `sefd` box.
///
/// Every offset is checked before it is followed; a trailer whose entries point outside the file
/// (one that an editor shortened) has no entries.
package struct SamsungTrailer: Sendable {
    /// One entry's data.
    package struct Entry: Sendable {
        /// The entry's name.
        package var name: String
        /// The entry's directory tag (two zero bytes and the type, little-endian).
        var tag: [UInt8]
        /// The entry's data, header and name included.
        package var data: Range<Int>
        /// The payload after the name.
        package var payload: Range<Int>

        /// Whether the entry belongs to the motion part (`MotionPhoto_Data`, `MotionPhoto_Version`, ...).
        var isMotion: Bool { name.hasPrefix("MotionPhoto_") }
    }

    /// The marker that comes before a Samsung motion photo's MP4.
    static let markerBytes: [UInt8] = Array("MotionPhoto_Data".utf8)
    /// The largest directory read from a file's end: 12 bytes an entry, far more than any camera writes.
    private static let maximumDirectory = 64 << 10

    /// Where the `SEFH` directory starts (everything from here to the end is the trailer's index).
    package var start: Int
    /// The directory's version field.
    var version: [UInt8]
    /// The entries whose data lies inside the file.
    package var entries: [Entry]

    /// The entry holding the motion photo's MP4 (or, in a HEIC, a pointer to its `mpvd` box).
    var motionEntry: Entry? { entries.first { $0.name == "MotionPhoto_Data" } }
    /// Where the first entry's data starts: the end of the JPEG the trailer was appended to.
    var firstDataStart: Int? { entries.map(\.data.lowerBound).min() }

    /// The trailer ending at `end` in `file` (the end of the file, or of a `sefd` box), or nil
    /// when there is none.
    package init?(_ file: [UInt8], end: Int? = nil) {
        let count = end ?? file.count
        guard count >= 20, count <= file.count, Array(file[(count - 4)..<count]) == Array("SEFT".utf8) else {
            return nil
        }
        let length = Self.u32(file, count - 8)
        guard length >= 12, length <= count - 8 else { return nil }
        let start = count - 8 - length
        guard Array(file[start..<(start + 4)]) == Array("SEFH".utf8) else { return nil }
        let entryCount = Self.u32(file, start + 8)
        self.start = start
        version = Array(file[(start + 4)..<(start + 8)])
        entries = []
        guard entryCount <= (length - 12) / 12 else { return }
        for index in 0..<entryCount {
            if let entry = Self.entry(file, directory: start, base: start + 12 + index * 12) { entries.append(entry) }
        }
    }

    /// The entry whose directory record is at `base`, if its data lies inside the file.
    private static func entry(_ file: [UInt8], directory start: Int, base: Int) -> Entry? {
        let back = u32(file, base + 4)
        let size = u32(file, base + 8)
        guard back <= start, size >= 8, size <= back else { return nil }
        let dataStart = start - back
        let nameLength = u32(file, dataStart + 4)
        guard nameLength <= size - 8 else { return nil }
        let nameEnd = dataStart + 8 + nameLength
        let name = String(decoding: file[(dataStart + 8)..<nameEnd], as: UTF8.self)
        return Entry(
            name: name, tag: Array(file[base..<(base + 4)]), data: dataStart..<(dataStart + size),
            payload: nameEnd..<(dataStart + size))
    }

    /// The trailer rebuilt from the entries `keep` accepts, each one's data byte for byte, in the
    /// same order, with a directory of the same version; nil when none is kept.
    func rebuilt(from file: [UInt8], keeping keep: (Entry) -> Bool) -> [UInt8]? {
        let kept = entries.filter(keep).sorted { $0.data.lowerBound < $1.data.lowerBound }
        guard !kept.isEmpty else { return nil }
        var data: [UInt8] = []
        var starts: [Int] = []
        for entry in kept {
            starts.append(data.count)
            data += file[entry.data]
        }
        var directory = Array("SEFH".utf8) + version + Self.le32(kept.count)
        for (entry, start) in zip(kept, starts) {
            directory += entry.tag + Self.le32(data.count - start) + Self.le32(entry.data.count)
        }
        return data + directory + Self.le32(directory.count) + Array("SEFT".utf8)
    }

    /// The name of the entry holding the mobile country code of the network the phone was on
    /// (`"276"`, Germany): where the photo was taken, to the country, so a location.
    package static let countryCodeEntry = "MCC_Data"

    /// A same-length patch of the trailer ending at `end` that takes out the entries named
    /// `name`: their data zeroed, and the directory rewritten without their records, moved back
    /// by 12 bytes a record with the freed bytes as zero padding before it, every other record's
    /// offset adjusted. Every other byte, and the file's length, stay (the trailer may be inside
    /// a `sefd` box whose size must not change). Nil when no such entry is there.
    package func patch(removing name: String, from file: [UInt8], end: Int) -> (offset: Int, bytes: [UInt8])? {
        let dropped = entries.filter { $0.name == name }
        guard let first = dropped.map(\.data.lowerBound).min(), end <= file.count, end - start >= 20 else { return nil }
        let count = Self.u32(file, start + 8)
        let recordsEnd = start + 12 + 12 * count
        guard recordsEnd <= end - 8 else { return nil }
        let droppedStarts = Set(dropped.map(\.data.lowerBound))
        let shift = 12 * dropped.count
        var records: [UInt8] = []
        for base in stride(from: start + 12, to: recordsEnd, by: 12) {
            let back = Self.u32(file, base + 4)
            if back <= start, droppedStarts.contains(start - back) { continue }
            records += file[base..<(base + 4)] + Self.le32(back + shift) + file[(base + 8)..<(base + 12)]
        }
        guard records.count == 12 * (count - dropped.count) else { return nil }
        var data = Array(file[first..<start])
        for entry in dropped {
            data.replaceSubrange(
                (entry.data.lowerBound - first)..<(entry.data.upperBound - first),
                with: repeatElement(0, count: entry.data.count))
        }
        let directory =
            Array("SEFH".utf8) + version + Self.le32(count - dropped.count) + records + file[recordsEnd..<(end - 8)]
        let bytes =
            data + [UInt8](repeating: 0, count: shift) + directory + Self.le32(directory.count) + Array("SEFT".utf8)
        return bytes.count == end - first ? (first, bytes) : nil
    }

    /// The names of the entries of the trailer at the end of `source`, reading only its
    /// directory and each entry's name; empty when it has none.
    static func entryNames(in source: some ByteSource) -> [String] {
        guard source.size >= 20, let tail = try? source.read(at: source.size - 8, count: 8), tail.count == 8,
            Array(tail[4...]) == Array("SEFT".utf8)
        else { return [] }
        let length = u32(tail, 0)
        guard length >= 12, length <= maximumDirectory, UInt64(length) <= source.size - 8 else { return [] }
        let start = source.size - 8 - UInt64(length)
        guard let directory = try? source.read(at: start, count: length), directory.count == length,
            Array(directory.prefix(4)) == Array("SEFH".utf8)
        else { return [] }
        let count = min(u32(directory, 8), (length - 12) / 12)
        return (0..<count).compactMap { index in
            let back = UInt64(u32(directory, 12 + index * 12 + 4))
            guard back <= start, back >= 8,
                let head = try? source.read(at: start - back, count: 8 + 32), head.count >= 8
            else { return nil }
            let nameLength = min(u32(head, 4), head.count - 8)
            return String(decoding: head[8..<(8 + nameLength)], as: UTF8.self)
        }
    }

    /// Where the last `MotionPhoto_Data` marker followed by an MP4 starts, or nil.
    package static func marker(in file: [UInt8]) -> Int? {
        let marker = markerBytes
        guard file.count > marker.count + 8 else { return nil }
        var index = file.count - marker.count - 8
        while index >= 2 {
            if file[index] == marker[0], Array(file[index..<(index + marker.count)]) == marker,
                Array(file[(index + marker.count + 4)..<(index + marker.count + 8)]) == Array("ftyp".utf8)
            {
                return index
            }
            index -= 1
        }
        return nil
    }

    private static func u32(_ file: [UInt8], _ offset: Int) -> Int {
        guard offset >= 0, offset + 4 <= file.count else { return Int.max }
        return (0..<4).reduce(0) { $0 | Int(file[offset + $1]) << (8 * $1) }
    }

    private static func le32(_ value: Int) -> [UInt8] {
        (0..<4).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) }
    }
}
