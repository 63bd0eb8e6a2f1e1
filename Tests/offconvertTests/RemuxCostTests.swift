import Foundation
import Testing

/// What a passthrough remux (`send-to-windows` of a clip that already plays) costs besides the
/// copy itself: the libraries it loads and the disk syncs that make its output and its records
/// durable (issue 52: the remux rows against `ffmpeg -c copy`).
@Suite("Passthrough remux: start-up and disk syncs")
struct RemuxCostTests {
    static let clip = CLIRunner.media.appendingPathComponent("video/bikes.mp4").path

    static func temporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent(
            "offconvert-remux-cost-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    @Test("a stream copy never loads libavfilter (and the ~40 libraries behind it); a GIF loads it when it filters")
    func filterLibraryOnDemand() async throws {
        let folder = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let copy = try await CLIRunner.run(
            ["send-to-windows", Self.clip, "--output-dir", folder.path, "--quiet"], environment: ["LD_DEBUG": "files"])
        #expect(copy.status == 0, "\(copy.stderr.suffix(2000))")
        #expect(copy.stderr.contains("file=libavformat.so"), "LD_DEBUG shows the libraries loaded")
        #expect(!copy.stderr.contains("libavfilter"))
        let gif = try await CLIRunner.run(
            ["gif", Self.clip, "--duration", "1", "--width", "160", "--output-dir", folder.path, "--quiet"],
            environment: ["LD_DEBUG": "files"])
        #expect(gif.status == 0, "\(gif.stderr.suffix(2000))")
        #expect(gif.stderr.contains("file=libavfilter.so"))
        #expect(FileManager.default.fileExists(atPath: folder.appendingPathComponent("bikes.gif").path))
    }
}
