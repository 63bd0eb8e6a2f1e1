/// The Multi-Picture Format index of a JPEG (CIPA DC-007): the APP2 `MPF` segment of the first
/// image, a TIFF structure whose MPEntry tag lists every image in the file with its attribute,
/// its length and its offset from that TIFF header. Stereo cameras (MPO files: Fujifilm
/// FinePix Real 3D, Nintendo 3DS, some phones) store the right-eye picture as the second image;
/// Ultra HDR and ISO 21496-1 photos store their gain map the same way.
///
/// Every offset is checked against the file before it is used: an entry that points outside it,
/// or at anything but a JPEG's SOI, is left out.
struct MPFIndex: Sendable {
    /// One image the index lists.
    struct Entry: Sendable {
        /// The individual image attribute: flags in the top bits, the MP type code in the low 24.
        var attribute: UInt32
        /// The image's bytes in the file, SOI onward; for the first image, the whole file's start.
        var range: Range<Int>

        /// The MP type code (CIPA DC-007, 5.2.3.3.1): 0x020002 disparity (stereo), 0x020003
        /// multi-angle, 0x030000 baseline primary, 0 undefined (as Ultra HDR marks its gain map).
        var typeCode: UInt32 { attribute & 0x00FF_FFFF }
        /// Whether the image is another view of the scene: a stereo pair's other eye or one of a
        /// multi-angle set.
        var isView: Bool { typeCode == 0x02_0002 || typeCode == 0x02_0003 }
    }

    /// The images after the first, in the index's order (the first is the file's own picture).
    var others: [Entry]

    private static let signature: [UInt8] = Array("MPF".utf8) + [0]
    /// More entries than any camera writes; a larger count is damage.
    private static let maximumEntries = 64

    /// The index of JPEG `data`, or nil when it has no readable MPF segment.
    init?(_ data: [UInt8]) {
        guard
            let segment = JPEGMarkers.segments(data).first(where: {
                $0.marker == 0xE2 && data[$0.payload].starts(with: Self.signature)
            })
        else { return nil }
        let reader = TIFFWords(data: data, tiff: segment.payload.lowerBound + Self.signature.count)
        guard let entries = reader.mpEntries() else { return nil }
        others = entries.dropFirst().compactMap { attribute, length, offset in
            let start = reader.tiff + offset
            guard offset > 0, start + 2 <= data.count, data[start] == 0xFF, data[start + 1] == 0xD8, length > 2 else {
                return nil
            }
            return Entry(attribute: attribute, range: start..<min(data.count, start + length))
        }
    }

    /// The other views of the scene (a stereo pair's right eye), each a whole JPEG.
    var views: [Entry] { others.filter(\.isView) }

    /// Reads the TIFF words of the MPF segment in its byte order.
    private struct TIFFWords {
        let data: [UInt8]
        let tiff: Int

        private var bigEndian: Bool { tiff < data.count && data[tiff] == 0x4D }

        func u16(_ at: Int) -> Int? {
            guard at >= 0, at + 2 <= data.count else { return nil }
            return bigEndian ? Int(data[at]) << 8 | Int(data[at + 1]) : Int(data[at + 1]) << 8 | Int(data[at])
        }

        func u32(_ at: Int) -> Int? {
            guard let first = u16(at), let second = u16(at + 2) else { return nil }
            return bigEndian ? first << 16 | second : second << 16 | first
        }

        /// The MPEntry records: (attribute, length, offset from the TIFF header), in order.
        func mpEntries() -> [(UInt32, Int, Int)]? {
            guard tiff + 8 <= data.count, let ifd = u32(tiff + 4), let count = u16(tiff + ifd), count < 100 else {
                return nil
            }
            for index in 0..<count {
                let entry = tiff + ifd + 2 + index * 12
                guard let tag = u16(entry), tag == 0xB002, let size = u32(entry + 4), let offset = u32(entry + 8) else {
                    continue
                }
                var entries: [(UInt32, Int, Int)] = []
                for item in 0..<min(size / 16, MPFIndex.maximumEntries) {
                    let at = tiff + offset + item * 16
                    guard let attribute = u32(at), let length = u32(at + 4), let start = u32(at + 8) else { break }
                    entries.append((UInt32(truncatingIfNeeded: attribute), length, start))
                }
                return entries
            }
            return nil
        }
    }
}
