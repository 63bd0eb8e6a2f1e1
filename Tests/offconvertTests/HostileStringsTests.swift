import Foundation
import Testing

/// File names and metadata are untrusted: an escape sequence in either must never reach the
/// terminal, whichever command prints it (results, notes, progress or an error that names the file).
@Suite("Hostile strings never reach the terminal")
struct HostileStringsTests {
    /// Sets the window title and rings the bell (OSC 0), then turns text red (CSI).
    static let payload = "\u{1B}]0;pwned\u{07}\u{1B}[31m"

    static func make(_ tool: String, _ arguments: [String]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/\(tool)")
        process.arguments = arguments
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "\(tool) \(arguments)")
    }

    static func expectClean(_ outcome: CLIRunner.Outcome, _ label: String) {
        for (name, text) in [("stdout", outcome.stdout), ("stderr", outcome.stderr)] {
            let bytes = Array(text.utf8)
            #expect(!bytes.contains(0x1B), "ESC in \(name) of \(label): \(text.debugDescription)")
            #expect(!bytes.contains(0x07), "BEL in \(name) of \(label): \(text.debugDescription)")
        }
    }

    @Test("a video and a photo named (and titled) with escape sequences: info, conversions, --json")
    func video() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "offconvert-hostile-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let input = directory.appendingPathComponent("clip\(Self.payload).mp4").path
        try Self.make(
            "ffmpeg",
            [
                "-nostdin", "-v", "error", "-y", "-i", CLIRunner.media.appendingPathComponent("video/sample.mp4").path,
                "-c", "copy", "-metadata", "title=\(Self.payload)", "-metadata", "comment=\(Self.payload)", input,
            ])
        let output = directory.appendingPathComponent("out\(Self.payload)").path
        try FileManager.default.createDirectory(atPath: output, withIntermediateDirectories: true)
        let photo = directory.appendingPathComponent("pug\(Self.payload).heic").path
        try FileManager.default.copyItem(
            atPath: CLIRunner.media.appendingPathComponent("photos/zPug_3.heic").path, toPath: photo)
        let runs: [[String]] = [
            ["info", photo], ["heic-to-jpg", photo, "-o", output],
            ["convert", photo, "--to", "webp", "-o", output, "--json"],
            ["info", input], ["info", "--json", input],
            ["convert", input, "--to", "mkv", "-o", output],
            ["send-to-windows", input, "-o", output, "--overwrite", "--json"],
            ["gif", input, "--duration", "0.2", "--width", "32", "-o", output],
            ["extract-audio", input, "-o", output],
        ]
        for arguments in runs {
            let outcome = try await CLIRunner.run(arguments)
            #expect(outcome.status == 0, "\(arguments.first ?? ""): \(outcome.stderr)")
            Self.expectClean(outcome, arguments.joined(separator: " "))
        }
    }

    @Test("errors that name a hostile file: missing, damaged, not media, bad option value")
    func errors() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "offconvert-hostile-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let damaged = directory.appendingPathComponent("photo\(Self.payload).heic")
        try Data("not a photo at all, just text".utf8).write(to: damaged)
        let missing = directory.appendingPathComponent("gone\(Self.payload).mp4").path
        let runs: [[String]] = [
            ["info", damaged.path], ["info", missing],
            ["heic-to-jpg", damaged.path], ["heic-to-jpg", "--json", damaged.path],
            ["convert", missing, "--to", "mp4"], ["send-to-windows", damaged.path],
            ["heic-to-jpg", "--quality", Self.payload, damaged.path],
            ["heic-to-jpg", "--\(Self.payload)"], [Self.payload],
        ]
        for arguments in runs {
            let outcome = try await CLIRunner.run(arguments)
            #expect(outcome.status != 0, "\(arguments) succeeded")
            Self.expectClean(outcome, arguments.joined(separator: " "))
        }
    }
}
