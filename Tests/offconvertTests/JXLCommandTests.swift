import Foundation
import Testing

@Suite("JPEG XL on the command line", .serialized)
struct JXLCommandTests {
    @Test("formats lists JPEG XL as an input and as convert --to jxl with --quality and --lossless")
    func formats() async throws {
        let outcome = try await CLIRunner.run(["formats"])
        #expect(outcome.status == 0)
        let inputs = outcome.stdout.split(separator: "\n").first { $0.contains("Inputs (recognised by content)") } ?? ""
        #expect(inputs.contains("jxl"), "\(inputs)")
        let lines = outcome.stdout.split(separator: "\n")
        let index = try #require(lines.firstIndex { $0.contains("offconvert convert --to jxl") })
        #expect(lines[index + 1].contains("--lossless") && lines[index + 1].contains("--quality"))
    }

    @Test(
        "convert photo.jpg --to jxl --lossless --keep-metadata, then info, then back to JPEG with djxl: the same bytes")
    func losslessRoundTrip() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "offconvert-jxl-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let source = CLIRunner.media.appendingPathComponent("photos/tokyo.jpg").path
        let outcome = try await CLIRunner.run([
            "convert", source, "--to", "jxl", "--lossless", "--keep-metadata", "--output-dir", directory.path,
        ])
        #expect(outcome.status == 0, "\(outcome.stderr)")
        #expect(outcome.stderr.contains("JPEG recompressed losslessly"), "\(outcome.stderr)")
        let output = directory.appendingPathComponent("tokyo.jxl").path
        let info = try await CLIRunner.run(["info", output])
        #expect(info.status == 0)
        #expect(info.stdout.contains("JPEG XL image") && info.stdout.contains("600x800"), "\(info.stdout)")
        let back = directory.appendingPathComponent("back.jpg").path
        _ = try CLIRunner.toolOutput("/usr/bin/djxl", [output, back])
        let original = try Data(contentsOf: URL(fileURLWithPath: source))
        #expect(try Data(contentsOf: URL(fileURLWithPath: back)) == original)
    }
}
