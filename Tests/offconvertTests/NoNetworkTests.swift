import Foundation
import Testing

/// Offline by construction: every command runs inside a network namespace with no interfaces
/// (`unshare -n`) under `strace -f`, and no socket other than a local (AF_UNIX) one may be opened.
@Suite("no network, ever")
struct NoNetworkTests {
    static let haveTools = ["/usr/bin/strace", "/usr/bin/unshare"].allSatisfy { FileManager.default.isExecutableFile(atPath: $0) }

    /// One invocation per command; `OUT` is replaced by a fresh output folder.
    static let invocations: [[String]] = [
        ["info", "TestMedia/video/dolbyVision-hdr.MOV", "TestMedia/photos/IMG_5195.HEIC", "--json"],
        ["info", "http://example.com/clip.mp4"],
        ["allowance"],
        ["--help"],
    ]

    @Test("no command opens a network socket", .enabled(if: haveTools), arguments: invocations)
    func offline(arguments: [String]) async throws {
        let output = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: output) }
        let trace = output.appendingPathComponent("trace.txt")
        let resolved = arguments.map { $0 == "OUT" ? output.path : $0 }
        let outcome = try await CLIRunner.run(
            ["-n", "strace", "-f", "-qq", "-e", "trace=socket,connect,sendto,bind", "-o", trace.path,
             CLIRunner.executable.path] + resolved,
            executable: URL(fileURLWithPath: "/usr/bin/unshare"), directory: CLIRunner.root)
        #expect(outcome.status != 127, "strace/unshare could not run: \(outcome.stderr)")
        let calls = try String(contentsOf: trace, encoding: .utf8)
            .split(separator: "\n").filter { $0.contains("socket(") || $0.contains("connect(") }
        let network = calls.filter { !$0.contains("AF_UNIX") && !$0.contains("AF_LOCAL") }
        #expect(network.isEmpty, "network calls: \(network)")
    }

    @Test("a file named like a URL is read as a local path, never fetched")
    func urlIsAPath() async throws {
        let outcome = try await CLIRunner.run(["info", "http://127.0.0.1:9/clip.mp4"])
        #expect(outcome.status == 1)
        #expect(outcome.stderr.contains("does not exist") || outcome.stderr.contains("no such"))
    }

    static func temporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("offconvert-nonet-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }
}
