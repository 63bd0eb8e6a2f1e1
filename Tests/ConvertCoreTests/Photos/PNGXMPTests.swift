import Foundation
import Testing

@testable import ConvertCore
@testable import ConvertMedia

@Suite("XMP in PNG (iTXt XML:com.adobe.xmp)", .serialized, .enabled(if: PhotoReference.has("exiftool")))
struct PNGXMPTests {
    /// tokyo.jpg with an XMP packet carrying a title and a GPS position (written by exiftool, so
    /// the packet is a real-world serialisation).
    static func sourceWithXMP(in directory: URL) throws -> String {
        let path = directory.appendingPathComponent("tagged.jpg").path
        try FileManager.default.copyItem(atPath: Fixtures.path("photos/tokyo.jpg"), toPath: path)
        let status = try PhotoReference.run(
            "exiftool",
            [
                "-q", "-overwrite_original", "-XMP-dc:Title=Shibuya crossing", "-XMP-exif:GPSLatitude=35.6595",
                "-XMP-exif:GPSLatitudeRef=N", "-XMP-exif:GPSLongitude=139.7005", "-XMP-exif:GPSLongitudeRef=E", path,
            ]
        ).status
        try #require(status == 0)
        return path
    }

    /// exiftool's XMP tags of `path` ("[XMP-dc] Title : ..." lines).
    static func xmpTags(_ path: String) throws -> String { try PhotoReference.exiftool(path, ["-XMP:all"]) }

    @Test(
        "XMP is written to PNG: GPS-free by default, with GPS when kept, absent when stripped",
        arguments: [(MetadataPolicy.shareSafe, true, false), (.keep, true, true), (.strip, false, false)])
    func written(policy: MetadataPolicy, expectXMP: Bool, expectGPS: Bool) async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let source = try Self.sourceWithXMP(in: directory)
        let sourceTags = try Self.xmpTags(source)
        try #require(sourceTags.contains("GPSLatitude") && sourceTags.contains("Title"))
        let result = try await PhotoRun.convert(
            PhotoRequest(inputPath: source, format: .png, outputDirectory: directory.path, metadata: policy))
        let output = try #require(result.outputs.first).path
        let tags = try Self.xmpTags(output)
        #expect(tags.contains("Shibuya crossing") == expectXMP, "\(policy): \(tags)")
        #expect(tags.contains("GPSLatitude") == expectGPS, "\(policy): \(tags)")
        #expect(!result.notes.messages.contains("XMP not copied to PNG"))
        // exiftool finds it where the XMP specification puts it: an iTXt chunk before IDAT.
        let bytes = try ImageDecoder.readAll(path: output)
        let chunk = Array("iTXtXML:com.adobe.xmp".utf8)
        let found = (0..<(bytes.count - chunk.count)).first { bytes[$0..<($0 + chunk.count)].elementsEqual(chunk) }
        let idat = (0..<(bytes.count - 4)).first { bytes[$0..<($0 + 4)].elementsEqual(Array("IDAT".utf8)) }
        if expectXMP {
            let at = try #require(found)
            #expect(at < (idat ?? 0))
            // Compression flag 0 (uncompressed), method 0, empty language and translated keyword.
            #expect(Array(bytes[(at + chunk.count)..<(at + chunk.count + 5)]) == [0, 0, 0, 0, 0])
        } else {
            #expect(found == nil)
        }
    }

    @Test("a PNG's XMP is read: it survives PNG → JPEG and PNG → PNG, still policy-filtered")
    func read() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let source = try Self.sourceWithXMP(in: directory)
        let png = try await PhotoRun.convert(
            PhotoRequest(inputPath: source, format: .png, outputDirectory: directory.path, metadata: .keep))
        let pngPath = try #require(png.outputs.first).path
        let decoded = try PNGCodec.decode(ImageDecoder.readAll(path: pngPath), maxPixels: 1 << 24, path: pngPath)
        let packet = try #require(decoded.xmp)
        #expect(String(decoding: packet, as: UTF8.self).contains("Shibuya crossing"))

        let jpeg = try await PhotoRun.convert(
            PhotoRequest(
                inputPath: pngPath, format: .jpeg, outputPath: directory.appendingPathComponent("back.jpg").path))
        let jpegTags = try Self.xmpTags(try #require(jpeg.outputs.first).path)
        #expect(jpegTags.contains("Shibuya crossing"), "\(jpegTags)")
        #expect(!jpegTags.contains("GPSLatitude"), "location removed by default on the way back")
        #expect(jpeg.notes.messages.contains("location removed"))
    }
}
