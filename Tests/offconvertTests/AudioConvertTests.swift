import Foundation
import Testing

/// Sound files are inputs too (issue 39): `convert song.flac --to mp3` and the other sound
/// formats, with tags and cover art kept, from a song or from a clip, in one batch. Checked by ffprobe.
@Suite("Converting sound", .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/ffprobe")))
struct AudioConvertTests {
    /// The codecs of `path`'s streams, then its title tag (the file's, or in Ogg the stream's).
    static func streams(_ path: String) throws -> String {
        let json = try CLIRunner.toolOutput(
            "/usr/bin/ffprobe",
            [
                "-v", "error", "-show_entries", "stream=codec_name:stream_tags=title:format_tags=title", "-of", "json",
                path,
            ])
        let object = try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any]
        let streams = object?["streams"] as? [[String: Any]] ?? []
        let titles = [(object?["format"] as? [String: Any])?["tags"]] + streams.map { $0["tags"] }
        let title = titles.compactMap { ($0 as? [String: String])?["title"] }.first ?? "untitled"
        return (streams.compactMap { $0["codec_name"] as? String } + [title]).joined(separator: " ")
    }

    @Test(
        "convert --to mp3, flac, m4a and opus from a FLAC or an MP3 keep the title, and the cover where the format holds one",
        arguments: [
            ("song-cover.flac", "mp3", "mp3 png Song"), ("song-cover.mp3", "flac", "flac mjpeg Song"),
            ("song-cover.flac", "m4a", "aac png Song"), ("song-cover.mp3", "opus", "opus Song"),
        ])
    func song(_ name: String, _ target: String, _ expected: String) async throws {
        let folder = try UserFolder()
        defer { folder.remove() }
        try folder.add("generated/\(name)", as: name)
        let outcome = try await folder.run(["convert", name, "--to", target])
        #expect(outcome.status == 0, "\(outcome.stderr)")
        let output = folder.url.appendingPathComponent("song-cover.\(target)").path
        #expect(try Self.streams(output) == expected)
    }

    @Test("convert * --to mp3 over a folder with a song and a clip converts both; a photo is set aside with a line")
    func batch() async throws {
        let folder = try UserFolder()
        defer { folder.remove() }
        try folder.add("generated/song-cover.flac", as: "a song.flac")
        try folder.add("video/sample.mp4", as: "clip.mp4")
        try folder.add("photos/DSCN0010.jpg", as: "photo.jpg")
        let outcome = try await folder.run(["convert"] + (try folder.star()) + ["--to", "mp3"])
        #expect(outcome.status == 0, "\(outcome.stderr)")
        #expect(outcome.stderr.contains("2 done"), "\(outcome.stderr)")
        #expect(outcome.stderr.contains("photo.jpg"), "\(outcome.stderr)")
        #expect(folder.files().filter { $0.hasSuffix(".mp3") } == ["a song.mp3", "clip.mp3"])
    }

    @Test("info shows a song's cover as a cover, not as a 90000 fps video; --json marks it")
    func coverInInfo() async throws {
        let folder = try UserFolder()
        defer { folder.remove() }
        try folder.add("generated/song-cover.flac", as: "song.flac")
        let info = try await folder.run(["info", "song.flac"])
        #expect(
            info.stdout.contains("  #1 cover   png, 320x320\n") || info.stdout.hasSuffix("  #1 cover   png, 320x320"),
            "\(info.stdout)")
        #expect(!info.stdout.contains("fps"), "\(info.stdout)")
        let json = try await folder.run(["info", "song.flac", "--json"])
        let object = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any]
        let tracks = (object?["container"] as? [String: Any])?["tracks"] as? [[String: Any]] ?? []
        #expect(
            tracks.count == 2 && tracks[1]["coverArt"] as? Bool == true && tracks[0]["coverArt"] == nil,
            "\(json.stdout)")
    }

    @Test("video commands set sound files aside with one line each (MP3, FLAC, Opus, M4A) and convert the clip; exit 0")
    func setAside() async throws {
        let folder = try UserFolder()
        defer { folder.remove() }
        try folder.add("generated/song-cover.flac", as: "a.flac")
        try folder.add("generated/song-cover.mp3", as: "b.mp3")
        try folder.add("video/sample.mp4", as: "clip.mp4")
        #expect(try await folder.run(["convert", "a.flac", "--to", "opus"]).status == 0)
        #expect(try await folder.run(["convert", "b.mp3", "--to", "m4a"]).status == 0)
        let outcome = try await folder.run(
            ["send-to-windows"] + (try folder.star()) + ["-o", "win"],
            environment: ["XDG_STATE_HOME": folder.state + "-2"])
        #expect(outcome.status == 0, "\(outcome.stderr)")
        for name in ["a.flac", "a.opus", "b.mp3", "b.m4a"] {
            #expect(
                outcome.stderr.contains("\(name): skipped, a sound file, not a video ('convert --to mp3' converts it)"),
                "\(outcome.stderr)")
        }
        #expect(outcome.stderr.contains("1 done"), "\(outcome.stderr)")
    }

    /// One ffprobe entry of `path` (`stream=bit_rate`, `format_tags`), as `key=value` lines.
    static func probe(_ path: String, _ entries: String) throws -> String {
        try CLIRunner.toolOutput(
            "/usr/bin/ffprobe", ["-v", "error", "-show_entries", entries, "-of", "default=nw=1", path])
    }

    @Test("a 24 kb/s voice memo to MP3 stays at most 24 kb/s (not 64), with its title and without the M4A's brand tags")
    func voiceMemo() async throws {
        let folder = try UserFolder()
        defer { folder.remove() }
        try folder.add("generated/voice-8k.m4a", as: "memo.m4a")
        let outcome = try await folder.run(["convert", "memo.m4a", "--to", "mp3"])
        #expect(outcome.status == 0, "\(outcome.stderr)")
        let mp3 = folder.url.appendingPathComponent("memo.mp3").path
        let rate = try Self.probe(mp3, "stream=bit_rate").split(separator: "=").last.flatMap {
            Int($0.trimmingCharacters(in: .whitespacesAndNewlines))
        }
        #expect(rate.map { $0 <= 24_000 } == true, "\(String(describing: rate))")
        let tags = try Self.probe(mp3, "format_tags")
        #expect(tags.contains("TAG:title=Memo"), "\(tags)")
        for junk in ["major_brand", "minor_version", "compatible_brands", "iTunSMPB"] {
            #expect(!tags.lowercased().contains(junk.lowercased()), "\(junk) in \(tags)")
        }
    }

    @Test(
        "Apple Lossless stays lossless: convert --to m4a and extract-audio copy the ALAC, decoding to the same samples")
    func appleLossless() async throws {
        let folder = try UserFolder()
        defer { folder.remove() }
        // A 24-bit ALAC song in an .m4a, and a clip with ALAC sound in a .mov, as iPhones and Macs write them.
        let made = await folder.shell(
            "ffmpeg -v error -f lavfi -i sine=frequency=440:duration=1 -c:a alac -sample_fmt s32p song.m4a && "
                + "ffmpeg -v error -f lavfi -i testsrc=size=64x48:rate=10:duration=1 -f lavfi -i sine=duration=1 "
                + "-c:v libx264 -c:a alac clip.mov")
        #expect(made.status == 0, "\(made.stderr)")
        let converted = try await folder.run(["convert", "song.m4a", "--to", "m4a", "-o", "out"])
        #expect(converted.status == 0, "\(converted.stderr)")
        #expect(converted.stderr.contains("audio copied without re-encoding"), "\(converted.stderr)")
        let extracted = try await folder.run(
            ["extract-audio", "clip.mov"], environment: ["XDG_STATE_HOME": folder.state + "-2"])
        #expect(extracted.status == 0, "\(extracted.stderr)")
        for (output, source) in [("out/song.m4a", "song.m4a"), ("clip.m4a", "clip.mov")] {
            #expect(try Self.streams(folder.url.appendingPathComponent(output).path).hasPrefix("alac "), "\(output)")
            let digests = await folder.shell(
                "ffmpeg -v error -i '\(output)' -map 0:a -f md5 - && ffmpeg -v error -i '\(source)' -map 0:a -f md5 -")
            let lines = digests.stdout.split(separator: "\n")
            #expect(lines.count == 2 && lines[0] == lines[1], "\(output): \(digests.stdout) \(digests.stderr)")
        }
    }

    @Test("a 1 s WAV to MP3 decodes (by ffmpeg, through the LAME header) to its 44100 samples, no encoder delay added")
    func gapless() async throws {
        let folder = try UserFolder()
        defer { folder.remove() }
        try folder.add("generated/tone-1s.wav", as: "tone.wav")
        let outcome = try await folder.run(["convert", "tone.wav", "--to", "mp3"])
        #expect(outcome.status == 0, "\(outcome.stderr)")
        let decoded = await folder.shell("ffmpeg -v error -i tone.mp3 -f s16le -ac 1 - | wc -c")
        #expect(
            Int(decoded.stdout.trimmingCharacters(in: .whitespacesAndNewlines)) == 44_100 * 2,
            "\(decoded.stdout) \(decoded.stderr)")
    }

    @Test("extract-audio of an MKV's Opus copies it to .opus with its end trim: 48000 samples decoded, as in the MKV")
    func opusEndTrim() async throws {
        let folder = try UserFolder()
        defer { folder.remove() }
        try folder.add("generated/opus-clip.mkv", as: "clip.mkv")
        let outcome = try await folder.run(["extract-audio", "clip.mkv"])
        #expect(outcome.status == 0, "\(outcome.stderr)")
        #expect(outcome.stderr.contains("audio copied without re-encoding"), "\(outcome.stderr)")
        for name in ["clip.mkv", "clip.opus"] {
            let decoded = await folder.shell("ffmpeg -v error -i \(name) -map 0:a -f s16le -ac 1 -ar 48000 - | wc -c")
            #expect(
                Int(decoded.stdout.trimmingCharacters(in: .whitespacesAndNewlines)) == 48_000 * 2,
                "\(name): \(decoded.stdout)")
        }
    }

    @Test("--bitrate encodes at that rate even a sound already in the format; a lossless target refuses it (exit 64)")
    func bitrate() async throws {
        let folder = try UserFolder()
        defer { folder.remove() }
        try folder.add("generated/song-cover.mp3", as: "song.mp3")
        try folder.add("generated/song-cover.flac", as: "song.flac")
        let outcome = try await folder.run(["convert", "song.mp3", "--to", "mp3", "--bitrate", "64k", "-o", "small"])
        #expect(outcome.status == 0, "\(outcome.stderr)")
        #expect(outcome.stderr.contains("audio re-encoded at 64 kb/s"), "\(outcome.stderr)")
        let rate = try Self.probe(folder.url.appendingPathComponent("small/song.mp3").path, "stream=bit_rate")
        #expect(rate.contains("bit_rate=64000"), "\(rate)")
        // Without --to, a lossless sound asked a bitrate becomes AAC in .m4a.
        let auto = try await folder.run(["extract-audio", "song.flac", "--bitrate", "96", "-o", "auto"])
        #expect(auto.status == 0, "\(auto.stderr)")
        #expect(folder.files().contains("auto/song.m4a"), "\(folder.files())")
        for (arguments, status) in [
            (["convert", "song.mp3", "--to", "flac", "--bitrate", "128k"], Int32(64)),
            (["convert", "song.mp3", "--to", "mp3", "--bitrate", "5k"], 64),
            (["convert", "song.mp3", "--to", "webm", "--bitrate", "128k"], 64),
        ] {
            let refused = try await folder.run(arguments)
            #expect(refused.status == status, "\(arguments): \(refused.stderr)")
        }
    }
}
