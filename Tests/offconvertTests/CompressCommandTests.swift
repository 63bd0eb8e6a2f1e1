import Foundation
import Testing

/// `offconvert compress` and `offconvert email` end to end: outputs, messages and exit codes.
@Suite("compress and email commands")
struct CompressCommandTests {
    static func temporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("offconvert-cli-compress-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    static func size(_ path: String) throws -> Int64 {
        try #require(try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int64)
    }

    @Test("compress --target writes an MP4 no larger than the target and exits 0")
    func compress() async throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let input = CLIRunner.media.appendingPathComponent("video/motion.mov").path
        let outcome = try await CLIRunner.run(["compress", input, "--target", "250KiB", "--output-dir", directory.path])
        #expect(outcome.status == 0, "\(outcome.stderr)")
        let output = directory.appendingPathComponent("motion.mp4").path
        // Not a terminal: stdout holds only the output path.
        #expect(outcome.stdout == output + "\n")
        let bytes = try Self.size(output)
        #expect(bytes <= 250 * 1024)
        #expect(bytes >= 225 * 1024)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["motion.mp4"])
    }

    @Test("an impossible target exits 1 with the smallest reachable size and writes nothing")
    func impossible() async throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let input = CLIRunner.media.appendingPathComponent("video/motion.mov").path
        let outcome = try await CLIRunner.run(["compress", input, "--target", "1KB", "--output-dir", directory.path])
        #expect(outcome.status == 1)
        #expect(outcome.stderr.contains("the smallest it can reach is"))
        // In the unit the target was given in.
        #expect(outcome.stderr.contains("cannot be compressed to 1 kB"))
        #expect(outcome.stderr.contains(" kB."))
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty)
    }

    @Test("a missing or malformed --target is a usage error (exit 64)", arguments: [
        [] as [String], ["--target", "25 furlongs"], ["--target", "0MB"],
    ])
    func usage(_ extra: [String]) async throws {
        let input = CLIRunner.media.appendingPathComponent("video/motion.mov").path
        let outcome = try await CLIRunner.run(["compress", input] + extra)
        #expect(outcome.status == 64)
        #expect(outcome.stderr.contains("--target"))
    }

    @Test("email copies a clip that already fits 25 MB and plays everywhere")
    func email() async throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let input = CLIRunner.media.appendingPathComponent("video/motion.mov").path
        let outcome = try await CLIRunner.run(["email", input, "--output-dir", directory.path, "--json"])
        #expect(outcome.status == 0, "\(outcome.stderr)")
        #expect(outcome.stdout.contains("\"event\":\"finished\""))
        #expect(outcome.stdout.contains("copied without re-encoding"))
        #expect(try Self.size(directory.appendingPathComponent("motion.mp4").path) <= 25_000_000)
    }

    @Test("help documents the size units")
    func help() async throws {
        let outcome = try await CLIRunner.run(["compress", "--help"])
        #expect(outcome.status == 0)
        #expect(outcome.stdout.contains("MB = 1000^2"))
        #expect(outcome.stdout.contains("MiB = 1024^2"))
        let email = try await CLIRunner.run(["email", "--help"])
        #expect(email.status == 0)
        #expect(email.stdout.contains("25,000,000 bytes"))
    }
}
