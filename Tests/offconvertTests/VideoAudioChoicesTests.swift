import Foundation
import Testing

/// Issue 18, "raw streams and audio": the sound is kept as it is when the output can hold it.
@Suite("Video commands: audio kept as it is")
struct VideoAudioChoicesTests {
    static func codecs(_ path: String) throws -> [String] {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/ffprobe")
        process.arguments = ["-v", "error", "-show_entries", "stream=codec_name", "-of", "csv=p=0", path]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self).split(separator: "\n").map(String.init)
    }

    @Test("extract-audio without --to keeps MP3 sound as .mp3 and AAC as .m4a, both copied")
    func extractKeeps() async throws {
        let directory = try VideoCommandsTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let mp3 = CLIRunner.media.appendingPathComponent("generated/sizing-mp3.mp4").path
        let aac = CLIRunner.media.appendingPathComponent("video/sample.mp4").path
        let outcome = try await CLIRunner.run(["extract-audio", mp3, aac, "-o", directory.path])
        #expect(outcome.status == 0, "\(outcome.stderr)")
        // Printed as each finishes: either order.
        #expect(
            outcome.stdout.split(separator: "\n").map(String.init).sorted()
                == ["sample.m4a", "sizing-mp3.mp3"].map { directory.appendingPathComponent($0).path })
        #expect(!outcome.stderr.contains("re-encoded"))
        #expect(try Self.codecs(directory.appendingPathComponent("sizing-mp3.mp3").path) == ["mp3"])
        #expect(try Self.codecs(directory.appendingPathComponent("sample.m4a").path) == ["aac"])
    }

    @Test("convert --to mov keeps MP3 sound as it is (MOV carries it)")
    func movKeepsMP3() async throws {
        let directory = try VideoCommandsTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let mp3 = CLIRunner.media.appendingPathComponent("generated/sizing-mp3.mp4").path
        let outcome = try await CLIRunner.run(["convert", mp3, "--to", "mov", "-o", directory.path])
        #expect(outcome.status == 0, "\(outcome.stderr)")
        #expect(outcome.stderr.contains("audio copied without re-encoding"))
        #expect(try Self.codecs(directory.appendingPathComponent("sizing-mp3.mov").path) == ["h264", "mp3"])
    }
}
