import Foundation
import Testing

@Suite("convert --depth", .serialized)
struct PhotoDepthCommandTests {
    @Test(
        "--depth is for HEIC only, and takes 8 or 10",
        arguments: [
            (["--to", "jpg", "--depth", "10"], "'--depth' does not apply"),
            (["--to", "heic", "--depth", "12"], "--depth"),
        ])
    func usage(extra: [String], message: String) async throws {
        let input = CLIRunner.media.appendingPathComponent("photos/zPug_3.heic").path
        let outcome = try await CLIRunner.run(["convert", input, "--dry-run"] + extra)
        #expect(outcome.status == 64, "\(outcome.stderr)")
        #expect(outcome.stderr.contains(message), "\(outcome.stderr)")
    }

    @Test("--depth --to avif is refused up front (exit 64): formats does not offer it, and nothing is written")
    func avif() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "offconvert-depth-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let input = CLIRunner.media.appendingPathComponent("photos/zPug_3.heic").path
        let outcome = try await CLIRunner.run([
            "convert", input, "--to", "avif", "--depth", "10", "--output-dir", directory.path,
        ])
        #expect(outcome.status == 64)
        #expect(outcome.stderr.contains("'--depth' does not apply to '--to avif'"), "\(outcome.stderr)")
        let formats = try await CLIRunner.run(["formats"])
        let avifLine =
            formats.stdout.split(separator: "\n").drop { !$0.contains("convert --to avif") }.dropFirst().first ?? ""
        #expect(!avifLine.isEmpty && !avifLine.contains("--depth"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty)
    }
}
