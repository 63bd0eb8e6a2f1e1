import Foundation
import Testing

@Suite("Photo commands: --resize and --fit", .serialized)
struct PhotoResizeCommandTests {
    static func photo(_ name: String) -> String { CLIRunner.media.appendingPathComponent("photos/\(name)").path }

    static func size(_ path: String) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [
            "ffprobe", "-v", "error", "-show_entries", "stream=width,height", "-of", "csv=p=0:s=x", path,
        ]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test(
        "command-line mistakes exit 64 with a message naming the option",
        arguments: [
            (["--resize", "800"], "--resize"), (["--resize", "800x"], "--resize"), (["--resize", "0x600"], "--resize"),
            (["--resize", "800x600x1"], "--resize"), (["--resize", "70000x10"], "--resize"),
            (["--resize", "800x600", "--max-size", "1024"], "--max-size"), (["--fit", "pad"], "--fit"),
            (["--resize", "800x600", "--fit", "stretch"], "--fit"),
        ])
    func usageErrors(extra: [String], named: String) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "offconvert-resize-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let outcome = try await CLIRunner.run(
            ["convert", Self.photo("zPug_3.heic"), "--to", "png", "--output-dir", directory.path] + extra)
        #expect(outcome.status == 64, "\(extra): \(outcome.stderr)")
        #expect(outcome.stderr.contains(named), "\(outcome.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty)
    }

    @Test("every photo command takes --resize; pad honours an explicit --background")
    func commands() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "offconvert-resize-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let runs: [([String], String, String)] = [
            (["heic-to-jpg", Self.photo("pug.heic"), "--resize", "320x320", "--fit", "fill"], "pug.jpg", "320x320"),
            (["heic-to-png", Self.photo("pug.heic"), "--resize", "320x320"], "pug.png", "320x240"),
            (
                ["compress-photos", Self.photo("tokyo.jpg"), "--resize", "300x300", "--fit", "crop"],
                "tokyo (small).jpg", "300x300"
            ),
            (
                [
                    "convert", Self.photo("DSCN0010.jpg"), "--to", "webp", "--resize", "200x200", "--fit", "pad",
                    "--background", "black",
                ],
                "DSCN0010.webp", "200x200"
            ),
        ]
        for (arguments, name, size) in runs {
            let outcome = try await CLIRunner.run(arguments + ["--output-dir", directory.path, "--quiet"])
            #expect(outcome.status == 0, "\(arguments): \(outcome.stderr)")
            #expect(try Self.size(directory.appendingPathComponent(name).path) == size, "\(arguments)")
        }
    }

    @Test("the help of each photo command explains the four fits")
    func help() async throws {
        for command in ["convert", "heic-to-jpg", "heic-to-png", "compress-photos"] {
            let outcome = try await CLIRunner.run([command, "--help"])
            #expect(outcome.status == 0)
            #expect(
                outcome.stdout.contains("--resize <WxH>") && outcome.stdout.contains("--fit <fit|fill|crop|pad>"),
                "\(command)")
            #expect(outcome.stdout.contains("'pad' fits the picture inside"), "\(command)")
        }
    }
}
