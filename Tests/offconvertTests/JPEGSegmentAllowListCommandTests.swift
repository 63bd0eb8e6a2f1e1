import Foundation
import Testing

/// Issue #54: a shared copy that carries a JPEG's own bytes (a JPEG already within its size
/// target, a lossless JPEG XL recompression) keeps only the APP segments a viewer needs. The
/// input is a real FLIR thermal photo (its APP1 record holds GPS) with a Ducky APP12 and an ICC
/// profile written by exiftool and Adobe's APP14 spliced in; exiftool (`-v` for the segments,
/// `-a -G1 -s` for the tags) and djpeg are the oracles.
@Suite("privacy: vendor APP segments in shared copies (exiftool oracle)")
struct JPEGSegmentAllowListCommandTests {
    static let exiftool = URL(fileURLWithPath: "/usr/bin/exiftool")
    static let tools = ["/usr/bin/exiftool", "/usr/bin/djxl", "/usr/bin/djpeg"]
    static let haveTools = tools.allSatisfy { FileManager.default.isExecutableFile(atPath: $0) }
    /// Adobe's APP14 as libjpeg writes it for a YCbCr picture (transform 1).
    static let adobe: [UInt8] = [0xFF, 0xEE, 0, 14] + Array("Adobe".utf8) + [0, 100, 0, 0, 0, 0, 1]

