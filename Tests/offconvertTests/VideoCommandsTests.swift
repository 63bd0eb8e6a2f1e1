import Foundation
import Testing

@Suite("Video commands")
struct VideoCommandsTests {
    static func temporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent(
            "offconvert-cli-video-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    @Test("send-to-windows prints the output path on stdout and no progress when stderr is not a terminal")
    func sendToWindows() async throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let input = CLIRunner.media.appendingPathComponent("video/sample.mp4").path
        let outcome = try await CLIRunner.run(["send-to-windows", input, "--output-dir", directory.path])
        #expect(outcome.status == 0)
        #expect(outcome.stdout == directory.appendingPathComponent("sample.mp4").path + "\n")
        #expect(outcome.stderr.contains("copied without re-encoding"))
        #expect(!outcome.stderr.contains("\r"))
        let again = try await CLIRunner.run(["send-to-windows", input, "-o", directory.path])
        #expect(again.stdout == directory.appendingPathComponent("sample (2).mp4").path + "\n")
    }

    @Test("convert, gif and extract-audio write their outputs")
    func otherCommands() async throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let input = CLIRunner.media.appendingPathComponent("video/sample.mp4").path
        let runs: [([String], String)] = [
            (["convert", input, "--to", "webm", "--max-height", "144"], "sample.webm"),
            (["gif", input, "--duration", "1", "--width", "160"], "sample.gif"),
            (["extract-audio", input, "--to", "flac"], "sample.flac"),
        ]
        for (arguments, name) in runs {
            let outcome = try await CLIRunner.run(arguments + ["--output-dir", directory.path])
            #expect(outcome.status == 0, "\(arguments): \(outcome.stderr)")
            #expect(outcome.stdout == directory.appendingPathComponent(name).path + "\n")
        }
    }

    @Test("A failing file is reported and the others still run; the exit code says one failed")
    func partialFailure() async throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let broken = CLIRunner.media.appendingPathComponent("broken/sample_vvc.mp4").path
        let good = CLIRunner.media.appendingPathComponent("video/sample.mp4").path
        let outcome = try await CLIRunner.run(["send-to-windows", broken, good, "-o", directory.path])
        #expect(outcome.status == 1)
        #expect(outcome.stderr.contains("Error: "))
        #expect(outcome.stderr.contains("cannot decode"))
        #expect(outcome.stdout == directory.appendingPathComponent("sample.mp4").path + "\n")
    }

    @Test("sound without a sample rate: the error names the input as damaged, not the output")
    func damagedSoundNamesTheInput() async throws {
        let folder = try UserFolder()
        defer { folder.remove() }
        // PCM sound in a MOV with its sample rate (the sample entry's and the track's time scale) zeroed.
        let made = await folder.shell(
            "ffmpeg -v error -f lavfi -i testsrc=size=64x48:rate=10:duration=1 -f lavfi -i sine=duration=1 "
                + "-c:v libx264 -c:a pcm_s16le made.mov && python3 -c \"\n"
                + "d = bytearray(open('made.mov', 'rb').read())\n"
                + "entry = d.find(b'sowt'); d[entry + 28:entry + 32] = bytes(4)\n"
                + "mdhd = [i for i in range(len(d) - 4) if d[i:i + 4] == b'mdhd'][1]; d[mdhd + 16:mdhd + 20] = bytes(4)\n"
                + "open('my clip.mov', 'wb').write(d)\"")
        #expect(made.status == 0, "\(made.stderr)")
        let outcome = try await folder.run(["convert", "my clip.mov", "--to", "mkv", "-o", "out"])
        #expect(outcome.status == 1)
        #expect(
            outcome.stderr.contains("my clip.mov is damaged: its sound has no readable sample rate or format"),
            "\(outcome.stderr)")
        #expect(!outcome.stderr.contains("my clip.mkv"), "\(outcome.stderr)")
        #expect(!FileManager.default.fileExists(atPath: folder.url.appendingPathComponent("out/my clip.mkv").path))
    }

    @Test(
        "Command-line mistakes exit 64 with a hint",
        arguments: [
            ["convert", "x.mp4", "--to", "avi"], ["convert", "x.mp4", "--to", "webm", "--codec", "h264"],
            ["gif", "x.mp4", "--fps", "100"], ["gif", "x.mp4", "--duration", "45"],
            ["extract-audio", "x.mp4", "--to", "ogg"],
            ["send-to-windows"],
        ])
    func usageErrors(_ arguments: [String]) async throws {
        let outcome = try await CLIRunner.run(arguments)
        #expect(outcome.status == 64)
        #expect(outcome.stderr.hasPrefix("Error: "))
        #expect(outcome.stdout.isEmpty)
    }

    @Test("Ctrl-C cancels the running conversion: exit 130 and no partial file")
    func interrupt() async throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let input = CLIRunner.media.appendingPathComponent("generated/video-long.mp4").path
        let process = Process()
        process.executableURL = CLIRunner.executable
        process.arguments = ["convert", input, "--to", "mkv", "--codec", "hevc", "-o", directory.path]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        // Its own allowance, so the run neither uses nor depends on the tester's.
        var environment = CLIRunner.childEnvironment
        environment["XDG_STATE_HOME"] = directory.path + "-state"
        process.environment = environment
        defer { try? FileManager.default.removeItem(atPath: directory.path + "-state") }
        try process.run()
        // Interrupt once the temporary output exists, so the signal lands mid-encode.
        let folder = directory.path
        let wasRunning = await CLIRunner.signal(
            process, SIGINT,
            when: {
                !((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).isEmpty
            }, delay: 300_000)
        process.waitUntilExit()
        #expect(wasRunning)
        #expect(process.terminationStatus == 130)
        #expect(((try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []).isEmpty)
    }

    @Test("--json prints one object per file with a privacy line")
    func json() async throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let good = CLIRunner.media.appendingPathComponent("video/sample.mp4").path
        let broken = CLIRunner.media.appendingPathComponent("broken/sample_vvc.mp4").path
        let outcome = try await CLIRunner.run(["send-to-windows", good, broken, "--json", "-o", directory.path])
        #expect(outcome.status == 1)
        let lines = try PhotoCommandsTests.outcomes(outcome.stdout)
        #expect(lines.count == 2)
        // Each file is reported when it finishes, in either order; "index" says which it was.
        let first = try #require(lines.first { $0["index"] as? Int == 0 })
        #expect(first["event"] as? String == "finished")
        #expect((first["privacy"] as? [String: String])?["location"] == "removed")
        let second = try #require(lines.first { $0["index"] as? Int == 1 })
        #expect(second["event"] as? String == "failed")
        #expect((second["error"] as? [String: String])?["category"] == "unsupported")
    }

    @Test("Help lists the video commands")
    func help() async throws {
        let outcome = try await CLIRunner.run(["--help"])
        for name in ["send-to-windows", "convert", "gif", "extract-audio"] {
            #expect(outcome.stdout.contains(name))
        }
        let convert = try await CLIRunner.run(["convert", "--help"])
        #expect(convert.stdout.contains("--max-height"))
    }
}
