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

/// The footage report's video rows compare the same work: every peer is given what offconvert did
/// with the clip (a copy against a copy, the same tone map, every frame at its own time), and
/// says so in its row.
@Suite("Benchmarks on footage: peers do offconvert's work")
struct BenchmarkFootageWorkTests {
    struct Row: Decodable {
        var file: String
        var situation: String
        var contender: String
        var ours: Bool
        var status: String
        var reason: String
        var work: String
    }

    struct Report: Decodable { var rows: [Row] }

    /// Runs ffmpeg to completion; its exit status.
    static func ffmpeg(_ arguments: [String]) throws -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/ffmpeg")
        process.arguments = arguments
        process.standardInput = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        return process.terminationStatus
    }

    @Test(
        "a variable-frame-rate clip gets ffmpeg's two passes, a clip that fits a copy (HandBrake n/a), an HDR one the tone map"
    )
    func sameWork() async throws {
        let manager = FileManager.default
        let folder = manager.temporaryDirectory.appendingPathComponent("offconvert-footage-work-\(UUID().uuidString)")
        let footage = folder.appendingPathComponent("clips")
        try manager.createDirectory(at: footage, withIntermediateDirectories: true)
        defer { try? manager.removeItem(at: folder) }
        // A phone-like clip whose frame rate changes (30 then 24 fps): ffmpeg's default frame timing
        // makes its two passes see different frames ("Incomplete MB-tree stats file").
        let vfr = try Self.ffmpeg(
            [
                "-v", "error", "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=30:duration=2", "-f", "lavfi", "-i",
                "testsrc2=size=320x240:rate=24:duration=2", "-f", "lavfi", "-i",
                "sine=frequency=440:sample_rate=48000:duration=4", "-filter_complex",
                "[0:v][1:v]concat=n=2:v=1:a=0,noise=alls=20:allf=t[v]", "-map", "[v]", "-map", "2:a", "-fps_mode",
                "vfr",
                "-c:v", "libx264", "-preset", "veryfast", "-crf", "18", "-c:a", "aac", "-b:a", "64k", "-f", "mov",
                footage.appendingPathComponent("IMG_0001.MOV").path,
            ])
        #expect(vfr == 0)
        // A clip that already fits the target and plays everywhere (H.264 + AAC).
        let fits = try Self.ffmpeg(
            [
                "-v", "error", "-f", "lavfi", "-i", "testsrc2=size=160x120:rate=25:duration=1", "-f", "lavfi", "-i",
                "sine=frequency=440:sample_rate=44100:duration=1", "-c:v", "libx264", "-pix_fmt", "yuv420p", "-c:a",
                "aac", "-b:a", "64k", footage.appendingPathComponent("fits.mp4").path,
            ])
        #expect(fits == 0)
        try manager.copyItem(
            at: CLIRunner.media.appendingPathComponent("generated/pq-hevc.mp4"),
            to: footage.appendingPathComponent("hdr.mp4"))
        let report = folder.appendingPathComponent("report.md")
        let outcome = try await CLIRunner.run(
            [
                "python3", CLIRunner.root.appendingPathComponent("Benchmarks/run").path, "--footage", footage.path,
                "--quick", "--video-target", "100KB", "--binary", CLIRunner.executable.path, "--report", report.path,
            ],
            executable: URL(fileURLWithPath: "/usr/bin/env"), directory: folder, timeout: 900)
        #expect(outcome.status == 0, "\(outcome.stdout)\n\(outcome.stderr)")
        let rows = try JSONDecoder().decode(
            Report.self, from: Data(contentsOf: folder.appendingPathComponent("report.json"))
        ).rows
        // No contender fails: the ffmpeg peer converts every clip ffmpeg itself can.
        for row in rows { #expect(["ok", "n/a", "missing"].contains(row.status), "\(row)") }
        func row(_ file: String, _ situation: String, _ peer: String) -> Row? {
            rows.first { $0.file == file && $0.situation == situation && !$0.ours && $0.contender.hasPrefix(peer) }
        }
        func ours(_ file: String, _ situation: String) -> Row? {
            rows.first { $0.file == file && $0.situation == situation && $0.ours }
        }
        let compress = "compress --target 100KB"
        // Ours is one encode at x264's average bitrate; the peer, not knowing the size ahead, two.
        #expect(ours("IMG_0001.MOV", compress)?.work.contains("1-pass") == true)
        #expect(row("IMG_0001.MOV", compress, "ffmpeg")?.work.contains("2-pass") == true)
        #expect(row("IMG_0001.MOV", compress, "ffmpeg")?.status == "ok")
        // A copy against a copy; HandBrake, which cannot copy, is not asked for the source's bitrate.
        #expect(ours("fits.mp4", compress)?.work.hasPrefix("video copied") == true)
        #expect(row("fits.mp4", compress, "ffmpeg")?.work.hasPrefix("video copied") == true)
        #expect(["n/a", "missing"].contains(row("fits.mp4", compress, "HandBrakeCLI")?.status ?? ""))
        #expect(row("fits.mp4", "send-to-windows", "ffmpeg")?.work.hasPrefix("video copied") == true)
        // The same tone map on both sides, said in the rows.
        for situation in ["send-to-windows", compress] {
            #expect(ours("hdr.mp4", situation)?.work.contains("tone mapped") == true)
            #expect(row("hdr.mp4", situation, "ffmpeg")?.work.contains("tone mapped") == true)
        }
        if let handBrake = row("hdr.mp4", compress, "HandBrakeCLI"), handBrake.status == "ok" {
            #expect(handBrake.work.contains("tone mapped"))
        }
        let table = try String(contentsOf: report, encoding: .utf8)
        #expect(table.contains("| work |"))
    }
}
