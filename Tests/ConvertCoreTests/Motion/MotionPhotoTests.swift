import Foundation
import Testing

@testable import ConvertCore
@testable import ConvertMedia

/// Motion photos found from their bytes: every layout phones write, the real files whose video
/// was cut out upstream, and damage that must give an honest "not there", never a crash.
@Suite("motion photos")
struct MotionPhotoTests {
    static func bytes(_ path: String) throws -> [UInt8] {
        Array(try #require(FileManager.default.contents(atPath: path)))
    }

    /// The clip the generator appended to every fixture.
    static func clip() throws -> [UInt8] { try bytes(Fixtures.generated("motion-clip.mp4")) }

    struct Layout: Sendable, CustomTestStringConvertible {
        var fixture: String
        var layout: MotionPhoto.Layout
        var testDescription: String { fixture }
    }

    static let layouts = [
        Layout(fixture: "motion-google.MP.jpg", layout: .googleContainer),
        Layout(fixture: "motion-gainmap.MP.jpg", layout: .googleContainer),
        Layout(fixture: "motion-microvideo.jpg", layout: .googleMicroVideo),
        Layout(fixture: "motion-samsung.jpg", layout: .samsung),
        Layout(fixture: "motion.heic", layout: .heifBox),
        Layout(fixture: "motion-samsung-oneui6.heic", layout: .samsungHEIF),
    ]

    @Test("each layout's video is exactly the appended clip", arguments: layouts)
    func findsTheClip(_ case: Layout) throws {
        let file = try Self.bytes(Fixtures.generated(`case`.fixture))
        let photo = try #require(MotionPhoto.find(in: file))
        #expect(photo.layout == `case`.layout)
        #expect(photo.problem == nil)
        let range = try #require(photo.video)
        #expect(Array(file[range]) == (try Self.clip()))
        // The still holds no byte of the video and is never empty.
        let still = MotionPhotoEditor.still(of: file, photo).bytes
        #expect(still.count <= file.count - range.count)
        #expect(still.count > 1000)
    }

    @Test("an ordinary photo and a plain video are not motion photos")
    func ordinary() throws {
        #expect(MotionPhoto.find(in: try Self.bytes(Fixtures.generated("motion-still.jpg"))) == nil)
        #expect(MotionPhoto.find(in: try Self.bytes(Fixtures.path("photos/DSCN0010.jpg"))) == nil)
        #expect(MotionPhoto.find(in: try Self.bytes(Fixtures.path("photos/pug.heic"))) == nil)
        #expect(MotionPhoto.find(in: try Self.bytes(Fixtures.generated("motion-clip.mp4"))) == nil)
    }

    @Test("real files whose video was cut out upstream: recognised, the video reported missing")
    func shortened() throws {
        let pixel = try #require(
            MotionPhoto.find(in: try Self.bytes(Fixtures.path("photos/motion/pixel-motion-photo-shortened.jpg"))))
        #expect(pixel.layout == .googleContainer)
        #expect(pixel.declaredBytes == 8730)
        #expect(pixel.video == nil)
        #expect(pixel.problem?.contains("incomplete") == true)
        let samsung = try #require(
            MotionPhoto.find(in: try Self.bytes(Fixtures.path("photos/motion/ss-motion-photo-shortened.jpg"))))
        #expect(samsung.layout == .samsung)
        #expect(samsung.declaredBytes == 2582)
        #expect(samsung.video == nil)
        // The byte scan of SOURCES.md: MotionPhoto_Data at 20329, its 8-byte entry header before it.
        #expect(samsung.stillEnd == 20329 - 8)
    }

    @Test("the cheap check every conversion makes agrees with the full search")
    func cheapCheck() throws {
        let motion =
            Self.layouts.map { Fixtures.generated($0.fixture) } + [
                Fixtures.generated("motion-pointer-only.MP.jpg"),
                Fixtures.path("photos/motion/ss-motion-photo-shortened.jpg"),
                Fixtures.path("photos/motion/pixel-motion-photo-shortened.jpg"),
            ]
        for path in motion { #expect(MotionPhoto.isMotionPhoto(path: path), "\(path)") }
        for path in [
            Fixtures.generated("motion-still.jpg"), Fixtures.path("photos/pug.heic"), Fixtures.path("photos/tokyo.jpg"),
        ] {
            #expect(!MotionPhoto.isMotionPhoto(path: path), "\(path)")
            #expect(MotionPhoto.find(in: try Self.bytes(path)) == nil)
        }
    }

    @Test("a pointer to a video that is not there")
    func pointerOnly() throws {
        let photo = try #require(MotionPhoto.find(in: try Self.bytes(Fixtures.generated("motion-pointer-only.MP.jpg"))))
        #expect(photo.video == nil)
        #expect(photo.declaredBytes == 50000)
        #expect(photo.problem?.contains("50000") == true)
    }

    @Test("an mpvd box before the photo's data is extracted but not removed: removing it would move the data")
    func mpvdBeforeData() throws {
        let file = try Self.bytes(Fixtures.generated("motion.heic"))
        let boxes = try ByteBox.topLevel(of: file)
        let mpvd = try #require(boxes.first { $0.type == "mpvd" })
        let ftyp = try #require(boxes.first { $0.type == "ftyp" })
        // ftyp, mpvd, then the rest: the iloc offsets now point past the video's start.
        let moved =
            Array(file[ftyp.start..<ftyp.end]) + Array(file[mpvd.start..<mpvd.end])
            + Array(file[ftyp.end..<mpvd.start])
        let photo = try #require(MotionPhoto.find(in: moved))
        #expect(photo.video.map { Array(moved[$0]) } == (try Self.clip()))
        #expect(photo.problem?.contains("not removed") == true)
        #expect(MotionPhotoEditor.still(of: moved, photo).bytes.count == moved.count)
    }

    @Test("a Samsung sefd trailer is rebuilt without its MotionPhoto_ entries, the others byte for byte")
    func trailerRebuilt() throws {
        let file = try Self.bytes(Fixtures.generated("motion-samsung-oneui6.heic"))
        let photo = try #require(MotionPhoto.find(in: file))
        let still = MotionPhotoEditor.still(of: file, photo).bytes
        let sefd = try #require(try ByteBox.topLevel(of: still).last)
        #expect(sefd.type == "sefd" && sefd.end == still.count)
        let trailer = try #require(SamsungTrailer(still))
        #expect(trailer.entries.map(\.name) == ["Image_UTC_Data", "MCC_Data"])
        let original = try #require(SamsungTrailer(file))
        for (kept, source) in zip(trailer.entries, original.entries) {
            #expect(Array(still[kept.data]) == Array(file[source.data]))
        }
        #expect(!trailer.entries.contains { $0.isMotion })
    }

    @Test("damaged trailers and truncations never crash and never invent a video")
    func damage() throws {
        for name in ["motion-google.MP.jpg", "motion-samsung.jpg", "motion-microvideo.jpg", "motion.heic"] {
            let file = try Self.bytes(Fixtures.generated(name))
            var cuts = 0
            for length in stride(from: file.count - 1, to: 0, by: -997) {
                let cut = Array(file[0..<length])
                if let photo = MotionPhoto.find(in: cut), let range = photo.video {
                    #expect(range.upperBound <= cut.count)
                    #expect(Array(cut[(range.lowerBound + 4)..<(range.lowerBound + 8)]) == Array("ftyp".utf8))
                }
                cuts += 1
            }
            #expect(cuts > 10)
            // A trailer whose directory claims more entries than it holds, and absurd offsets.
            var hostile = file
            hostile +=
                Array("SEFH".utf8) + [106, 0, 0, 0, 0xFF, 0xFF, 0xFF, 0x7F] + [UInt8](repeating: 0xFF, count: 12)
            hostile += [24, 0, 0, 0] + Array("SEFT".utf8)
            _ = MotionPhoto.find(in: hostile)
        }
    }

    @Test("strip keeps every byte of the still but the XMP pointers")
    func still() throws {
        for name in ["motion-google.MP.jpg", "motion-gainmap.MP.jpg", "motion-microvideo.jpg"] {
            let file = try Self.bytes(Fixtures.generated(name))
            let photo = try #require(MotionPhoto.find(in: file))
            let (still, _) = MotionPhotoEditor.still(of: file, photo)
            #expect(MotionPhoto.find(in: still) == nil)
            let xmp: Set<UInt8> = [0xE1]
            // Without APP1 segments (EXIF is the same bytes in both; XMP differs on purpose).
            let original = JPEGMarkers.removing(markers: xmp, from: Array(file[0..<photo.stillEnd]))
            #expect(JPEGMarkers.removing(markers: xmp, from: still) == original)
            let exifBefore = JPEGMarkers.metadata(file).exif
            #expect(JPEGMarkers.metadata(still).exif == exifBefore)
            let text = String(decoding: try #require(JPEGMarkers.metadata(still).xmp), as: UTF8.self)
            #expect(!text.contains("MotionPhoto") && !text.contains("MicroVideo"))
            if name.contains("gainmap") { #expect(text.contains("GainMap")) }
        }
    }

    @Test("XMP read whatever the prefix and in element form")
    func xmpForms() {
        let element =
            "<x><rdf:Description><GCamera:MicroVideo>1</GCamera:MicroVideo>"
            + "<GCamera:MicroVideoOffset>1234</GCamera:MicroVideoOffset></rdf:Description></x>"
        #expect(MotionXMP.flag(element, "MicroVideo") == "1")
        #expect(MotionXMP.flag(element, "MicroVideoOffset") == "1234")
        let attribute = "<rdf:Description Camera:MotionPhoto=\"1\" GCamera:MotionPhotoVersion='1'/>"
        #expect(MotionXMP.flag(attribute, "MotionPhoto") == "1")
        #expect(MotionXMP.flag(attribute, "MotionPhotoVersion") == "1")
        #expect(MotionXMP.flag(attribute, "MicroVideo") == nil)
    }

    @Test("capture dates: with an offset, and without one read as UTC")
    func captureDate() throws {
        let paris = try #require(CaptureDate.parse("2021:03:04 05:06:07", offset: "+02:00"))
        #expect(paris.text == "2021-03-04 03:06:07 UTC")
        #expect(paris.hasOffset)
        let plain = try #require(CaptureDate.parse("2021:03:04 05:06:07", offset: nil))
        #expect(plain.secondsSince1970 == paris.secondsSince1970 + 7200)
        #expect(!plain.hasOffset)
        #expect(CaptureDate.parse("0000:00:00 00:00:00", offset: nil) == nil)
        let heic = try #require(CaptureDate.of(photo: try Self.bytes(Fixtures.generated("motion.heic"))))
        #expect(heic.text == "2021-03-04 03:06:07 UTC")
    }

    @Test("info describes the embedded video and counts its location")
    func probe() async throws {
        let info = try await MediaProbe.probe(path: Fixtures.generated("motion-located.MP.jpg"))
        let motion = try #require(info.motionPhoto)
        #expect(motion.layout == "google")
        #expect(motion.video?.videoTracks.first?.codec == "h264")
        #expect(motion.video?.location == "+48.8584+002.2945/")
        #expect(info.location.sources.contains(.motionVideo))
        let plain = try await MediaProbe.probe(path: Fixtures.generated("motion-still.jpg"))
        #expect(plain.motionPhoto == nil)
        let cut = try await MediaProbe.probe(path: Fixtures.path("photos/motion/pixel-motion-photo-shortened.jpg"))
        #expect(cut.motionPhoto?.video == nil)
        #expect(cut.motionPhoto?.problem != nil)
        #expect(cut.image?.width == 3024)
    }
}
