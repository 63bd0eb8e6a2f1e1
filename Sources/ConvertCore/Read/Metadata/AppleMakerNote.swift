/// The parts of an Apple MakerNote (EXIF tag 0x927C of iPhone photos) offconvert reads.
///
/// Layout: `Apple iOS\0`, a 2-byte version, `MM`, then a big-endian IFD whose offsets count from
/// the start of the MakerNote. Every offset is checked before it is followed.
enum AppleMakerNote {
    /// Tag 0x0011: the content identifier (a UUID) the Live Photo's MOV repeats in its
    /// `com.apple.quicktime.content.identifier` key (exiftool calls it MediaGroupUUID).
    static let contentIdentifierTag: UInt16 = 0x0011
    static let header: [UInt8] = Array("Apple iOS".utf8) + [0]

    /// The content identifier of the photo whose EXIF TIFF stream is `tiff`, or nil.
    package static func contentIdentifier(exif tiff: [UInt8]) -> String? {
        guard let exif = Exif(tiff: tiff),
            let note = exif.ifd0.entry(Exif.Tag.exifIFD)?.child?.entry(Exif.Tag.makerNote)?.value
        else { return nil }
        return contentIdentifier(makerNote: note)
    }

    /// The content identifier in a MakerNote's bytes, or nil.
    package static func contentIdentifier(makerNote note: [UInt8]) -> String? {
        guard note.count >= 16, note.starts(with: header), note[12] == 0x4D, note[13] == 0x4D else { return nil }
        func u16(_ at: Int) -> Int? { at >= 0 && at + 2 <= note.count ? Int(note[at]) << 8 | Int(note[at + 1]) : nil }
        func u32(_ at: Int) -> Int? {
            at >= 0 && at + 4 <= note.count ? (0..<4).reduce(0) { $0 << 8 | Int(note[at + $1]) } : nil
        }
        guard let count = u16(14), count <= 512 else { return nil }
        for index in 0..<count {
            let entry = 16 + index * 12
            guard let tag = u16(entry), let type = u16(entry + 2), let length = u32(entry + 4) else { return nil }
            guard tag == Int(contentIdentifierTag), type == 2, length > 0, length <= 256 else { continue }
            let start = length <= 4 ? entry + 8 : (u32(entry + 8) ?? Int.max)
            guard start <= note.count - length else { return nil }
            let text = String(decoding: note[start..<(start + length)].prefix { $0 != 0 }, as: UTF8.self)
            return text.isEmpty ? nil : text
        }
        return nil
    }
}
