import Foundation
import Testing

/// Surround, lossless sound and cover art (issue 39): 5.1 stays 5.1 in AAC (as ffmpeg's AAC
/// encoder keeps it), MP3 downmixes to stereo and says so, TrueHD becomes FLAC with every sample
/// kept, and an MP3's or FLAC's cover stays with the sound. Checked by ffprobe and ffmpeg.
@Suite(
    "Surround and lossless sound, cover art",
    .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/ffprobe")))
struct SurroundAudioTests {
    /// Codec, channel count and layout of the first audio stream of `path`.
    static func sound(_ path: String) throws -> String {
        try CLIRunner.toolOutput(
            "/usr/bin/ffprobe",
            [
                "-v", "error", "-select_streams", "a:0", "-show_entries", "stream=codec_name,channels,channel_layout",
                "-of", "csv=p=0", path,
            ]
        ).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// The MD5 of the first audio stream decoded to 32-bit PCM.
    static func samples(_ path: String) throws -> String {
        try CLIRunner.toolOutput(
            "/usr/bin/ffmpeg", ["-v", "error", "-i", path, "-map", "0:a:0", "-c:a", "pcm_s32le", "-f", "md5", "-"])
    }

    @Test("5.1 E-AC-3 keeps its six channels in extract-audio's AAC and in send-to-windows; MP3 downmixes and says so")
    func surround() async throws {
        let folder = try UserFolder()
        defer { folder.remove() }
        try folder.add("generated/surround-eac3.mkv", as: "film.mkv")
        let extracted = try await folder.run(["extract-audio", "film.mkv", "-o", "m4a"])
        #expect(extracted.status == 0, "\(extracted.stderr)")
        #expect(try Self.sound(folder.url.appendingPathComponent("m4a/film.m4a").path) == "aac,6,5.1")
        let windows = try await folder.run(["send-to-windows", "film.mkv", "-o", "win"])
        #expect(windows.status == 0, "\(windows.stderr)")
        #expect(try Self.sound(folder.url.appendingPathComponent("win/film.mp4").path) == "aac,6,5.1")
        let mp3 = try await folder.run(
            ["extract-audio", "film.mkv", "--to", "mp3", "-o", "mp3"],
            environment: ["XDG_STATE_HOME": folder.state + "-2"])
        #expect(mp3.status == 0, "\(mp3.stderr)")
        #expect(mp3.stderr.contains("5.1(side) sound downmixed to stereo: MP3 holds two channels"), "\(mp3.stderr)")
        #expect(try Self.sound(folder.url.appendingPathComponent("mp3/film.mp3").path) == "mp3,2,stereo")
    }

    @Test("TrueHD becomes FLAC by default, 24-bit, with every sample of the source")
    func lossless() async throws {
        let folder = try UserFolder()
        defer { folder.remove() }
        try folder.add("generated/truehd.mkv", as: "disc.mkv")
        let outcome = try await folder.run(["extract-audio", "disc.mkv"])
        #expect(outcome.status == 0, "\(outcome.stderr)")
        #expect(outcome.stderr.contains("TrueHD sound kept lossless as FLAC"), "\(outcome.stderr)")
        let flac = folder.url.appendingPathComponent("disc.flac").path
        #expect(try Self.sound(flac).hasPrefix("flac,6,"))
        #expect(try Self.samples(flac) == (try Self.samples(folder.url.appendingPathComponent("disc.mkv").path)))
    }

    @Test(
        "extract-audio keeps the cover art of an MP3 (APIC JPEG) and a FLAC (PNG), also into M4A, byte for byte",
        arguments: [
            ("song-cover.mp3", "mp3", "mjpeg"), ("song-cover.flac", "flac", "png"), ("song-cover.flac", "m4a", "png"),
        ])
    func cover(_ name: String, _ target: String, _ codec: String) async throws {
        let folder = try UserFolder()
        defer { folder.remove() }
        try folder.add("generated/\(name)", as: name)
        let outcome = try await folder.run(["extract-audio", name, "--to", target, "-o", "out"])
        #expect(outcome.status == 0, "\(outcome.stderr)")
        #expect(outcome.stderr.contains("cover art kept"), "\(outcome.stderr)")
        let output = folder.url.appendingPathComponent("out/song-cover.\(target)").path
        let pictures = try CLIRunner.toolOutput(
            "/usr/bin/ffprobe",
            [
                "-v", "error", "-select_streams", "v", "-show_entries",
                "stream=codec_name,width,height:stream_disposition=attached_pic",
                "-of", "csv=p=0", output,
            ]
        ).trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(pictures == "\(codec),320,320,1", "\(pictures)")
        let picture = { (path: String) throws -> String in
            try CLIRunner.toolOutput(
                "/usr/bin/ffmpeg", ["-v", "error", "-i", path, "-map", "0:v", "-c", "copy", "-f", "md5", "-"])
        }
        #expect(try picture(output) == (try picture(folder.url.appendingPathComponent(name).path)))
    }
}
