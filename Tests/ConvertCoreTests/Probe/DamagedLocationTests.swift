import Foundation
import Testing

@testable import ConvertCore
@testable import ConvertMedia

/// A picture too damaged to describe is never reported as having no location: the probe shows
/// what the location editors can find (what exiftool reads too) and marks the answer
/// incomplete, and `strip-location` refuses a file it cannot check whole.
@Suite("Probe: damaged pictures and their location")
struct DamagedLocationTests {
    /// `fixture` cut `bytes` short, in a fresh folder.
    static func cut(_ fixture: String, by bytes: Int, name: String) throws -> (folder: URL, path: String) {
        let folder = try Fixtures.temporaryDirectory("damaged-location")
        let data = try Data(contentsOf: URL(fileURLWithPath: Fixtures.generated(fixture)))
        let path = folder.appendingPathComponent(name).path
        try data.prefix(data.count - bytes).write(to: URL(fileURLWithPath: path))
        return (folder, path)
    }

    @Test("a HEIC cut inside its image data: the GPS exiftool reads is reported, marked incomplete")
    func cutHEIC() async throws {
        let (folder, path) = try Self.cut("gps-exif-xmp.heic", by: 1500, name: "cut.heic")
        defer { try? FileManager.default.removeItem(at: folder) }
        let info = try await MediaProbe.probe(path: path)
        // The photo reader's error, code and all, not a bare string.
        #expect(info.image == nil && info.imageError?.code == .inputTruncated)
        #expect(info.imageError?.category == .input && info.imageError?.path == path)
        // In JSON, the parts a --json failed line gives; decoded back to the same code and words.
        let data = try JSONEncoder().encode(info)
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(
            object["imageError"] as? [String: String]
                == ["category": "input", "key": "input.truncated", "message": info.imageError?.message ?? ""])
        let decoded = try JSONDecoder().decode(MediaInfo.self, from: data)
        #expect(decoded.imageError?.code == .inputTruncated && decoded.imageError?.message == info.imageError?.message)
        #expect(info.location.present)
        #expect(info.location.sources.contains(.exif), "\(info.location.sources)")
        #expect(info.location.incomplete == true)
        if PhotoReference.has("exiftool") {
            #expect(try PhotoReference.exiftool(path, ["-gps:all"]).contains("GPSLatitude"))
        }
    }

    @Test("a PNG cut short whose metadata cannot be found says unknown, never none")
    func cutPNG() async throws {
        let (folder, path) = try Self.cut("stress-tiny.png", by: 40, name: "cut.png")
        defer { try? FileManager.default.removeItem(at: folder) }
        let info = try await MediaProbe.probe(path: path)
        // The picture is described (a conversion keeps what is there), with what is missing.
        #expect(info.imageError == nil)
        #expect(info.image?.damage?.contains("the file ends early") == true, "\(String(describing: info.image))")
        #expect(info.location.incomplete == true)
        let json = String(decoding: try JSONEncoder().encode(info.location), as: UTF8.self)
        #expect(json.contains("\"incomplete\":true"), "\(json)")
    }

    @Test("a file read whole has no incomplete mark")
    func whole() async throws {
        let info = try await MediaProbe.probe(path: Fixtures.generated("gps-exif-xmp.heic"))
        #expect(info.location.incomplete == nil)
        #expect(!String(decoding: try JSONEncoder().encode(info.location), as: UTF8.self).contains("incomplete"))
    }

    @Test("strip-location refuses a damaged HEIC it cannot check whole, and writes nothing")
    func stripRefuses() async throws {
        let (folder, path) = try Self.cut("gps-exif-xmp.heic", by: 1500, name: "cut.heic")
        defer { try? FileManager.default.removeItem(at: folder) }
        let destination = folder.appendingPathComponent("out.heic").path
        do {
            _ = try await LocationStripper.strip(StripLocationRequest(input: path, destination: destination)).result()
            Issue.record("stripped a file it could not check")
        } catch {
            #expect(error.code == .privacyLocationRemains, "\(error.key): \(error.message)")
        }
        #expect(!FileManager.default.fileExists(atPath: destination))
    }

    @Test(
        "info of a HEIF with an essential irot gives the upright size and the rotation",
        arguments: [
            // irot counts anticlockwise quarter turns; containerRotation is degrees clockwise.
            ("irot1.heic", 270), ("irot2.heic", 180), ("irot3.heic", 90), ("base.heic", 0),
        ])
    func rotation(name: String, degrees: Int) throws {
        let path = Fixtures.generated("heif-transforms/" + name)
        let info = try ImageProbe.probeBlocking(path: path)
        #expect(info.containerRotation == (degrees == 0 ? nil : degrees))
        #expect((info.width, info.height) == (degrees % 180 == 90 ? (200, 332) : (332, 200)))
        #expect(info.containerRotates == (degrees % 180 == 90))
        if PhotoReference.has("heif-info") {
            let listed = String(decoding: try PhotoReference.run("heif-info", [path]).output, as: UTF8.self)
            #expect(listed.contains("image: \(info.width)x\(info.height)"), "\(listed)")
        }
    }
}

/// Issue #55: `info` on a PNG reads the file whole once: its header, text, colour chunks and
/// every row (the check that a conversion would not refuse it) all come from one read.
@Suite("info reads a PNG whole once")
struct PNGInfoReadOnceTests {
    @Test("a whole PNG and one cut short are each read whole once by info")
    func once() async throws {
        let folder = try Fixtures.temporaryDirectory("png-once")
        defer { try? FileManager.default.removeItem(at: folder) }
        let whole = folder.appendingPathComponent("whole.png").path
        try FileManager.default.copyItem(atPath: Fixtures.generated("gps-exif-xmp.png"), toPath: whole)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: whole))
        let cut = folder.appendingPathComponent("cut.png").path
        try bytes.dropLast(12).write(to: URL(fileURLWithPath: cut))
        for path in [whole, cut] {
            ImageDecoder.wholeReads.watch(path)
            defer { ImageDecoder.wholeReads.stopWatching(path) }
            let info = try await MediaProbe.probe(path: path)
            #expect(info.image != nil && info.imageError == nil, "\(path)")
            #expect((info.image?.damage != nil) == (path == cut), "\(String(describing: info.image?.damage))")
            #expect(ImageDecoder.wholeReads.parses(of: path) == 1, "\(path)")
        }
    }
}
