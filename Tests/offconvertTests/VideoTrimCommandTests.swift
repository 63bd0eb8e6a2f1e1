import Foundation
import Testing

/// Issue 18, trimming: `--start`/`--duration` on the video commands, in seconds, mm:ss or hh:mm:ss;
/// and `--fps` for raw streams.
@Suite("Video commands: --start and --duration")
struct VideoTrimCommandTests {
    static func frames(_ path: String) throws -> (count: Int, duration: Double) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/ffprobe")
        process.arguments = [
            "-v", "error", "-count_frames", "-select_streams", "v:0", "-show_entries",
            "stream=nb_read_frames:format=duration", "-of", "default=nw=1:nk=1", path,
        ]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let lines = String(decoding: data, as: UTF8.self).split(separator: "\n")
        return (Int(lines.first ?? "") ?? -1, Double(lines.last ?? "") ?? -1)
    }

    @Test(
        "convert --start 0:01 --duration 1 and send-to-windows --start 00:00:00.4 --duration 0:01.2 cut exactly",
        arguments: [
            (["convert", "--to", "mp4", "--start", "0:01", "--duration", "1"], 25, 1.0),
            (["send-to-windows", "--start", "00:00:00.4", "--duration", "0:01.2"], 30, 1.2),
        ])
    func cut(_ arguments: [String], _ frames: Int, _ seconds: Double) async throws {
        let directory = try VideoCommandsTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let input = CLIRunner.media.appendingPathComponent("generated/fidelity-editlist.mp4").path
        let outcome = try await CLIRunner.run([arguments[0], input] + arguments.dropFirst() + ["-o", directory.path])
        #expect(outcome.status == 0, "\(outcome.stderr)")
        #expect(outcome.stderr.contains("cut from"))
        let made = try Self.frames(directory.appendingPathComponent("fidelity-editlist.mp4").path)
        #expect(made.count == frames)
        #expect(abs(made.duration - seconds) < 0.05)
    }

    @Test(
        "a start after the last frame begins (0.99 s of a 1.02 s clip whose last frame starts at 0.968 s) says so",
        arguments: [["gif"], ["convert", "--to", "mp4"], ["send-to-windows"]])
    func startAfterLastFrame(_ command: [String]) async throws {
        let folder = try UserFolder()
        defer { folder.remove() }
        try folder.add("video/sample.mp4", as: "s.mp4")
        let outcome = try await folder.run(
            [command[0], "s.mp4"] + command.dropFirst() + ["--start", "0.99", "-o", "out"])
        #expect(outcome.status != 0)
        #expect(
            outcome.stderr.contains("The start time is after the last frame of s.mp4, which begins at 0.968 s"),
            "\(outcome.stderr)")
        #expect(!outcome.stderr.contains("damaged"), "\(outcome.stderr)")
        #expect(folder.files() == ["s.mp4"])
        #expect(try folder.used() == 0)
        let last = try await folder.run([command[0], "s.mp4"] + command.dropFirst() + ["--start", "0.9", "-o", "out"])
        #expect(last.status == 0, "\(last.stderr)")
    }

    @Test(
        "A time that is not seconds, mm:ss or hh:mm:ss is a usage error",
        arguments: ["1:70", "-5", "1:2:3:4", "abc", "0"])
    func badTime(_ value: String) async throws {
        let option = value == "0" ? "--duration" : "--start"
        let outcome = try await CLIRunner.run(["convert", "x.mp4", "--to", "mkv", option, value])
        #expect(outcome.status == 64)
        #expect(outcome.stderr.hasPrefix("Error: "))
    }

    @Test(
        "convert and send-to-windows --fps 50 time a raw stream that says no rate: 20 frames over 0.4 s, not 0.667 s",
        arguments: [["convert", "--to", "mkv"], ["send-to-windows"]])
    func rawFrameRate(_ arguments: [String]) async throws {
        let directory = try VideoCommandsTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let input = CLIRunner.media.appendingPathComponent("generated/fidelity-raw-untimed.hevc").path
        let outcome = try await CLIRunner.run(
            [arguments[0], input] + arguments.dropFirst() + ["--fps", "50", "-o", directory.path])
        #expect(outcome.status == 0, "\(outcome.stderr)")
        #expect(outcome.stderr.contains("timed at 50 fps, as --fps says"))
        let name = "fidelity-raw-untimed." + (arguments[0] == "convert" ? "mkv" : "mp4")
        let made = try Self.frames(directory.appendingPathComponent(name).path)
        #expect(made.count == 20)
        #expect(abs(made.duration - 0.4) < 0.03)
    }

    @Test("--fps must be a rate above 0 and at most 1000", arguments: ["0", "-25", "abc", "1001"])
    func badFrameRate(_ value: String) async throws {
        let outcome = try await CLIRunner.run(["convert", "x.hevc", "--to", "mp4", "--fps", value])
        #expect(outcome.status == 64)
        #expect(outcome.stderr.hasPrefix("Error: The value"))
    }

    /// The duration of the first audio stream, by ffprobe.
    static func audioDuration(_ path: String) throws -> Double {
        let text = try CLIRunner.toolOutput(
            "/usr/bin/ffprobe",
            [
                "-v", "error", "-select_streams", "a:0", "-show_entries",
                "stream=duration", "-of", "csv=p=0", path,
            ])
        return Double(text.trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1
    }

    @Test(
        "extract-audio --start 0:01 --duration 1 (and 00:00:01.5 / 0:00.5) saves exactly that much sound, decoding cleanly",
        arguments: [
            (["--start", "0:01", "--duration", "1"], 1.0), (["--start", "00:00:01.5", "--duration", "0:00.5"], 0.5),
            (["--start", "2"], 0.566),
        ])
    func extractAudioCut(_ arguments: [String], _ seconds: Double) async throws {
        let directory = try VideoCommandsTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let input = CLIRunner.media.appendingPathComponent("generated/fidelity-editlist.mp4").path
        let output = directory.appendingPathComponent("cut.m4a").path
        let outcome = try await CLIRunner.run(["extract-audio", input] + arguments + ["-o", output])
        #expect(outcome.status == 0, "\(outcome.stderr)")
        #expect(outcome.stderr.contains("cut from"))
        #expect(try abs(Self.audioDuration(output) - seconds) < 0.03)
        // ffmpeg reports decoding errors on stderr, which the shell folds into what is read.
        let errors = try CLIRunner.toolOutput(
            "/bin/sh", ["-c", "/usr/bin/ffmpeg -nostdin -v error -i \"$0\" -f null - 2>&1", output])
        #expect(errors.isEmpty)
    }

    @Test(
        "email --start 0:02 --duration 0:03 and compress --target 150kB --start 2 --duration 4 keep exactly that part",
        arguments: [
            (["email", "--start", "0:02", "--duration", "0:03"], 3.0),
            (["compress", "--target", "150kB", "--start", "2", "--duration", "4"], 4.0),
        ])
    func compressCut(_ arguments: [String], _ seconds: Double) async throws {
        let directory = try VideoCommandsTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let input = CLIRunner.media.appendingPathComponent("video/motion.mov").path
        let outcome = try await CLIRunner.run(
            [arguments[0], input] + arguments.dropFirst() + ["--output-dir", directory.path])
        #expect(outcome.status == 0, "\(outcome.stderr)")
        #expect(outcome.stderr.contains("cut from 2 s, \(Int(seconds)) s long"))
        let made = try Self.frames(directory.appendingPathComponent("motion.mp4").path)
        #expect(made.count == Int(seconds) * 30)
        #expect(abs(made.duration - seconds) < 0.05)
        let plan = try await CLIRunner.run([arguments[0], input] + arguments.dropFirst() + ["--dry-run"])
        #expect(plan.status == 0, "\(plan.stderr)")
        #expect(plan.stdout.contains("plan: cut from 2 s, \(Int(seconds)) s long: "), "\(plan.stdout)")
    }

    @Test("email of a raw stream that says no rate, with --fps 50: 20 frames over 0.4 s; without it 30 fps and a note")
    func emailRawStream() async throws {
        let directory = try VideoCommandsTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let input = CLIRunner.media.appendingPathComponent("generated/fidelity-raw-untimed.hevc").path
        let given = try await CLIRunner.run([
            "email", input, "--fps", "50", "-o", directory.appendingPathComponent("a.mp4").path,
        ])
        #expect(given.status == 0, "\(given.stderr)")
        #expect(!given.stderr.contains("damaged"))
        let made = try Self.frames(directory.appendingPathComponent("a.mp4").path)
        #expect(made.count == 20 && abs(made.duration - 0.4) < 0.03)
        let assumed = try await CLIRunner.run(["email", input, "-o", directory.appendingPathComponent("b.mp4").path])
        #expect(assumed.status == 0, "\(assumed.stderr)")
        #expect(assumed.stderr.contains("does not say its frame rate: timed at 30 fps"))
        #expect(abs(try Self.frames(directory.appendingPathComponent("b.mp4").path).duration - 20.0 / 30) < 0.03)
    }
}
