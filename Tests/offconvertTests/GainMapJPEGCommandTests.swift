import Foundation
import Testing

/// Gain-map JPEGs in, and `info` on every photo with a gain map. The Ultra HDR input is made
/// from pug.heic by `heic-to-jpg --max-size 1600` (its HDR checked against Apple's formula by the
/// HEIC tests); every output made from it is checked with exiftool (MPF, `hdrgm:`) and with
/// libultrahdr, whose HDR decode of the output must match its HDR decode of the input, resized
/// (Tests/Oracles/gainmap-oracle.py with a JPEG source).
@Suite("HDR gain maps: Ultra HDR JPEG in and out, info")
struct GainMapJPEGCommandTests {
    typealias Base = GainMapCommandTests
    static let pixel = CLIRunner.media.appendingPathComponent("photos/hdr/pixel_8.jpg").path

    /// An Ultra HDR JPEG of pug.heic, 1600 px long edge, in `directory`.
    static func ultraHDRInput(in directory: URL) async throws -> String {
        let folder = directory.appendingPathComponent("input")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let (path, stdout) = try await Base.convert(Base.pug, ["heic-to-jpg", "--max-size", "1600"], in: folder)
        try #require(stdout.contains("HDR gain map kept"), "\(stdout)")
        let renamed = directory.appendingPathComponent("hdr.jpg").path
        try FileManager.default.moveItem(atPath: path, toPath: renamed)
        return renamed
    }

