/// Samsung's SEF trailer at the end of a JPEG: `SEFH`, a version, an entry count and 12-byte
/// entries (type, distance back from `SEFH` to the entry's data, length), then the directory's
/// length and `SEFT`. Each entry's data is a 4-byte header, its name length, its name
/// (`MotionPhoto_Data`, `Image_UTC_Data`, ...) and the payload.
///
/// Every offset is checked before it is followed; a trailer whose entries point outside the file
/// (one that an editor shortened) has no entries.
struct SamsungTrailer: Sendable {
    /// One entry's data.
    package struct Entry: Sendable {
        /// The entry's name.
        package var name: String
        /// The entry's data, header and name included.
        package var data: Range<Int>
        /// The payload after the name.
        package var payload: Range<Int>
    }

    /// The marker that comes before a Samsung motion photo's MP4.
    static let markerBytes: [UInt8] = Array("MotionPhoto_Data".utf8)

    /// Where the `SEFH` directory starts (everything from here to the end is the trailer's index).
    package var start: Int
    /// The entries whose data lies inside the file.
    package var entries: [Entry]

    /// The entry holding the motion photo's MP4.
    var motionEntry: Entry? { entries.first { $0.name == "MotionPhoto_Data" } }
    /// Where the first entry's data starts: the end of the JPEG the trailer was appended to.
    var firstDataStart: Int? { entries.map(\.data.lowerBound).min() }

    /// The trailer at the end of `file`, or nil when there is none.
    package init?(_ file: [UInt8]) {
        let count = file.count
        guard count >= 20, Array(file[(count - 4)...]) == Array("SEFT".utf8) else { return nil }
        let length = Self.u32(file, count - 8)
        guard length >= 12, length <= count - 8 else { return nil }
        let start = count - 8 - length
        guard Array(file[start..<(start + 4)]) == Array("SEFH".utf8) else { return nil }
        let entryCount = Self.u32(file, start + 8)
        self.start = start
        entries = []
        guard entryCount <= (length - 12) / 12 else { return }
        for index in 0..<entryCount {
            let base = start + 12 + index * 12
            let back = Self.u32(file, base + 4)
            let size = Self.u32(file, base + 8)
            guard back <= start, size >= 8, size <= back else { continue }
            let dataStart = start - back
            let nameLength = Self.u32(file, dataStart + 4)
            guard nameLength <= size - 8 else { continue }
            let nameEnd = dataStart + 8 + nameLength
            let name = String(decoding: file[(dataStart + 8)..<nameEnd], as: UTF8.self)
            entries.append(Entry(name: name, data: dataStart..<(dataStart + size), payload: nameEnd..<(dataStart + size)))
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
}
