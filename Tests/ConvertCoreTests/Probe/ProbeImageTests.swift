import Foundation
import Testing

@testable import ConvertCore
@testable import ConvertMedia
@testable import FFmpegLayer

/// `MediaProbe` on still images: the photo engine's description and where the location is.
@Suite("Probe: images and location")
struct ProbeImageTests {
    @Test("a HEIC's image part and its EXIF location")
    func heic() async throws {
        let info = try await MediaProbe.probe(path: Fixtures.path("photos/pug.heic"))
        let image = try #require(info.image)
        #expect(info.container == nil && info.imageError == nil)
        #expect(image.width == 4032 && image.height == 3024)
        #expect(image.auxiliaryImages.first == "depth")
        #expect(info.location == LocationPresence(sources: [.exif]))
    }

    @Test("sources: EXIF and XMP in a WebP, the container tag of a movie, none in a plain file")
    func sources() async throws {
        #expect(
            try await MediaProbe.probe(path: Fixtures.generated("gps-exif-xmp.webp")).location.sources == [.exif, .xmp])
        #expect(
            try await MediaProbe.probe(path: Fixtures.generated("gps-exif-xmp.png")).location.sources == [.exif, .xmp])
        #expect(
            try await MediaProbe.probe(path: Fixtures.generated("location-keys.mov")).location.sources == [.container])
        let plain = try await MediaProbe.probe(path: Fixtures.path("photos/zPug_3.heic"))
        #expect(!plain.location.present && plain.location.sources.isEmpty)
        #expect(plain.image?.imageCount == 3)
    }

    @Test("the JSON form round-trips and always has the location object")
    func json() async throws {
        let info = try await MediaProbe.probe(path: Fixtures.path("photos/cat.hif"))
        let data = try JSONEncoder().encode(info)
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let location = try #require(object["location"] as? [String: Any])
        #expect(location["present"] as? Bool == false)
        #expect((location["sources"] as? [Any])?.isEmpty == true)
        #expect(object["image"] is [String: Any])
        #expect(try JSONDecoder().decode(MediaInfo.self, from: data) == info)
    }

    @Test("video tags that identify a device or owner are recognised; make and model are not")
    func identifyingTags() {
        #expect(Metadata.isIdentifying("com.apple.quicktime.content.identifier"))
        #expect(Metadata.isIdentifying("com.android.serialNumber"))
        #expect(Metadata.isIdentifying("owner"))
        #expect(!Metadata.isIdentifying("com.apple.quicktime.make"))
        #expect(!Metadata.isIdentifying("com.apple.quicktime.model"))
        #expect(!Metadata.isIdentifying("creation_time"))
    }
}
