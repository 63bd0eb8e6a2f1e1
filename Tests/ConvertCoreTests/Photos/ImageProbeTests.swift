import Foundation
import Testing

@testable import ConvertCore
@testable import ConvertMedia

@Suite("Image probe")
struct ImageProbeTests {
    @Test("an iPhone HEIC: P3, GPS in EXIF, one image")
    func iPhone() throws {
        let info = try ImageProbe.probeBlocking(path: Fixtures.path("photos/IMG_5195.HEIC"))
        #expect(info.format == .heic)
        #expect(info.width == 2566 && info.height == 3313)
        #expect(info.bitDepth == 8)
        #expect(!info.hasAlpha)
        #expect(info.color.iccDescription == "Display P3")
        #expect(info.hasEXIF && info.hasXMP)
        #expect(info.hasLocation && info.locationSources.contains(.exif))
        #expect(info.make == "Apple" && info.model == "iPhone 11 Pro Max")
        #expect(info.imageCount == 1)
    }

    @Test("depth and thumbnails are listed; multi-image files count their images")
    func structure() throws {
        let pug = try ImageProbe.probeBlocking(path: Fixtures.path("photos/pug.heic"))
        #expect(pug.auxiliaryImages.contains("depth"))
        #expect(pug.hasLocation)
        let zpug = try ImageProbe.probeBlocking(path: Fixtures.path("photos/zPug_3.heic"))
        #expect(zpug.imageCount == 3)
        #expect(zpug.thumbnailCount == 1)
        let cat = try ImageProbe.probeBlocking(path: Fixtures.path("photos/cat.hif"))
        #expect(cat.bitDepth == 10)
        #expect(cat.thumbnailCount == 2)
        #expect(cat.color.nclx != nil)
        #expect(try ImageProbe.probeBlocking(path: Fixtures.path("photos/spatial_photo.heic")).imageCount == 2)
    }

    @Test("JPEGs: EXIF orientation, displayed size and location")
    func jpeg() throws {
        let rotated = try ImageProbe.probeBlocking(path: Fixtures.path("photos/orientation/Landscape_6.jpg"))
        let plain = try ImageProbe.probeBlocking(path: Fixtures.path("photos/orientation/Landscape_1.jpg"))
        #expect(rotated.exifOrientation == 6)
        #expect(rotated.width == plain.width && rotated.height == plain.height)
        let tokyo = try ImageProbe.probeBlocking(path: Fixtures.path("photos/tokyo.jpg"))
        #expect(tokyo.hasLocation && tokyo.locationSources == [.exif])
    }

    @Test("ImageInfo encodes to JSON with the location fields")
    func codable() throws {
        let info = try ImageProbe.probeBlocking(path: Fixtures.path("photos/xiaomi.heic"))
        let json = String(decoding: try JSONEncoder().encode(info), as: UTF8.self)
        #expect(json.contains("\"hasLocation\":true"))
        #expect(try JSONDecoder().decode(ImageInfo.self, from: Data(json.utf8)) == info)
    }

    static func ftyp(_ brands: [String]) -> [UInt8] {
        let size = 8 + 4 * (brands.count + 1)
        var bytes: [UInt8] = [0, 0, 0, UInt8(size)] + Array("ftyp".utf8)
        bytes += Array(brands[0].utf8) + [0, 0, 0, 0]
        for brand in brands.dropFirst() { bytes += Array(brand.utf8) }
        return bytes
    }

    static let sniffTable: [([UInt8], PhotoFormat?)] = [
        ([0xFF, 0xD8, 0xFF, 0xE1], .jpeg),
        ([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A], .png),
        (Array("RIFF\u{0}\u{0}\u{0}\u{0}WEBPVP8 ".utf8), .webp),
        (Array("GIF89a".utf8), .gif),
        (ftyp(["heic", "mif1", "heic"]), .heic),
        (ftyp(["mif1", "heic"]), .heic),
        (ftyp(["avif", "mif1", "miaf"]), .avif),
        (ftyp(["mif1", "avif", "miaf"]), .avif),
        (ftyp(["isom", "iso2", "mp41"]), nil),
        (Array("hello".utf8), nil),
        ([], nil),
    ]

    @Test("formats are recognised by content", arguments: sniffTable)
    func sniff(head: [UInt8], expected: PhotoFormat?) {
        #expect(MediaSniffer.kind(of: head).photoFormat == expected)
    }

    @Test("broken and non-image files give categorised errors")
    func broken() throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let cut = directory.appendingPathComponent("cut.heic")
        let whole = try #require(FileManager.default.contents(atPath: Fixtures.path("photos/IMG_5195.HEIC")))
        try whole.prefix(200).write(to: cut)
        do {
            _ = try ImageProbe.probeBlocking(path: cut.path)
            Issue.record("a 200-byte HEIC probed")
        } catch {
            #expect(error.code == .inputTruncated, "\(error.key): \(error.message)")
        }
        expectConvertError(.inputMissing) {
            try ImageProbe.probeBlocking(path: directory.appendingPathComponent("missing.jpg").path)
        }
        expectConvertError(.unsupportedNotAPhoto) {
            try ImageProbe.probeBlocking(path: Fixtures.path("video/sample.mp4"))
        }
        expectConvertError(.inputUnrecognised) { try ImageProbe.probeBlocking(path: Fixtures.path("SOURCES.md")) }
    }

    @Test("the public probe is async, reads off the cooperative pool and answers as the blocking one does")
    func asyncProbe() async throws {
        let path = Fixtures.path("photos/IMG_5195.HEIC")
        let info = try await ImageProbe.probe(path: path)
        let blocking = try ImageProbe.probeBlocking(path: path)
        #expect(info == blocking)
        #expect(info.width == 2566 && info.height == 3313)
        let missing = Fixtures.path("photos/missing.jpg")
        let error = await expectConvertError(.inputMissing) { try await ImageProbe.probe(path: missing) }
        #expect(error?.path == missing)
        let cancelled = Task { () -> ConvertError? in
            withUnsafeCurrentTask { $0?.cancel() }
            do throws(ConvertError) {
                _ = try await ImageProbe.probe(path: path)
                return nil
            } catch { return error }
        }
        #expect(await cancelled.value == .cancelled(path: path))
    }
}
