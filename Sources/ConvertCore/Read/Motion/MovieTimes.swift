/// Sets the creation and modification times of an MP4 held in memory (`mvhd`, every `tkhd` and
/// `mdhd`), in place: the fields keep their width, so no offset moves and every sample stays
/// where it was.
enum MovieTimes {
    /// Seconds from 1904-01-01 (the MP4 epoch) to 1970-01-01.
    static let epochDifference = 2_082_844_800

    /// Writes `secondsSince1970` into every time field; boxes that cannot be walked are left alone.
    package static func set(_ secondsSince1970: Int, in movie: inout [UInt8]) {
        let value = UInt64(max(0, secondsSince1970 + epochDifference))
        guard let top = try? ByteBox.topLevel(of: movie), let moov = top.first(where: { $0.type == "moov" }) else {
            return
        }
        for box in boxes(in: movie, range: moov.payloadStart..<moov.end, path: ["mvhd"])
            + boxes(in: movie, range: moov.payloadStart..<moov.end, path: ["trak", "tkhd"])
            + boxes(in: movie, range: moov.payloadStart..<moov.end, path: ["trak", "mdia", "mdhd"])
        {
            write(value, into: &movie, box: box)
        }
    }

    /// The boxes reached from `range` along `path` (every match at each level).
    private static func boxes(in movie: [UInt8], range: Range<Int>, path: [String]) -> [ByteBox] {
        guard let first = path.first, let children = try? ByteBox.children(of: movie, in: range) else { return [] }
        let matches = children.filter { $0.type.description == first }
        if path.count == 1 { return matches }
        return matches.flatMap { boxes(in: movie, range: $0.payloadStart..<$0.end, path: Array(path.dropFirst())) }
    }

    /// A full box: version (1 byte), flags (3), then creation and modification time, 32-bit in
    /// version 0 and 64-bit in version 1.
    private static func write(_ value: UInt64, into movie: inout [UInt8], box: ByteBox) {
        let start = box.payloadStart
        guard start < box.end else { return }
        let width = movie[start] == 1 ? 8 : 4
        guard start + 4 + 2 * width <= box.end else { return }
        let stored = width == 4 ? min(value, UInt64(UInt32.max)) : value
        for field in 0..<2 {
            let offset = start + 4 + field * width
            for byte in 0..<width {
                movie[offset + byte] = UInt8(truncatingIfNeeded: stored >> (8 * UInt64(width - 1 - byte)))
            }
        }
    }
}
