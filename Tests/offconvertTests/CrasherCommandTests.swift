import Foundation
import Testing

/// The damaged phone photos that aborted `heic-to-jpg` with heap corruption (the streaming JPEG
/// writer freed its first output buffer twice when a damaged tile ended a banded encode early),
/// rebuilt bit for bit by TestMedia/generators/66-crashers.sh. Each photo command ends cleanly on
/// each: a picture that djpeg/dwebp/exiftool read, or exit 1 with one line naming the file and
/// nothing left in the output folder. Never a signal.
@Suite("Damaged phone photos never abort")
struct CrasherCommandTests {
    static let crashers = [
        "pug-flipped-1.heic", "IMG_5195-flipped.HEIC", "xiaomi-flipped.heic", "IMG_3853-flipped.HEIC",
    ]
    static let commands: [[String]] = [["heic-to-jpg"], ["heic-to-png"], ["convert", "--to", "webp"]]

    static func arguments() -> [(String, [String])] { crashers.flatMap { name in commands.map { (name, $0) } } }

    /// The exit status of `tool`, its output discarded.
    static func status(_ tool: String, _ arguments: [String]) throws -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        return process.terminationStatus
    }

    @Test("each photo command converts it or refuses it in one line", arguments: arguments())
    func endsCleanly(name: String, command: [String]) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "crasher-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let input = directory.appendingPathComponent("p \(name)")
        try FileManager.default.copyItem(
            atPath: CLIRunner.media.appendingPathComponent("generated/crashers/\(name)").path, toPath: input.path)
        let outcome = try await CLIRunner.run(command + [input.lastPathComponent, "-o", "out"], directory: directory)
        #expect(outcome.status == 0 || outcome.status == 1, "status \(outcome.status): \(outcome.stderr)")
        let outputs =
            (try? FileManager.default.contentsOfDirectory(atPath: directory.appendingPathComponent("out").path)) ?? []
        if outcome.status == 1 {
            #expect(outputs.isEmpty, "left behind: \(outputs)")
            let errors = outcome.stderr.split(separator: "\n").filter { $0.hasPrefix("Error:") }
            #expect(errors.count == 1 && errors[0].contains(name), "\(outcome.stderr)")
            return
        }
        #expect(outputs.count == 1, "\(outputs)")
        if command == ["heic-to-jpg"] {
            // The direct path found the damaged tile and says the picture is libheif's concealment.
            #expect(
                (outcome.stdout + outcome.stderr).contains("damaged data: converted what decodes"),
                "\(outcome.stdout) \(outcome.stderr)")
        }
        let output = directory.appendingPathComponent("out/" + (outputs.first ?? "")).path
        // An independent decoder reads every pixel of the picture written.
        switch command.last {
        case "heic-to-jpg": #expect(try Self.status("/usr/bin/djpeg", ["-outfile", "/dev/null", output]) == 0)
        case "webp": #expect(try Self.status("/usr/bin/dwebp", [output, "-o", "/dev/null"]) == 0)
        default: #expect(try Self.status("/usr/bin/ffmpeg", ["-v", "error", "-i", output, "-f", "null", "-"]) == 0)
        }
        let size = try CLIRunner.toolOutput("/usr/bin/exiftool", ["-s", "-s", "-s", "-ImageSize", output])
        #expect(size.contains("x"), "\(size)")
    }
}
