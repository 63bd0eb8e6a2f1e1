/// A FLIR thermal camera's APP1 `FLIR` segments: one FFF file (the thermal data, the camera's
/// calibration, a picture-in-picture record and a GPS record) cut into numbered chunks.
///
/// Each segment's payload is `FLIR\0`, a version byte, the chunk's number and the number of the
/// last chunk, then that chunk's bytes. The FFF data starts with `FFF\0`, its format version
/// (100–199) at 0x14 telling the byte order, the offset of its record directory at 0x18 and the
/// number of entries at 0x1C. Each directory entry is 32 bytes: the record type (16 bits), at
/// 0x0C the record's offset in the FFF data and at 0x10 its length; type 0 is a free entry.
/// Record type 0x2B is the GPS record (exiftool's `FLIR::GPSInfo`: GPSValid, the references,
/// latitude and longitude as doubles, altitude, map datum).
package struct FLIRRecords: Sendable {
    /// The GPS record's type.
    static let gpsRecordType = 0x2B
    /// The header of a FLIR segment's payload before its chunk of FFF data.
    static let headerCount = 8

    /// The FFF data, its chunks joined in order.
    let fff: [UInt8]
    /// Where each chunk's bytes lie in the file, in FFF order.
    private let chunks: [Range<Int>]
    /// Whether the FFF directory is big-endian.
    private let bigEndian: Bool

    /// The FLIR data of the JPEG `data`, nil when it has no complete set of FLIR segments or
    /// they do not hold FFF data.
    package init?(jpeg data: [UInt8]) {
        var numbered: [Int: Range<Int>] = [:]
        var last: Int?
        for segment in JPEGMarkers.segments(data) where segment.marker == 0xE1 {
            let payload = segment.payload
            guard payload.count >= Self.headerCount, Array(data[payload.prefix(5)]) == Array("FLIR\0".utf8) else {
                continue
            }
            let number = Int(data[payload.lowerBound + 6])
            let total = Int(data[payload.lowerBound + 7])
            // Inconsistent totals or a chunk twice: not a set this reader can join.
            if let last, last != total { return nil }
            last = total
            guard numbered[number] == nil else { return nil }
            numbered[number] = (payload.lowerBound + Self.headerCount)..<payload.upperBound
        }
        guard let last, numbered.count == last + 1 else { return nil }
        var chunks: [Range<Int>] = []
        for number in 0...last {
            guard let range = numbered[number] else { return nil }
            chunks.append(range)
        }
        self.chunks = chunks
        fff = chunks.flatMap { data[$0] }
        guard fff.count >= 0x40, fff.starts(with: Array("FFF\0".utf8)) else { return nil }
        let version = Self.u32(fff, 0x14, bigEndian: true)
        if (100..<200).contains(version) {
            bigEndian = true
        } else if (100..<200).contains(Self.u32(fff, 0x14, bigEndian: false)) {
            bigEndian = false
        } else {
            return nil
        }
    }

    /// A directory entry: where it is, its record type and where its record is (FFF offsets).
    private struct Entry {
        var offset: Int
        var type: Int
        var record: Range<Int>
    }

    /// The directory's entries whose record lies inside the FFF data.
    private var entries: [Entry] {
        let directory = Int(Self.u32(fff, 0x18, bigEndian: bigEndian))
        let count = Int(Self.u32(fff, 0x1C, bigEndian: bigEndian))
        guard directory <= fff.count else { return [] }
        var entries: [Entry] = []
        for index in 0..<min(count, (fff.count - directory) / 32) {
            let offset = directory + index * 32
            let type = Int(Self.u16(fff, offset, bigEndian: bigEndian))
            let start = Int(Self.u32(fff, offset + 0x0C, bigEndian: bigEndian))
            let length = Int(Self.u32(fff, offset + 0x10, bigEndian: bigEndian))
            guard type != 0, start <= fff.count, length <= fff.count - start else { continue }
            entries.append(Entry(offset: offset, type: type, record: start..<(start + length)))
        }
        return entries
    }

    /// Whether a GPS record with any content (not all zeros) is present.
    package var hasGPS: Bool {
        entries.contains { $0.type == Self.gpsRecordType && fff[$0.record].contains { $0 != 0 } }
    }

    /// Same-length edits (file offset, bytes) that free every GPS record: the record zeroed and
    /// its directory entry made a free one (all zeros), so no reader finds a GPS record at all.
    /// Empty when there is none.
    package var gpsRemovalPatches: [(offset: Int, bytes: [UInt8])] {
        var patches: [(offset: Int, bytes: [UInt8])] = []
        for entry in entries where entry.type == Self.gpsRecordType {
            patches += filePatches(zeroing: entry.record) + filePatches(zeroing: entry.offset..<(entry.offset + 32))
        }
        return patches
    }

    /// Patches zeroing the FFF range `range`, split where it crosses from one chunk to the next.
    private func filePatches(zeroing range: Range<Int>) -> [(offset: Int, bytes: [UInt8])] {
        var patches: [(offset: Int, bytes: [UInt8])] = []
        var chunkStart = 0
        for chunk in chunks {
            let chunkRange = chunkStart..<(chunkStart + chunk.count)
            let overlap = range.clamped(to: chunkRange)
            if !overlap.isEmpty {
                patches.append(
                    (chunk.lowerBound + overlap.lowerBound - chunkStart, [UInt8](repeating: 0, count: overlap.count)))
            }
            chunkStart += chunk.count
        }
        return patches
    }

    /// A 16-bit value at `offset` in either byte order, 0 past the end.
    private static func u16(_ bytes: [UInt8], _ offset: Int, bigEndian: Bool) -> UInt16 {
        guard offset >= 0, offset + 2 <= bytes.count else { return 0 }
        let (a, b) = (UInt16(bytes[offset]), UInt16(bytes[offset + 1]))
        return bigEndian ? a << 8 | b : b << 8 | a
    }

    /// A 32-bit value at `offset` in either byte order, 0 past the end.
    private static func u32(_ bytes: [UInt8], _ offset: Int, bigEndian: Bool) -> UInt32 {
        guard offset >= 0, offset + 4 <= bytes.count else { return 0 }
        let value = (0..<4).reduce(UInt32(0)) { $0 << 8 | UInt32(bytes[offset + (bigEndian ? $1 : 3 - $1)]) }
        return value
    }
}
