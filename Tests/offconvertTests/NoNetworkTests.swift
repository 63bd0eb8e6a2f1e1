import Foundation
import Testing

/// Offline by construction: every command runs inside a network namespace with no interfaces
/// (`unshare -n`) under `strace -f`, and no socket other than a local (AF_UNIX) one may be opened.
@Suite("no network, ever")
struct NoNetworkTests {
    static let haveTools = ["/usr/bin/strace", "/usr/bin/unshare"].allSatisfy {
        FileManager.default.isExecutableFile(atPath: $0)
    }

    /// One invocation per command of the CLI, plus hostile inputs; `OUT` at the start of an
    /// argument is replaced by a fresh output folder.
    static let invocations: [[String]] = [
        ["heic-to-jpg", "TestMedia/photos/zPug_3.heic", "-o", "OUT"],
        ["heic-to-png", "TestMedia/photos/zPug_3.heic", "-o", "OUT"],
        ["send-to-windows", "TestMedia/generated/location-xyz.mp4", "-o", "OUT"],
        ["compress", "TestMedia/video/bikes.mp4", "--target", "300KB", "-o", "OUT"],
        ["email", "TestMedia/video/sample.mp4", "-o", "OUT"],
        ["compress-photos", "TestMedia/photos/tokyo.jpg", "--target-size", "100KB", "-o", "OUT"],
        ["gif", "TestMedia/generated/location-xyz.mp4", "-o", "OUT"],
        ["extract-audio", "TestMedia/generated/location-xyz.mp4", "-o", "OUT"],
        ["images-to-pdf", "TestMedia/photos/tokyo.jpg", "-o", "OUT/album.pdf"],
        ["convert", "TestMedia/photos/tokyo.jpg", "--to", "webp", "-o", "OUT"],
        ["info", "TestMedia/video/dolbyVision-hdr.MOV", "TestMedia/photos/IMG_5195.HEIC", "--json"],
        ["info", "http://example.com/clip.mp4"],
        [
            "info", "TestMedia/generated/playlist.mp4", "TestMedia/generated/playlist.m3u8",
            "TestMedia/generated/list.mp4",
        ],
        ["strip-location", "TestMedia/photos/tokyo.jpg", "TestMedia/video/sample.mp4", "-o", "OUT"],
        ["extract-motion", "TestMedia/generated/motion-google.MP.jpg", "-o", "OUT"],
        ["strip-motion", "TestMedia/generated/motion-samsung.jpg", "-o", "OUT"],
        ["live-photo", "TestMedia/generated/live/IMG_5195.HEIC", "-o", "OUT"],
        ["allowance"],
        ["formats", "--json"],
        ["capabilities"],
        ["unlock", "TestMedia/generated/not-media.txt"],
        ["watch", "OUT", "--once"],
        ["desktop", "install", "--dry-run"],
        // Runs `offconvert info` as a child, as the file manager's menu entry does.
        ["desktop", "run", "show-info", "--", "TestMedia/photos/tokyo.jpg"],
        ["--help"],
    ]

    @Test("the table covers every command of the CLI")
    func everyCommand() async throws {
        let help = try await CLIRunner.run(["--help"]).stdout
        let section = try #require(
            help.components(separatedBy: "COMMANDS:\n").last?.components(separatedBy: "\n\n").first)
        let listed = section.split(separator: "\n").compactMap { line -> String? in
            guard line.hasPrefix("  "), !line.hasPrefix("   ") else { return nil }
            return line.split(separator: " ").first.map(String.init)
        }
        let covered = Set(Self.invocations.compactMap(\.first))
        #expect(listed.count >= 12, "\(listed)")
        for command in listed { #expect(covered.contains(command), "\(command) is not run offline") }
    }

    @Test("no command opens a network socket", .enabled(if: haveTools), arguments: invocations)
    func offline(arguments: [String]) async throws {
        let output = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: output) }
        let trace = output.appendingPathComponent("trace.txt")
        let resolved = arguments.map { $0.hasPrefix("OUT") ? output.path + $0.dropFirst(3) : $0 }
        let outcome = try await CLIRunner.run(
            [
                "-n", "strace", "-f", "-qq", "-e", "trace=socket,connect,sendto,bind", "-o", trace.path,
                CLIRunner.executable.path,
            ] + resolved,
            executable: URL(fileURLWithPath: "/usr/bin/unshare"), directory: CLIRunner.root)
        #expect(outcome.status != 127, "strace/unshare could not run: \(outcome.stderr)")
        #expect(outcome.status != 139 && outcome.status != 134, "crashed: \(outcome.stderr)")
        let calls = try String(contentsOf: trace, encoding: .utf8)
            .split(separator: "\n").filter { $0.contains("socket(") || $0.contains("connect(") }
        let network = calls.filter { !$0.contains("AF_UNIX") && !$0.contains("AF_LOCAL") }
        #expect(network.isEmpty, "network calls: \(network)")
    }

    @Test("a playlist or ffconcat list opens no other file", .enabled(if: haveTools))
    func playlistsOpenNothingElse() async throws {
        let output = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: output) }
        let trace = output.appendingPathComponent("trace.txt")
        let outcome = try await CLIRunner.run(
            [
                "-f", "-qq", "-e", "trace=open,openat,connect", "-o", trace.path, CLIRunner.executable.path, "info",
                "TestMedia/generated/playlist.mp4", "TestMedia/generated/playlist.m3u8", "TestMedia/generated/list.mp4",
            ],
            executable: URL(fileURLWithPath: "/usr/bin/strace"), directory: CLIRunner.root)
        #expect(outcome.status == 1)
        #expect(outcome.stderr.split(separator: "\n").count == 3, "\(outcome.stderr)")
        let opened = try String(contentsOf: trace, encoding: .utf8).split(separator: "\n")
        #expect(opened.contains { $0.contains("playlist.m3u8") }, "the trace shows opens")
        #expect(
            !opened.contains { $0.contains("motion.mov") || $0.contains("location-xyz.mp4") || $0.contains("connect(") }
        )
    }

    @Test("a file named like a URL is read as a local path, never fetched")
    func urlIsAPath() async throws {
        let outcome = try await CLIRunner.run(["info", "http://127.0.0.1:9/clip.mp4"])
        #expect(outcome.status == 1)
        #expect(outcome.stderr.contains("does not exist") || outcome.stderr.contains("no such"))
    }

    static func temporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent(
            "offconvert-nonet-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }
}
