import Foundation
import Testing

@testable import ConvertCore

/// Live Photo pairs are found by content identifier, read with our own readers, never by name.
@Suite("Live Photo pairing")
struct LivePhotoTests {
    static let id = "570F1469-09C7-4E50-9875-05F21D5BD166"

    @Test("the identifier of a real iPhone HEIC (MakerNote 0x0011) and of a MOV's keys")
    func identifiers() {
        // exiftool reads MediaGroupUUID 570F1469-… from photos/IMG_5195.HEIC.
        #expect(LivePhotos.photoIdentifier(Fixtures.path("photos/IMG_5195.HEIC")) == Self.id)
        #expect(LivePhotos.movieIdentifier(Fixtures.generated("live/IMG_5195.MOV")) == Self.id)
        #expect(LivePhotos.photoIdentifier(Fixtures.path("photos/tokyo.jpg")) == nil)
        #expect(LivePhotos.photoIdentifier(Fixtures.path("photos/pug.heic")) == nil)
        #expect(LivePhotos.movieIdentifier(Fixtures.path("video/sample.mp4")) == nil)
        // A MOV whose keys name another identifier (and other keys) is read exactly.
        #expect(LivePhotos.movieIdentifier(Fixtures.generated("location-keys.mov")) == "5F1B0C2E-TEST")
    }

    @Test("pairs by identifier: the same name, a renamed export, and a decoy with the same name")
    func pairs() {
        let same = [Fixtures.generated("live/IMG_5195.HEIC"), Fixtures.generated("live/IMG_5195.MOV")]
        #expect(LivePhotos.pairs(among: same).map(\.movie) == [same[1]])
        let renamed = [
            Fixtures.generated("live/renamed/Holiday.HEIC"), Fixtures.generated("live/renamed/IMG_0042.MOV"),
        ]
        #expect(LivePhotos.pairs(among: renamed).first?.contentIdentifier == Self.id)
        let decoy = [Fixtures.generated("live/decoy/IMG_5195.HEIC"), Fixtures.generated("live/decoy/IMG_5195.MOV")]
        #expect(LivePhotos.pairs(among: decoy).isEmpty)
        // Found beside the file when only one side is given.
        #expect(LivePhotos.pair(of: renamed[0]).pair?.movie == renamed[1])
        #expect(LivePhotos.pair(of: renamed[1]).pair?.photo == renamed[0])
        #expect(LivePhotos.pair(of: decoy[0]).pair == nil)
        #expect(LivePhotos.pair(of: decoy[0]).id == Self.id)
        // A JPEG still pairs the same way (exiftool reads MediaGroupUUID 570F1469-… from it).
        let jpeg = [Fixtures.generated("live/jpeg/IMG_5195.JPG"), Fixtures.generated("live/jpeg/IMG_5195.MOV")]
        #expect(LivePhotos.photoIdentifier(jpeg[0]) == Self.id)
        #expect(LivePhotos.pairs(among: jpeg).map(\.movie) == [jpeg[1]])
    }

    @Test("each movie goes to one photo, the one with its name first")
    func oneMoviePerPhoto() {
        let folder = ["IMG_5195.HEIC", "IMG_5195.MOV", "tokyo.jpg", "other.mp4"].map {
            Fixtures.generated("live/folder/\($0)")
        }
        let pairs = LivePhotos.pairs(among: folder + [Fixtures.generated("live/renamed/Holiday.HEIC")])
        #expect(pairs.count == 1)
        #expect(pairs.first?.photo == folder[0])
    }

    @Test("hostile MakerNotes give nil, never a crash")
    func hostile() {
        var note = AppleMakerNote.header + [0, 1] + Array("MM".utf8) + [0, 1]
        note += [0x00, 0x11, 0x00, 0x02, 0x7F, 0xFF, 0xFF, 0xFF, 0x7F, 0xFF, 0xFF, 0xFF]
        #expect(AppleMakerNote.contentIdentifier(makerNote: note) == nil)
        #expect(AppleMakerNote.contentIdentifier(makerNote: Array(note.prefix(15))) == nil)
        var short = AppleMakerNote.header + [0, 1] + Array("MM".utf8) + [0, 1]
        short += [0x00, 0x11, 0x00, 0x02, 0, 0, 0, 4] + Array("ABC".utf8) + [0]
        #expect(AppleMakerNote.contentIdentifier(makerNote: short) == "ABC")
        #expect(AppleMakerNote.contentIdentifier(makerNote: [UInt8](repeating: 0xFF, count: 64)) == nil)
    }
}