    /// The whole file is primary + gain map as MPF says, and both carry `hdrgm:`.
    static func expectUltraHDR(_ path: String) throws {
        let tags = try Base.tags(
            path, ["MPF0:NumberOfImages", "MPImage2:MPImageStart", "MPImage2:MPImageLength", "XMP-hdrgm:Version"])
        #expect(tags["MPF0:NumberOfImages"] == "2", "\(tags)")
        #expect(tags["XMP-hdrgm:Version"] == "1.0")
        let size = try #require(try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int)
        let start = try #require(tags["MPImage2:MPImageStart"].flatMap(Int.init))
        let length = try #require(tags["MPImage2:MPImageLength"].flatMap(Int.init))
        #expect(start + length == size)
        let listing = try CLIRunner.toolOutput("/usr/bin/exiftool", ["-a", "-s", "-s", "-DirectoryItemSemantic", path])
        #expect(
            listing.components(separatedBy: "\n").filter { $0.hasPrefix("DirectoryItemSemantic") }.count == 2,
            "\(listing)")
    }

    /// No MPF entries and no `hdrgm:`/`Container:Directory` XMP left in a file without a map.
    static func expectNoGainMap(_ path: String) throws {
        let text = try CLIRunner.toolOutput("/usr/bin/exiftool", ["-a", "-G1", "-s", path])
        #expect(!text.contains("MPF") && !text.contains("MPImage"), "\(text)")
        #expect(!text.contains("hdrgm") && !text.contains("DirectoryItem"), "\(text)")
    }

    @Test(
        "an Ultra HDR JPEG keeps its gain map through convert, compress-photos and resizing",
        arguments: [
            ["convert", "--to", "jpg", "--max-size", "800"], ["compress-photos", "--quality", "60"],
            ["convert", "--to", "jpg", "--resize", "700x700", "--fit", "crop"],
        ])
    func jpegInOut(arguments: [String]) async throws {
        let directory = try Base.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let input = try await Self.ultraHDRInput(in: directory)
        let out = directory.appendingPathComponent("out")
        try FileManager.default.createDirectory(at: out, withIntermediateDirectories: true)
        let outcome = try await CLIRunner.run(arguments + [input, "--output-dir", out.path])
        #expect(outcome.status == 0, "\(outcome.stderr)")
        #expect(
            (outcome.stdout + outcome.stderr).contains("HDR gain map kept (ISO 21496-1, headroom 1.8 stops)"),
            "\(outcome.stdout)")
        let name = arguments[0] == "compress-photos" ? "hdr (small).jpg" : "hdr.jpg"
        let output = out.appendingPathComponent(name).path
        try Self.expectUltraHDR(output)
        let oracleArguments = arguments.contains("crop") ? ["--fit", "crop", "700x700"] : []
        let result = try await Base.oracle(input, output, oracleArguments)
        let psnr = try #require(result["hdr_psnr"])
        #expect(psnr >= 35, "HDR PSNR \(psnr) dB against the input's own HDR")
    }

    /// `--target-size` on a gain-map JPEG counts both images.
    @Test("compress-photos --target-size on an Ultra HDR JPEG counts both images")
    func jpegTargetSize() async throws {
        let directory = try Base.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let input = try await Self.ultraHDRInput(in: directory)
        let outcome = try await CLIRunner.run([
            "compress-photos", input, "--target-size", "80000", "--output-dir", directory.path,
        ])
        #expect(outcome.status == 0, "\(outcome.stderr)")
        let output = directory.appendingPathComponent("hdr (small).jpg").path
        let size = try #require(try FileManager.default.attributesOfItem(atPath: output)[.size] as? Int)
        #expect(size <= 80000 && size > 40000, "\(size)")
        try Self.expectUltraHDR(output)
    }

    /// Outputs without a gain map claim none: PNG and WebP say why, `--hdr sdr` writes plain JPEG,
    /// and a Pixel file whose map has no headroom (GainMapMax 0) says so.
    @Test(
        "when HDR is dropped nothing claims it",
        arguments: [
            (["convert", "--to", "png"], "hdr.png", "HDR not kept: PNG has no gain map"),
            (["convert", "--to", "webp"], "hdr.webp", "HDR not kept: WebP has no gain map"),
            (["convert", "--to", "jpg", "--hdr", "sdr"], "hdr.jpg", ""),
        ])
    func dropped(arguments: [String], name: String, note: String) async throws {
        let directory = try Base.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let input = try await Self.ultraHDRInput(in: directory)
        let out = directory.appendingPathComponent("out")
        try FileManager.default.createDirectory(at: out, withIntermediateDirectories: true)
        let outcome = try await CLIRunner.run(arguments + [input, "--output-dir", out.path])
        #expect(outcome.status == 0, "\(outcome.stderr)")
        let text = outcome.stdout + outcome.stderr
        if note.isEmpty { #expect(!text.contains("HDR"), "\(text)") } else { #expect(text.contains(note), "\(text)") }
        try Self.expectNoGainMap(out.appendingPathComponent(name).path)
    }

    @Test("a Pixel Ultra HDR JPEG with a flat gain map says it has no headroom, and keeps no declaration")
    func flatPixel() async throws {
        let directory = try Base.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let outcome = try await CLIRunner.run([
            "convert", "--to", "jpg", "--max-size", "600", Self.pixel, "--output-dir", directory.path,
        ])
        #expect(outcome.status == 0, "\(outcome.stderr)")
        #expect(
            (outcome.stdout + outcome.stderr).contains("HDR not kept: the gain map has no headroom"),
            "\(outcome.stdout)")
        try Self.expectNoGainMap(directory.appendingPathComponent("pixel_8.jpg").path)
    }

    /// strip-location edits the primary's EXIF in place: the gain map, the MPF index and the
    /// `hdrgm:` XMP stay valid (the Pixel file has GPS).
    @Test("strip-location keeps a JPEG's gain map")
    func stripLocation() async throws {
        let directory = try Base.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let outcome = try await CLIRunner.run(["strip-location", Self.pixel, "--output-dir", directory.path])
        #expect(outcome.status == 0, "\(outcome.stderr)")
        let output = directory.appendingPathComponent("pixel_8 (no location).jpg").path
        try Self.expectUltraHDR(output)
        let gps = try Base.tags(output, ["GPS:GPSLatitude"])
        #expect(gps["GPS:GPSLatitude"] == nil, "\(gps)")
        // The gain map's own hdrgm: parameters are still at the MPF offset.
        let tags = try Base.tags(output, ["MPImage2:MPImageStart"])
        let start = try #require(tags["MPImage2:MPImageStart"].flatMap(Int.init))
        let data = try Data(contentsOf: URL(fileURLWithPath: output))
        #expect(data[start] == 0xFF && data[start + 1] == 0xD8)
        #expect(data.subdata(in: start..<data.count).range(of: Data("hdrgm:GainMapMax".utf8)) != nil)
    }

    /// `info` names the gain map and its headroom, in text and in --json.
    @Test(
        "info shows the gain map and its headroom",
        arguments: [
            (Base.pug, "Apple", 1.8), (Base.iOS18, "ISO 21496-1", 2.8), (pixel, "Ultra HDR", 0.0),
        ])
    func info(path: String, origin: String, stops: Double) async throws {
        let text = try await CLIRunner.run(["info", path])
        #expect(text.status == 0, "\(text.stderr)")
        #expect(text.stdout.contains("HDR: gain map (\(origin)), headroom \(stops) stops"), "\(text.stdout)")
        // A flat map is named as such, not sold as brighter highlights.
        let effect = stops > 0 ? "brighter highlights on an HDR screen" : "flat, it brightens nothing (not kept)"
        #expect(text.stdout.contains(effect), "\(text.stdout)")
        let json = try await CLIRunner.run(["info", "--json", path])
        #expect(json.status == 0, "\(json.stderr)")
        #expect(json.stdout.contains("\"gainMap\""), "\(json.stdout)")
        let object = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8))
        let found = Self.find("gainMap", in: object) as? [String: Any]
        #expect(found?["origin"] as? String == origin)
        #expect(found?["brightens"] as? Bool == (stops > 0))
        let headroom = try #require(found?["headroomStops"] as? Double)
        #expect(abs(headroom - stops) < 0.05)
    }

    /// `info` of an Ultra HDR JPEG offconvert wrote.
    @Test("info shows the gain map of an Ultra HDR JPEG")
    func infoOfOutput() async throws {
        let directory = try Base.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let input = try await Self.ultraHDRInput(in: directory)
        let text = try await CLIRunner.run(["info", input])
        #expect(text.stdout.contains("HDR: gain map (ISO 21496-1), headroom 1.8 stops"), "\(text.stdout)")
    }

    static func find(_ key: String, in object: Any) -> Any? {
        if let dictionary = object as? [String: Any] {
            if let value = dictionary[key] { return value }
            for value in dictionary.values { if let found = find(key, in: value) { return found } }
        } else if let array = object as? [Any] {
            for value in array { if let found = find(key, in: value) { return found } }
        }
        return nil
    }
}