    /// The FLIR photo with Ducky, an ICC profile and Adobe's APP14, written into `folder`.
    static func fixture(in folder: URL) async throws -> String {
        let written = folder.appendingPathComponent("w.jpg").path
        let outcome = try await CLIRunner.run(
            [
                "-q", "-Ducky:Quality=80", "-Ducky:Copyright=Ann", "-tagsFromFile",
                CLIRunner.media.appendingPathComponent("photos/hdr/iphone16-crop.jpg").path, "-ICC_Profile", "-o",
                written, CLIRunner.media.appendingPathComponent("photos/location/flir-iphone-gps.jpg").path,
            ], executable: exiftool)
        #expect(outcome.status == 0, "\(outcome.stderr)")
        var bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: written)))
        // After SOI and the 18-byte JFIF APP0.
        #expect(bytes[2...3] == [0xFF, 0xE0] && bytes[4...5] == [0, 16])
        bytes.insert(contentsOf: adobe, at: 20)
        let target = folder.appendingPathComponent("thermal.jpg")
        try Data(bytes).write(to: target)
        return target.path
    }

    /// The APP segments exiftool walks in `path`, in order (`APP0`, `APP1`, ...).
    static func segments(_ path: String) async throws -> [String] {
        let outcome = try await CLIRunner.run(["-v", path], executable: exiftool)
        return outcome.stdout.split(separator: "\n").compactMap { line in
            guard line.hasPrefix("JPEG APP") else { return nil }
            return String(line.dropFirst(5).prefix { $0 != " " })
        }
    }

    /// exiftool's tag lines of `path` (`[Ducky]  Quality : 80%`).
    static func tags(_ path: String) async throws -> String {
        try await CLIRunner.run(["-a", "-G1", "-s", path], executable: exiftool).stdout
    }

    /// The decoded picture of `path` (djpeg's PPM).
    static func pixels(_ path: String) async throws -> Data {
        let ppm = path + ".ppm"
        let outcome = try await CLIRunner.run(
            ["-ppm", "-outfile", ppm, path], executable: URL(fileURLWithPath: "/usr/bin/djpeg"))
        #expect(outcome.status == 0, "\(outcome.stderr)")
        return try Data(contentsOf: URL(fileURLWithPath: ppm))
    }

    /// Checks a shared copy `output` of `input`: the allowed segments only, no FLIR, Ducky or
    /// GPS tag, the same pixels.
    static func checkShared(_ output: String, input: String, _ label: String) async throws {
        // The new EXIF goes right after JFIF; the kept segments follow in the source's order.
        #expect(try await segments(output) == ["APP0", "APP1", "APP14", "APP2"], "\(label)")
        let tags = try await tags(output)
        for gone in ["[FLIR]", "[Ducky]", "GPS", ": Ann"] {
            #expect(!tags.contains(gone), "\(label): \(gone) left: \(tags)")
        }
        for kept in ["[JFIF]", "[ICC_Profile]", "[Adobe]", "[IFD0]", "Display P3"] {
            #expect(tags.contains(kept), "\(label): \(kept) missing: \(tags)")
        }
        #expect(try await pixels(output) == (try await pixels(input)), "\(label)")
    }

    @Test(
        "a JPEG within its size target, and its lossless JPEG XL, keep JFIF, EXIF, ICC and Adobe only",
        .enabled(if: haveTools))
    func shared() async throws {
        let folder = try NoNetworkTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = try await Self.fixture(in: folder)
        let flir = [String](repeating: "APP1", count: 5)
        #expect(try await Self.segments(input) == ["APP0", "APP14", "APP1", "APP2", "APP12"] + flir)
        let before = try await Self.tags(input)
        #expect(before.contains("[FLIR]") && before.contains("GPSLatitude") && before.contains("[Ducky]"))
        let note = "6 vendor segments removed (Ducky APP12, 5 FLIR APP1)"

        let fit = folder.appendingPathComponent("fit")
        let kept = try await CLIRunner.run(["compress-photos", input, "--target-size", "5MB", "-o", fit.path])
        #expect(kept.status == 0, "\(kept.stderr)")
        #expect(kept.stderr.contains("already within the target size"), "\(kept.stderr)")
        #expect(kept.stderr.contains(note), "\(kept.stderr)")
        try await Self.checkShared(try XMPAllowListCommandTests.output(in: fit), input: input, "within target")

        let jxl = folder.appendingPathComponent("jxl")
        let recompressed = try await CLIRunner.run(["convert", input, "--to", "jxl", "--lossless", "-o", jxl.path])
        #expect(recompressed.status == 0, "\(recompressed.stderr)")
        #expect(recompressed.stderr.contains(note), "\(recompressed.stderr)")
        let back = folder.appendingPathComponent("back.jpg").path
        let rebuilt = try await CLIRunner.run(
            [try XMPAllowListCommandTests.output(in: jxl), back], executable: URL(fileURLWithPath: "/usr/bin/djxl"))
        #expect(rebuilt.status == 0, "\(rebuilt.stderr)")
        try await Self.checkShared(back, input: input, "JPEG XL reconstruction")
    }

    @Test(
        "a PDF page embeds the JPEG without its FLIR and Ducky segments, its ICC and Adobe ones kept",
        .enabled(if: haveTools))
    func pdfPage() async throws {
        let folder = try NoNetworkTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = try await Self.fixture(in: folder)
        let pdf = folder.appendingPathComponent("album.pdf")
        let outcome = try await CLIRunner.run(["images-to-pdf", input, "-o", pdf.path])
        #expect(outcome.status == 0, "\(outcome.stderr)")
        #expect(outcome.stderr.contains("embedded without re-encoding"), "\(outcome.stderr)")
        let bytes = try Data(contentsOf: pdf)
        let count = { (text: String) in bytes.ranges(of: Data(text.utf8)).count }
        let source = try Data(contentsOf: URL(fileURLWithPath: input))
        #expect(
            source.ranges(of: Data("FLIR\0\u{1}".utf8)).count == 5 && source.ranges(of: Data("Ducky".utf8)).count == 1)
        #expect(count("FLIR\0\u{1}") == 0 && count("Ducky") == 0)
        #expect(count("ICC_PROFILE") == 1 && count("Adobe\0") == 1)
    }

    @Test("--keep-metadata keeps every segment as it was", .enabled(if: haveTools))
    func keepMetadata() async throws {
        let folder = try NoNetworkTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = try await Self.fixture(in: folder)
        let out = folder.appendingPathComponent("out")
        let outcome = try await CLIRunner.run([
            "compress-photos", input, "--target-size", "5MB", "--keep-metadata", "-o", out.path,
        ])
        #expect(outcome.status == 0, "\(outcome.stderr)")
        #expect(!outcome.stderr.contains("vendor segment"), "\(outcome.stderr)")
        let output = try XMPAllowListCommandTests.output(in: out)
        #expect(try await Self.segments(output) == (try await Self.segments(input)))
        let tags = try await Self.tags(output)
        #expect(tags.contains("[FLIR]") && tags.contains("[Ducky]") && tags.contains("GPSLatitude"), "\(tags)")
    }
}
