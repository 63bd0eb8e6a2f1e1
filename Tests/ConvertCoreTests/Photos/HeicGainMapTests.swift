import Foundation
import Testing

@testable import ConvertCore

/// What a HEIC output keeps so that Apple's readers still find the gain map's headroom: the
/// MakerNote's two headroom tags alone, put back into the share-safe EXIF.
@Suite("HDR gain maps: the headroom MakerNote of a HEIC output")
struct HeicGainMapTests {
    @Test(
        "the headroom-only MakerNote gives the source's headroom and nothing else",
        arguments: ["photos/pug.heic", "photos/IMG_3853.HEIC"])
    func headroomMakerNote(path: String) throws {
        let file = try #require(try HeifFile.open(path: Fixtures.path(path)))
        let exif = try #require(file.exif(file.primaryID))
        let stops = try #require(AppleHeadroom.stops(exif: exif))
        let note = try #require(AppleHeadroom.headroomMakerNote(exif: exif))
        // Signature, version, "MM", two entries of 12 bytes, the next-IFD link, two rationals.
        #expect(note.count <= 14 + 2 + 2 * 12 + 4 + 2 * 8)
        let parsed = try #require(Exif(block: exif))
        let shared = parsed.rebuilt(keepLocation: false, keepIdentifiers: false)
        #expect(AppleHeadroom.stops(exif: shared) == nil)
        let kept = try #require(Exif(tiff: shared)?.settingMakerNote(note))
        #expect(AppleHeadroom.stops(exif: kept) == stops)
        let rebuilt = try #require(Exif(tiff: kept))
        #expect(rebuilt.ifd0.entry(Exif.Tag.exifIFD)?.child?.entry(Exif.Tag.makerNote)?.value == note)
        #expect(rebuilt.make == parsed.make && rebuilt.dateTimeOriginal == parsed.dateTimeOriginal)
    }
}
