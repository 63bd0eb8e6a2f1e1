import FoundationEssentials

/// An EXIF block (a TIFF stream: byte-order mark, IFD0, Exif/GPS/Interop sub-IFDs, IFD1 thumbnail)
/// parsed defensively and rewritten.
///
/// Every offset and count is checked against the data before it is followed; loops, absurd entry
/// counts and unknown types end the walk of that directory instead of crashing or allocating. A
/// block that cannot be parsed at all is reported as nil, and a conversion then drops it.
package struct Exif: Sendable {
    /// One directory entry. `value` holds the raw value bytes in the block's byte order.
    package struct Entry: Sendable {
        package var tag: UInt16
        package var type: UInt16
        package var count: UInt32
        package var value: [UInt8]
        /// The sub-directory this entry points to (Exif, GPS, Interop), parsed.
        package var child: Directory?
        /// Where the value's bytes start in the original block (for in-place patches).
        var valueOffset: Int
    }

    /// One IFD.
    package struct Directory: Sendable {
        package var entries: [Entry]

        package func entry(_ tag: UInt16) -> Entry? { entries.first { $0.tag == tag } }
    }

    enum Tag {
        package static let make: UInt16 = 0x010F
        package static let model: UInt16 = 0x0110
        package static let orientation: UInt16 = 0x0112
        static let exifIFD: UInt16 = 0x8769
        static let gpsIFD: UInt16 = 0x8825
        fileprivate static let interopIFD: UInt16 = 0xA005
        package static let dateTimeOriginal: UInt16 = 0x9003
        static let makerNote: UInt16 = 0x927C
        fileprivate static let imageUniqueID: UInt16 = 0xA420
        fileprivate static let cameraOwnerName: UInt16 = 0xA430
        fileprivate static let bodySerialNumber: UInt16 = 0xA431
        fileprivate static let lensSerialNumber: UInt16 = 0xA435
        static let pixelXDimension: UInt16 = 0xA002
        fileprivate static let pixelYDimension: UInt16 = 0xA003
    }

    /// Tags that identify the camera's owner or the device itself; removed unless metadata is
    /// kept on purpose. MakerNote goes too: vendors hide serial numbers in it, and its internal
    /// offsets break when the block is rebuilt anyway.
    static let identifyingTags: Set<UInt16> = [
        Tag.makerNote, Tag.imageUniqueID, Tag.cameraOwnerName, Tag.bodySerialNumber, Tag.lensSerialNumber,
    ]

    /// The original bytes.
    package let bytes: [UInt8]
    let bigEndian: Bool
    var ifd0: Directory
    /// Whether the block had an IFD1 (a thumbnail directory).
    let hasThumbnail: Bool
    /// Whether IFD1's own directory carries GPS (a thumbnail directory with a GPS pointer).
    package let thumbnailHasGPS: Bool

    private static let typeSizes: [UInt16: Int] = [
        1: 1, 2: 1, 3: 2, 4: 4, 5: 8, 6: 1, 7: 1, 8: 2, 9: 4, 10: 8, 11: 4, 12: 8, 13: 4,
    ]
    private static let maxEntries = 1000

    /// Parses a TIFF stream (starting with `II*\0` or `MM\0*`); nil when it is not one.
    package init?(tiff bytes: [UInt8]) {
        guard bytes.count >= 8 else { return nil }
        let big: Bool
        if bytes[0] == 0x4D && bytes[1] == 0x4D {
            big = true
        } else if bytes[0] == 0x49 && bytes[1] == 0x49 {
            big = false
        } else {
            return nil
        }
        self.bytes = bytes
        bigEndian = big
        var reader = Reader(bytes: bytes, bigEndian: big)
        guard reader.u16(2) == 42, let first = reader.u32(4) else { return nil }
        guard let (ifd0, next) = reader.directory(at: Int(first), depth: 0) else { return nil }
        self.ifd0 = ifd0
        if next != 0, let (ifd1, _) = reader.directory(at: next, depth: 0) {
            hasThumbnail = true
            thumbnailHasGPS = ifd1.entry(Tag.gpsIFD) != nil
        } else {
            hasThumbnail = false
            thumbnailHasGPS = false
        }
    }

    /// Parses the payload of a JPEG APP1 or a bare TIFF stream (an `Exif\0\0` prefix is skipped).
    package init?(block: [UInt8]) {
        if block.starts(with: JPEGMarkers.exifHeader) {
            self.init(tiff: Array(block.dropFirst(JPEGMarkers.exifHeader.count)))
        } else {
            self.init(tiff: block)
        }
    }

    private struct Reader {
        package let bytes: [UInt8]
        let bigEndian: Bool
        fileprivate var visited: Set<Int> = []

        package func u16(_ offset: Int) -> UInt16? {
            guard offset >= 0, offset + 2 <= bytes.count else { return nil }
            let a = UInt16(bytes[offset])
            let b = UInt16(bytes[offset + 1])
            return bigEndian ? a << 8 | b : b << 8 | a
        }

        package func u32(_ offset: Int) -> UInt32? {
            guard offset >= 0, offset + 4 <= bytes.count else { return nil }
            let v = (0..<4).map { UInt32(bytes[offset + $0]) }
            return bigEndian ? v[0] << 24 | v[1] << 16 | v[2] << 8 | v[3] : v[3] << 24 | v[2] << 16 | v[1] << 8 | v[0]
        }

        /// The directory at `offset` and the offset of the next one (0 when none).
        package mutating func directory(at offset: Int, depth: Int) -> (Directory, Int)? {
            guard depth <= 2, offset >= 8, !visited.contains(offset), let count = u16(offset) else { return nil }
            visited.insert(offset)
            let entryCount = Int(count)
            guard entryCount <= Exif.maxEntries, offset + 2 + entryCount * 12 + 4 <= bytes.count else { return nil }
            var entries: [Entry] = []
            for index in 0..<entryCount {
                let at = offset + 2 + index * 12
                guard let tag = u16(at), let type = u16(at + 2), let count = u32(at + 4),
                    let size = Exif.typeSizes[type]
                else { continue }
                let (total, overflow) = Int(count).multipliedReportingOverflow(by: size)
                guard !overflow, total <= bytes.count else { continue }
                let valueOffset: Int
                if total <= 4 {
                    valueOffset = at + 8
                } else {
                    guard let pointer = u32(at + 8), Int(pointer) + total <= bytes.count else { continue }
                    valueOffset = Int(pointer)
                }
                var entry = Entry(
                    tag: tag, type: type, count: count, value: Array(bytes[valueOffset..<(valueOffset + total)]),
                    child: nil, valueOffset: valueOffset)
                if [Tag.exifIFD, Tag.gpsIFD, Tag.interopIFD].contains(tag) {
                    guard type == 4 || type == 13, count == 1, let target = u32(valueOffset),
                        let (child, _) = directory(at: Int(target), depth: depth + 1)
                    else { continue }
                    entry.child = child
                }
                entries.append(entry)
            }
            let next = u32(offset + 2 + entryCount * 12).map(Int.init) ?? 0
            return (Directory(entries: entries), next)
        }
    }

    // MARK: Reading

    private func u16(_ value: [UInt8]) -> UInt16? {
        guard value.count >= 2 else { return nil }
        return bigEndian ? UInt16(value[0]) << 8 | UInt16(value[1]) : UInt16(value[1]) << 8 | UInt16(value[0])
    }

    private func string(_ entry: Entry?) -> String? {
        guard let entry, entry.type == 2 else { return nil }
        let text = String(decoding: entry.value.prefix { $0 != 0 }, as: UTF8.self)
        let trimmed = text.trimmingWhitespace()
        return trimmed.isEmpty ? nil : trimmed
    }

    private var exifDirectory: Directory? { ifd0.entry(Tag.exifIFD)?.child }

    /// EXIF Orientation (1...8), or nil when absent or out of range.
    package var orientation: Int? {
        guard let entry = ifd0.entry(Tag.orientation), entry.type == 3, let value = u16(entry.value),
            (1...8).contains(value)
        else { return nil }
        return Int(value)
    }

    /// DateTimeOriginal as written (`YYYY:MM:DD HH:MM:SS`).
    package var dateTimeOriginal: String? { string(exifDirectory?.entry(Tag.dateTimeOriginal)) }
    /// Camera maker.
    package var make: String? { string(ifd0.entry(Tag.make)) }
    /// Camera model.
    package var model: String? { string(ifd0.entry(Tag.model)) }
    /// Whether a GPS IFD with at least one entry is present.
    package var hasGPS: Bool { !(ifd0.entry(Tag.gpsIFD)?.child?.entries.isEmpty ?? true) }
    /// GPS tags that say nothing about where: version, time and date, satellites, status,
    /// measure mode, DOP, speed, track, image direction, map datum, differential correction and
    /// positioning error.
    static let gpsTagsWithoutPosition: Set<UInt16> = [
        0x00, 0x07, 0x08, 0x09, 0x0A, 0x0B, 0x0C, 0x0D, 0x0E, 0x0F, 0x10, 0x11, 0x12, 0x1D, 0x1E, 0x1F,
    ]
    /// Whether the GPS IFD records a position: any tag but those of
    /// ``gpsTagsWithoutPosition`` (a camera without a fix writes GPSStatus V and nothing else).
    package var gpsHasPosition: Bool {
        ifd0.entry(Tag.gpsIFD)?.child?.entries.contains { !Self.gpsTagsWithoutPosition.contains($0.tag) } ?? false
    }
    /// Whether a GPS IFD is there without a position (``gpsHasPosition`` false).
    package var hasGPSWithoutPosition: Bool { hasGPS && !gpsHasPosition }
    /// The identifying tags present, in IFD0 and the Exif IFD.
    var identifyingTagsPresent: Set<UInt16> {
        let tags = ifd0.entries.map(\.tag) + (exifDirectory?.entries.map(\.tag) ?? [])
        return Set(tags).intersection(Exif.identifyingTags)
    }

    /// Whether serial numbers, owner names or a maker note are present.
    var hasIdentifyingTags: Bool { !identifyingTagsPresent.isEmpty }

    // MARK: Writing

    /// The block with the Exif IFD's PixelXDimension/PixelYDimension set to `width`×`height`
    /// where they are stored (their values sit in the entry itself), everything else as it was.
    /// A SHORT too small for the new value becomes a LONG in place. Without them, the block
    /// is returned unchanged.
    func settingPixelDimensions(width: Int, height: Int) -> [UInt8] {
        var out = bytes
        guard let directory = exifDirectory else { return out }
        for (tag, value) in [(Tag.pixelXDimension, width), (Tag.pixelYDimension, height)] {
            guard let entry = directory.entry(tag), entry.count == 1, value >= 0, value <= Int(UInt32.max),
                entry.type == 3 || entry.type == 4, entry.valueOffset >= 6, entry.valueOffset + 4 <= out.count
            else { continue }
            if entry.type == 3 && value <= Int(UInt16.max) {
                put16(UInt16(value), at: entry.valueOffset, in: &out)
            } else {
                put16(4, at: entry.valueOffset - 6, in: &out)
                put32(UInt32(value), at: entry.valueOffset, in: &out)
            }
        }
        return out
    }

    /// The original block with Orientation set to 1 where it is stored, everything else
    /// byte-identical (what `--keep-metadata` writes: nothing is dropped, offsets stay valid).
    func withOrientationResetInPlace() -> [UInt8] {
        var out = bytes
        if let entry = ifd0.entry(Tag.orientation), entry.type == 3, entry.valueOffset + 2 <= out.count {
            out[entry.valueOffset] = bigEndian ? 0 : 1
            out[entry.valueOffset + 1] = bigEndian ? 1 : 0
        }
        return out
    }

    /// A new TIFF stream with IFD0 and its sub-IFDs only: no IFD1 (so no thumbnail can carry
    /// anything out), Orientation 1, optionally without the GPS IFD and identifying tags.
    func rebuilt(keepLocation: Bool, keepIdentifiers: Bool) -> [UInt8] {
        func filter(_ directory: Directory) -> Directory {
            var result = Directory(entries: [])
            for var entry in directory.entries {
                if entry.tag == Tag.gpsIFD && !keepLocation { continue }
                if !keepIdentifiers && Exif.identifyingTags.contains(entry.tag) { continue }
                if entry.tag == Tag.orientation && entry.type == 3 {
                    entry.value = bigEndian ? [0, 1] : [1, 0]
                    entry.count = 1
                }
                if let child = entry.child { entry.child = filter(child) }
                result.entries.append(entry)
            }
            return result
        }
        var out: [UInt8] = bigEndian ? [0x4D, 0x4D, 0, 42, 0, 0, 0, 8] : [0x49, 0x49, 42, 0, 8, 0, 0, 0]
        write(filter(ifd0), into: &out)
        return out
    }

    /// IFD0 tags a TIFF photo's first page shares with EXIF: description, camera, resolution,
    /// software, date, artist, copyright, Orientation, and the Exif and GPS sub-IFDs.
    private static let tiffPageTags: Set<UInt16> = [
        0x010E, Tag.make, Tag.model, Tag.orientation, 0x011A, 0x011B, 0x0128, 0x0131, 0x0132, 0x013B, 0x8298,
        Tag.exifIFD, Tag.gpsIFD,
    ]

    /// The EXIF of a TIFF file's first page, as a new TIFF stream: only ``tiffPageTags`` (the
    /// tags that lay out the file's own pictures, strips, profile and XMP mean nothing in another
    /// file), so the conversion's metadata policy can judge it like a JPEG's. nil when the file
    /// cannot be parsed or its first page has none of them.
    static func ofTIFFPage(_ file: [UInt8]) -> [UInt8]? {
        guard let parsed = Exif(tiff: file) else { return nil }
        let entries = parsed.ifd0.entries.filter { tiffPageTags.contains($0.tag) }
        guard !entries.isEmpty else { return nil }
        var out: [UInt8] = parsed.bigEndian ? [0x4D, 0x4D, 0, 42, 0, 0, 0, 8] : [0x49, 0x49, 42, 0, 8, 0, 0, 0]
        parsed.write(Directory(entries: entries), into: &out)
        return out
    }

    /// A new TIFF stream like ``rebuilt(keepLocation:keepIdentifiers:)`` keeping every tag,
    /// with `makerNote` (UNDEFINED bytes whose offsets count from its own start, as Apple's do)
    /// as the Exif IFD's MakerNote, replacing one that was there.
    func settingMakerNote(_ makerNote: [UInt8]) -> [UInt8] {
        let note = Entry(
            tag: Tag.makerNote, type: 7, count: UInt32(makerNote.count), value: makerNote, child: nil, valueOffset: 0)
        var root = ifd0
        if let index = root.entries.firstIndex(where: { $0.tag == Tag.exifIFD && $0.child != nil }) {
            root.entries[index].child?.entries.removeAll { $0.tag == Tag.makerNote }
            root.entries[index].child?.entries.append(note)
        } else {
            root.entries.removeAll { $0.tag == Tag.exifIFD }
            root.entries.append(
                Entry(tag: Tag.exifIFD, type: 4, count: 1, value: [], child: Directory(entries: [note]), valueOffset: 0)
            )
        }
        var out: [UInt8] = bigEndian ? [0x4D, 0x4D, 0, 42, 0, 0, 0, 8] : [0x49, 0x49, 42, 0, 8, 0, 0, 0]
        write(root, into: &out)
        return out
    }

    /// The original block with every GPS directory (IFD0's and IFD1's) unlinked and blanked, at
    /// the same length: the GPS pointer entry is removed from its directory (the entries after it
    /// move up one slot, the count drops by one) and the GPS directory and its values are zeroed.
    /// Every other byte, and so every offset into the block, stays as it was. This is what
    /// `strip-location` writes into a file whose layout must not move (HEIF items, PNG, WebP).
    package func withoutLocationInPlace() -> [UInt8] {
        var out = bytes
        let reader = Reader(bytes: bytes, bigEndian: bigEndian)
        var directory = reader.u32(4).map(Int.init) ?? 0
        var visited: Set<Int> = []
        // IFD0 then IFD1; the chain is not followed further (no other directory carries GPS).
        while directory >= 8, visited.count < 2, !visited.contains(directory), let count = reader.u16(directory) {
            visited.insert(directory)
            let entryCount = Int(count)
            let end = directory + 2 + entryCount * 12 + 4
            guard entryCount <= Exif.maxEntries, end <= out.count else { break }
            let next = reader.u32(end - 4).map(Int.init) ?? 0
            if let slot = (0..<entryCount).first(where: { reader.u16(directory + 2 + $0 * 12) == Tag.gpsIFD }) {
                let at = directory + 2 + slot * 12
                if let target = reader.u32(at + 8) { blankDirectory(at: Int(target), reader: reader, in: &out) }
                let tail = Array(out[(at + 12)..<end])
                out.replaceSubrange(at..<(at + tail.count), with: tail)
                for index in (end - 12)..<end { out[index] = 0 }
                put16(UInt16(entryCount - 1), at: directory, in: &out)
            }
            directory = next
        }
        return out
    }

    /// Zeroes the directory at `offset` (count, entries, next pointer) and its out-of-line values.
    private func blankDirectory(at offset: Int, reader: Reader, in out: inout [UInt8]) {
        guard offset >= 8, let count = reader.u16(offset) else { return }
        let entryCount = Int(count)
        guard entryCount <= Exif.maxEntries, offset + 2 + entryCount * 12 + 4 <= out.count else { return }
        for index in 0..<entryCount {
            let at = offset + 2 + index * 12
            guard let type = reader.u16(at + 2), let size = Exif.typeSizes[type], let count = reader.u32(at + 4) else {
                continue
            }
            let (total, overflow) = Int(count).multipliedReportingOverflow(by: size)
            guard !overflow, total > 4, let pointer = reader.u32(at + 8), Int(pointer) >= 8,
                Int(pointer) + total <= out.count
            else { continue }
            for byte in Int(pointer)..<(Int(pointer) + total) { out[byte] = 0 }
        }
        for byte in offset..<(offset + 2 + entryCount * 12 + 4) { out[byte] = 0 }
    }

    private func put16(_ value: UInt16, at offset: Int, in out: inout [UInt8]) {
        let a = UInt8(value >> 8)
        let b = UInt8(value & 0xFF)
        out[offset] = bigEndian ? a : b
        out[offset + 1] = bigEndian ? b : a
    }

    private func put32(_ value: UInt32, at offset: Int, in out: inout [UInt8]) {
        for i in 0..<4 {
            let byte = UInt8((value >> (8 * UInt32(i))) & 0xFF)
            out[offset + (bigEndian ? 3 - i : i)] = byte
        }
    }

    /// Appends `directory` (entries sorted by tag, as TIFF requires) and, after it, its values and
    /// sub-directories; returns the directory's offset.
    @discardableResult
    private func write(_ directory: Directory, into out: inout [UInt8]) -> Int {
        if out.count % 2 == 1 { out.append(0) }
        let start = out.count
        let entries = directory.entries.sorted { $0.tag < $1.tag }
        out += [UInt8](repeating: 0, count: 2 + entries.count * 12 + 4)
        put16(UInt16(entries.count), at: start, in: &out)
        for (index, entry) in entries.enumerated() {
            let at = start + 2 + index * 12
            put16(entry.tag, at: at, in: &out)
            if let child = entry.child {
                put16(4, at: at + 2, in: &out)
                put32(1, at: at + 4, in: &out)
                let offset = write(child, into: &out)
                put32(UInt32(offset), at: at + 8, in: &out)
                continue
            }
            put16(entry.type, at: at + 2, in: &out)
            put32(entry.count, at: at + 4, in: &out)
            if entry.value.count <= 4 {
                for (i, byte) in entry.value.enumerated() { out[at + 8 + i] = byte }
            } else {
                if out.count % 2 == 1 { out.append(0) }
                put32(UInt32(out.count), at: at + 8, in: &out)
                out += entry.value
            }
        }
        return start
    }
}
