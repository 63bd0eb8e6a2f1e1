import Foundation
import Testing

/// `Benchmarks/run --footage DIR` on a folder it has never seen: a small iPhone-named photo and a
/// short clip in a subfolder, copied from TestMedia into a temporary folder beside a note that is
/// not media, each situation run once (`--quick`) with the offconvert these tests run. Peers not
/// installed on the machine must be reported as missing, not stop the run.
@Suite("Benchmarks on the user's own footage")
struct BenchmarkFootageTests {
    @Test("Benchmarks/run --footage DIR --quick writes its table with rows for every photo and clip in it")
    func footage() async throws {
        let manager = FileManager.default
        let folder = manager.temporaryDirectory.appendingPathComponent("offconvert-footage-\(UUID().uuidString)")
        let footage = folder.appendingPathComponent("my footage")
        try manager.createDirectory(at: footage.appendingPathComponent("clips"), withIntermediateDirectories: true)
        defer { try? manager.removeItem(at: folder) }
        try manager.copyItem(
            at: CLIRunner.media.appendingPathComponent("photos/sample_still_photo.heic"),
            to: footage.appendingPathComponent("IMG_0001.HEIC"))
        try manager.copyItem(
            at: CLIRunner.media.appendingPathComponent("video/bt601.mov"),
            to: footage.appendingPathComponent("clips/clip.mov"))
        try "not media".write(to: footage.appendingPathComponent("notes.txt"), atomically: true, encoding: .utf8)
        let report = folder.appendingPathComponent("report.md")

        let outcome = try await CLIRunner.run(
            [
                "python3", CLIRunner.root.appendingPathComponent("Benchmarks/run").path, "--footage", footage.path,
                "--quick",
                "--binary", CLIRunner.executable.path, "--report", report.path,
            ],
            executable: URL(fileURLWithPath: "/usr/bin/env"), directory: folder, timeout: 600)
        #expect(outcome.status == 0, "\(outcome.stdout)\n\(outcome.stderr)")

        let table = try String(contentsOf: report, encoding: .utf8)
        #expect(table.contains("2 file(s)"), "\(table)")
        #expect(table.contains("## Totals") && table.contains("## Per file"))
        #expect(!table.contains("notes.txt"))
        let rows = table.split(separator: "\n").map(String.init).filter { $0.hasPrefix("| ") }
        // Our own row of every situation converted its file, with a time and a size.
        for (file, situation) in [
            ("IMG_0001.HEIC", "heic-to-jpg"), ("IMG_0001.HEIC", "compress-photos --target-size 500KB"),
            ("clips/clip.mov", "send-to-windows"), ("clips/clip.mov", "compress --target 25MB"),
            ("clips/clip.mov", "email"),
        ] {
            let ours = rows.filter { $0.hasPrefix("| \(file) | \(situation) | offconvert ") }
            #expect(ours.count == 1, "no row of ours for \(file), \(situation) in\n\(table)")
            #expect(ours.first?.hasSuffix("| ok |") == true, "\(ours)")
            // Each has a peer row too: measured, or reported as missing on this machine.
            let peers = rows.filter { $0.hasPrefix("| \(file) | \(situation) | ") && !$0.contains("| offconvert ") }
            #expect(!peers.isEmpty, "no peer row for \(file), \(situation)")
        }
        #expect(manager.fileExists(atPath: folder.appendingPathComponent("report.json").path))
    }
}
