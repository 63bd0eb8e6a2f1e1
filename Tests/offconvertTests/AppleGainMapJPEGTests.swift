import Foundation
import Testing

/// Apple's JPEG gain map (iPhones' "Most Compatible" JPEGs before iOS 18), issue #55: MPF image 2
/// whose own XMP names `urn:com:apple:photo:2020:aux:hdrgainmap`, its headroom in the primary's
/// Apple MakerNote (`HDRHeadroom` 1.519, `HDRGain` 0: 3.0 stops by Apple's formula). The fixture is
/// libavif's `apple_gainmap_new.jpg` (384×512, map 192×256). Checked with tools that share no
/// code with offconvert: exiftool (MPF, MakerNote, `hdrgm:`), libultrahdr and Pillow in
/// Tests/Oracles/gainmap-oracle.py (which rebuilds the source's HDR with Apple's formula from
/// Pillow's decode of the primary and of MPF image 2), libheif 1.15's `heif-info -d` and
/// pillow-heif in Tests/Oracles/heic-gainmap-oracle.py. AVIF and JPEG XL outputs are in
/// ``HDRAVIFJXLCommandTests``.
@Suite("HDR gain maps: Apple's gain-map JPEG in")
struct AppleGainMapJPEGTests {
    static let source = "photos/hdr/apple-gainmap-jpeg.jpg"
    static let note = "HDR gain map kept (Apple, headroom 3.0 stops)"

    /// A fresh folder holding the fixture as `a.jpg`.
    static func folder() throws -> UserFolder {
        let folder = try UserFolder()
        try folder.add(source, as: "a.jpg")
        return folder
    }

    /// `info` names Apple's map and the headroom the oracle computes from exiftool's MakerNote
    /// values (2^3 = 8× SDR white).
    @Test("info names the Apple gain map of a JPEG and its MakerNote headroom")
    func info() async throws {
        let folder = try Self.folder()
        defer { folder.remove() }
        let text = try await HeicGainMapCommandTests.run(folder, ["info", "a.jpg"])
        #expect(text.contains("HDR: gain map (Apple), headroom 3.0 stops"), "\(text)")
        let tags = try GainMapCommandTests.tags(
            folder.url.appendingPathComponent("a.jpg").path, ["Apple:HDRHeadroom", "Apple:HDRGain"])
        #expect(tags["Apple:HDRHeadroom"]?.hasPrefix("1.51") == true && tags["Apple:HDRGain"] == "0", "\(tags)")
    }

    /// The Ultra HDR JPEG: libultrahdr's HDR decode against Apple's formula over the source's
    /// planes, and the map itself against the source's map turned into the log coding.
    @Test("convert --to jpg turns Apple's JPEG gain map into an Ultra HDR one libultrahdr reads")
    func ultraHDR() async throws {
        let folder = try Self.folder()
        defer { folder.remove() }
        let text = try await HeicGainMapCommandTests.run(folder, ["convert", "--to", "jpg", "a.jpg", "-o", "out.jpg"])
        #expect(text.contains(Self.note), "\(text)")
        let output = folder.url.appendingPathComponent("out.jpg").path
        try GainMapJPEGCommandTests.expectUltraHDR(output)
        let map = try GainMapCommandTests.tags(output, ["MPImage2:MPImageStart", "MPImage2:MPImageLength"])
        let start = try #require(map["MPImage2:MPImageStart"].flatMap(Int.init))
        let length = try #require(map["MPImage2:MPImageLength"].flatMap(Int.init))
        let mapPath = folder.url.appendingPathComponent("map.jpg").path
        try Data(contentsOf: URL(fileURLWithPath: output)).subdata(in: start..<(start + length)).write(
            to: URL(fileURLWithPath: mapPath))
        let hdrgm = try HeicGainMapCommandTests.hdrgm(mapPath)
        for name in ["GainMapMax", "HDRCapacityMax"] {
            #expect(hdrgm["XMP-hdrgm:\(name)"].flatMap(Double.init) == 3, "\(name): \(hdrgm)")
        }
        #expect(hdrgm["XMP-hdrgm:GainMapMin"].flatMap(Double.init) == 0, "\(hdrgm)")
        let result = try await GainMapCommandTests.oracle(folder.url.appendingPathComponent("a.jpg").path, output)
        #expect(result["headroom"] == 8, "\(result)")
        // Measured: 47.7 dB, correlation 0.9989, mean error 0.6 codes (Apple's codes unmapped: 2.4).
        #expect(try #require(result["hdr_psnr"]) >= 40, "\(result)")
        #expect(try #require(result["map_correlation"]) >= 0.995, "\(result)")
        #expect(try #require(result["map_mean_error"]) < 1.2, "\(result)")
    }

    /// The HEIC keeps Apple's coding: Apple's auxiliary type, the source's MakerNote headroom,
    /// and the same HDR rendition by Apple's formula.
    @Test("convert --to heic keeps Apple's JPEG gain map as Apple's auxiliary image")
    func heic() async throws {
        let folder = try Self.folder()
        defer { folder.remove() }
        let text = try await HeicGainMapCommandTests.run(
            folder, ["convert", "--to", "heic", "a.jpg", "-o", "out.heic"])
        #expect(text.contains(Self.note), "\(text)")
        let output = folder.url.appendingPathComponent("out.heic").path
        let dump = try HeicGainMapCommandTests.boxes(output)
        #expect(dump.contains("aux type: urn:com:apple:photo:2020:aux:hdrgainmap"), "\(dump)")
        #expect(dump.contains("reference with type 'auxl'"), "\(dump)")
        let headroom = try GainMapCommandTests.tags(output, ["MakerNotes:HDRHeadroom"])["Apple:HDRHeadroom"]
        #expect(headroom?.hasPrefix("1.51") == true, "\(String(describing: headroom))")
        let result = try await HeicGainMapCommandTests.heicOracle(folder, "a.jpg", "out.heic")
        #expect(result["aux"] as? [String] == ["urn:com:apple:photo:2020:aux:hdrgainmap"], "\(result)")
        #expect(result["headroom"] as? Double == 8 && result["source_headroom"] as? Double == 8, "\(result)")
        // Measured: 55.8 dB.
        #expect(try #require(result["hdr_psnr"] as? Double) >= 40, "\(result)")
        let info = try await HeicGainMapCommandTests.run(folder, ["info", "out.heic"])
        #expect(info.contains("HDR: gain map (Apple), headroom 3.0 stops"), "\(info)")
    }

    /// `--hdr sdr` drops the map as it does an Ultra HDR JPEG's (no note: the request asked for
    /// SDR); `--strip-metadata` drops it from a HEIC, as a HEIC's Apple map, since only the
    /// MakerNote says what it means there.
    @Test(
        "Apple's JPEG gain map is dropped under --hdr sdr and, for HEIC, --strip-metadata",
        arguments: [
            (["--to", "jpg", "--hdr", "sdr"], "out.jpg", ""),
            (["--to", "heic", "--hdr", "sdr"], "out.heic", ""),
            (
                ["--to", "heic", "--strip-metadata"], "out.heic",
                "HDR not kept: --strip-metadata removes the metadata that describes the gain map"
            ),
        ])
    func dropped(options: [String], name: String, note: String) async throws {
        let folder = try Self.folder()
        defer { folder.remove() }
        let text = try await HeicGainMapCommandTests.run(folder, ["convert"] + options + ["a.jpg", "-o", name])
        try HeicGainMapCommandTests.expectDropped(
            text: text, note: note, output: folder.url.appendingPathComponent(name).path)
    }
}
