import Foundation
import Testing

/// Issue 18: `--audio-track N` / `--all-audio` for `convert` and `extract-audio`, and a note
/// naming the sound left out.
@Suite("Video commands: choosing audio tracks")
struct VideoAudioTrackTests {
    /// (codec, channels, language) of each audio stream, by ffprobe.
    static func audio(_ path: String) throws -> [String] {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/ffprobe")
        process.arguments = [
            "-v", "error", "-select_streams", "a", "-show_entries", "stream=codec_name,channels:stream_tags=language",
            "-of", "csv=p=0", path,
        ]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self).split(separator: "\n").map(String.init)
    }

    static let input = CLIRunner.media.appendingPathComponent("generated/iphone-like.mov").path

    @Test(
        "convert keeps the first AAC track and names the one left out; --all-audio keeps both; --audio-track 2 the French one"
    )
    func convert() async throws {
        let directory = try VideoCommandsTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let plain = try await CLIRunner.run([
            "convert", Self.input, "--to", "mov", "-o", directory.appendingPathComponent("a.mov").path,
        ])
        #expect(plain.status == 0, "\(plain.stderr)")
        #expect(plain.stderr.contains("audio track 2 (fra AAC mono) left out; --audio-track 2 or --all-audio keeps it"))
        #expect(try Self.audio(directory.appendingPathComponent("a.mov").path) == ["aac,2"])
        let all = try await CLIRunner.run([
            "convert", Self.input, "--to", "mov", "--all-audio", "-o", directory.appendingPathComponent("b.mov").path,
        ])
        #expect(all.status == 0, "\(all.stderr)")
        #expect(!all.stderr.contains("left out;"))
        #expect(try Self.audio(directory.appendingPathComponent("b.mov").path) == ["aac,2", "aac,1,fra"])
        let second = try await CLIRunner.run([
            "convert", Self.input, "--to", "mov", "--audio-track", "2",
            "-o", directory.appendingPathComponent("c.mov").path,
        ])
        #expect(second.status == 0, "\(second.stderr)")
        #expect(second.stderr.contains("audio track 1 (AAC stereo) left out"))
        #expect(try Self.audio(directory.appendingPathComponent("c.mov").path) == ["aac,1,fra"])
    }

    @Test(
        "extract-audio --audio-track 2 saves the second track as it is; a track that does not exist fails with the count"
    )
    func extract() async throws {
        let directory = try VideoCommandsTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let outcome = try await CLIRunner.run(["extract-audio", Self.input, "--audio-track", "2", "-o", directory.path])
        #expect(outcome.status == 0, "\(outcome.stderr)")
        #expect(outcome.stderr.contains("audio track 1 (AAC stereo) left out; --audio-track 1 or --all-audio keeps it"))
        #expect(try Self.audio(directory.appendingPathComponent("iphone-like.m4a").path) == ["aac,1,fra"])
        let missing = try await CLIRunner.run(["extract-audio", Self.input, "--audio-track", "3", "-o", directory.path])
        #expect(missing.status == 1)
        #expect(missing.stderr.contains("has 2 audio tracks, so there is no audio track 3"))
        let both = try await CLIRunner.run(["convert", Self.input, "--to", "mkv", "--audio-track", "1", "--all-audio"])
        #expect(both.status == 64)
    }

    @Test(
        "extract-audio --all-audio saves both tracks, copied, in one .m4a; --all-audio with --to mp3 is a usage error")
    func extractAll() async throws {
        let directory = try VideoCommandsTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let plain = try await CLIRunner.run([
            "extract-audio", Self.input, "-o", directory.appendingPathComponent("one.m4a").path,
        ])
        #expect(plain.status == 0, "\(plain.stderr)")
        #expect(plain.stderr.contains("audio track 2 (fra AAC mono) left out; --audio-track 2 or --all-audio keeps it"))
        #expect(try Self.audio(directory.appendingPathComponent("one.m4a").path) == ["aac,2,und"])
        let all = try await CLIRunner.run([
            "extract-audio", Self.input, "--all-audio", "-o", directory.appendingPathComponent("all.m4a").path,
        ])
        #expect(all.status == 0, "\(all.stderr)")
        #expect(all.stderr.contains("2 audio tracks copied without re-encoding"))
        #expect(!all.stderr.contains("left out"))
        let path = directory.appendingPathComponent("all.m4a").path
        #expect(try Self.audio(path) == ["aac,2,und", "aac,1,fra"])
        let video = try CLIRunner.toolOutput(
            "/usr/bin/ffprobe",
            [
                "-v", "error", "-select_streams", "v", "-show_entries", "stream=index",
                "-of", "csv=p=0", path,
            ])
        #expect(video.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty)
        let mp3 = try await CLIRunner.run([
            "extract-audio", Self.input, "--all-audio", "--to", "mp3", "-o", directory.path,
        ])
        #expect(mp3.status == 64)
        #expect(mp3.stderr.contains("holds one sound track"))
    }
}
