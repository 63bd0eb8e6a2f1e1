import Foundation
import Testing

/// What a passthrough remux (`send-to-windows` of a clip that already plays) costs besides the
/// copy itself: the libraries it loads and the disk syncs that make its output and its records
/// durable (issue 52: the remux rows against `ffmpeg -c copy`).
@Suite("Passthrough remux: start-up and disk syncs")
struct RemuxCostTests {
    static let strace = "/usr/bin/strace"
    static let haveStrace = FileManager.default.isExecutableFile(atPath: strace)
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

    /// The files `fsync`/`fdatasync` was called on during one run, in order (strace -y names them).
    static func syncedFiles(_ arguments: [String], state: String, trace: URL) async throws -> [String] {
        let outcome = try await CLIRunner.run(
            ["-f", "-qq", "-y", "-e", "trace=fsync,fdatasync", "-o", trace.path, CLIRunner.executable.path]
                + arguments,
            environment: ["XDG_STATE_HOME": state], executable: URL(fileURLWithPath: strace))
        #expect(outcome.status == 0, "\(outcome.stderr)")
        return try String(contentsOf: trace, encoding: .utf8).split(separator: "\n").compactMap { line in
            guard let open = line.firstIndex(of: "<"), let close = line[open...].firstIndex(of: ">"),
                line.contains("sync(")
            else { return nil }
            return String(line[line.index(after: open)..<close])
        }
    }

    @Test(
        "a remux on a used install syncs the disk 7 times, each for a guarantee, the journal before the charge",
        .enabled(if: haveStrace))
    func syncs() async throws {
        let folder = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let state = folder.appendingPathComponent("state").path
        let trace = folder.appendingPathComponent("trace.txt")
        // The first conversion installs the state (its secret and first record).
        _ = try await Self.syncedFiles(
            ["send-to-windows", Self.clip, "--output-dir", folder.path + "/first", "--quiet"],
            state: state, trace: trace)
        let output = folder.appendingPathComponent("second")
        let synced = try await Self.syncedFiles(
            ["send-to-windows", Self.clip, "--output-dir", output.path, "--quiet"], state: state, trace: trace)
        func kind(_ path: String) -> String {
            if path.hasSuffix(".partial") { return "output" }
            if path.hasSuffix(".journal") { return "journal" }
            if path.contains("-witness/.allowance.tmp-") { return "witness" }
            if path.hasSuffix("-witness") { return "witness folder" }
            if path.contains("/.allowance.tmp-") { return "record" }
            if path.hasSuffix("/offconvert") { return "state folder" }
            return path
        }
        let kinds = synced.map(kind)
        // The reservation (a record not yet durable: no folder sync), the journal's start line (and
        // the run's line before it), the output before it is moved into place, then the charge:
        // the record and its folder, the witness and its folder. Nothing for asking whether the
        // batch was charged before, nothing of its own for the run's line.
        #expect(
            kinds == [
                "record", "journal", "output", "record", "state folder", "witness", "witness folder",
            ], "\(synced)")
        #expect(FileManager.default.fileExists(atPath: output.appendingPathComponent("bikes.mp4").path))
    }
}
