import Foundation
import Testing

/// `--max-pixels`: converting commands refuse pictures over the limit, naming the option that
/// raises it; the default refuses a generated decompression bomb.
@Suite("--max-pixels")
struct MaxPixelsOptionTests {
    @Test("a photo over a lowered limit fails; the default converts it")
    func photo() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "offconvert-maxpixels-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let input = CLIRunner.media.appendingPathComponent("photos/zPug_3.heic").path
        let refused = try await CLIRunner.run(["heic-to-jpg", input, "-o", directory.path, "--max-pixels", "4000"])
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("--max-pixels"), "\(refused.stderr)")
        let converted = try await CLIRunner.run(["heic-to-jpg", input, "-o", directory.path])
        #expect(converted.status == 0, "\(converted.stderr)")
        let usage = try await CLIRunner.run(["heic-to-jpg", input, "--max-pixels", "0"])
        #expect(usage.status == 64)
    }

    @Test(
        "the generated bombs are refused by default, photo and video",
        arguments: [
            ["convert", "bomb-100000x100000.png", "--to", "jpg"], ["heic-to-png", "bomb-20000x20000.heic"],
            ["convert", "bomb-h264-16000.mp4", "--to", "mp4", "--max-height", "720", "--max-pixels", "1000000"],
            ["gif", "bomb-h264-16000.mp4", "--max-pixels", "1000000"],
        ])
    func bombs(arguments: [String]) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "offconvert-maxpixels-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        var command = arguments
        command[1] = CLIRunner.media.appendingPathComponent("generated/bombs").appendingPathComponent(arguments[1]).path
        let outcome = try await CLIRunner.run(command + ["-o", directory.path])
        #expect(outcome.status == 1, "\(outcome.stdout) \(outcome.stderr)")
        #expect(outcome.stderr.contains("pixels"), "\(outcome.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty)
    }

    @Test(
        "compress and email refuse a re-encode over --max-pixels before writing; a copy is not limited",
        arguments: ["compress", "email"])
    func sizeCommands(command: String) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "offconvert-maxpixels-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let target = command == "compress" ? ["--target", "5MB"] : []
        // HEVC (256×144 = 36 864 pixels), so both commands re-encode it.
        let hevc = CLIRunner.media.appendingPathComponent("video/regular.mkv").path
        let refused = try await CLIRunner.run([command, hevc, "--max-pixels", "30000", "-o", directory.path] + target)
        #expect(refused.status == 1, "\(refused.stderr)")
        #expect(refused.stderr.contains("--max-pixels"), "\(refused.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty)
        let planned = try await CLIRunner.run([command, hevc, "--max-pixels", "30000", "--dry-run"] + target)
        #expect(planned.status == 1, "\(planned.stdout) \(planned.stderr)")
        let converted = try await CLIRunner.run(
            [command, hevc, "--max-pixels", "40000", "-o", directory.path] + target)
        #expect(converted.status == 0, "\(converted.stderr)")
        // H.264 and AAC under the target: copied, never decoded, so a low limit does not stop it.
        let h264 = CLIRunner.media.appendingPathComponent("video/sample.mp4").path
        let copied = try await CLIRunner.run([command, h264, "--max-pixels", "30000", "-o", directory.path] + target)
        #expect(copied.status == 0, "\(copied.stderr)")
    }

    @Test(
        "with --max-pixels raised, a bomb larger than the memory the process can get is an error naming its size, never a trap",
        arguments: [
            ["convert", "bomb-65500x65500.jpg", "--to", "png"],
            ["compress-photos", "bomb-65500x65500.jpg", "--target-size", "100KB"],
            ["convert", "gif-screen-65535.gif", "--to", "webp"], ["convert", "bomb-100000x100000.png", "--to", "jpg"],
            ["heic-to-jpg", "bomb-20000x20000.heic"],
        ])
    func bombsOverMemory(arguments: [String]) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "offconvert-memory-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try FileManager.default.copyItem(
            atPath: CLIRunner.media.appendingPathComponent("generated/bombs/" + arguments[1]).path,
            toPath: directory.appendingPathComponent(arguments[1]).path)
        // 3 GB of address space: the ceiling whatever the machine has (a 20000x20000 picture
        // needs 3.2 GB at the least), as a container's or a ulimit's would be.
        let limited = ["-c", "ulimit -v 3000000 && exec \"$0\" \"$@\"", CLIRunner.executable.path]
        let outcome = try await CLIRunner.run(
            limited + arguments + ["--max-pixels", "20000000000", "-o", "out"],
            executable: URL(fileURLWithPath: "/bin/sh"),
            directory: directory)
        #expect(outcome.status == 1, "\(outcome.status): \(outcome.stderr)")
        #expect(outcome.stderr.contains("Not enough memory for a "), "\(outcome.stderr)")
        #expect(!outcome.stderr.contains("Fatal error"), "\(outcome.stderr)")
        let outputs =
            (try? FileManager.default.contentsOfDirectory(atPath: directory.appendingPathComponent("out").path)) ?? []
        #expect(outputs.isEmpty, "left behind: \(outputs)")
    }
}
