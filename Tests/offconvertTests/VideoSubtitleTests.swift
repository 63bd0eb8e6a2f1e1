import Foundation
import Testing

/// Subtitle tracks are kept where the output can carry them (issue 39): Matroska takes every
/// kind, MP4 and MOV mov_text, WebM WebVTT; a track left out is named with the reason. Checked
/// with ffprobe (codecs, languages, default flag) and ffmpeg (the cues' text and times).
@Suite("Video subtitles", .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/ffprobe")))
struct VideoSubtitleTests {
    /// Codec, language and default flag of each subtitle stream of `path`.
    static func subtitles(_ path: String) throws -> [String] {
        let text = try CLIRunner.toolOutput(
            "/usr/bin/ffprobe",
            [
                "-v", "error", "-select_streams", "s", "-show_entries",
                "stream=codec_name:stream_tags=language:stream_disposition=default",
                "-of", "csv=p=0", path,
            ])
        return text.split(separator: "\n").map(String.init)
    }

    /// The cues of subtitle stream `index` of `path`, as SRT.
    static func cues(_ path: String, _ index: Int) throws -> String {
        try CLIRunner.toolOutput(
            "/usr/bin/ffmpeg", ["-v", "error", "-i", path, "-map", "0:s:\(index)", "-f", "srt", "-"])
    }

    /// The text lines of an SRT text: no numbers, no times.
    static func words(_ srt: String) -> [String] {
        srt.split(separator: "\n").map(String.init).filter { line in
            !line.contains(" --> ") && Int(line) == nil && !line.trimmingCharacters(in: .whitespaces).isEmpty
        }
    }

    /// The time of each packet of subtitle stream `index` of `path`, from the video's start.
    static func packetTimes(_ path: String, _ index: Int) throws -> [Double] {
        let video = try CLIRunner.toolOutput(
            "/usr/bin/ffprobe",
            ["-v", "error", "-select_streams", "v:0", "-show_entries", "stream=start_time", "-of", "csv=p=0", path])
        let packets = try CLIRunner.toolOutput(
            "/usr/bin/ffprobe",
            [
                "-v", "error", "-select_streams", "s:\(index)", "-show_entries", "packet=pts_time", "-of", "csv=p=0",
                path,
            ])
        let start = Double(video.trimmingCharacters(in: .whitespacesAndNewlines)) ?? .nan
        return packets.split(separator: "\n").compactMap { Double($0) }.map { $0 - start }
    }

    /// The start and end (seconds) of each cue of an SRT text.
    static func times(_ srt: String) -> [(start: Double, end: Double)] {
        let seconds = { (text: Substring) -> Double in
            let parts = text.replacingOccurrences(of: ",", with: ".").split(separator: ":").compactMap { Double($0) }
            return parts.count == 3 ? parts[0] * 3600 + parts[1] * 60 + parts[2] : -1
        }
        return srt.split(separator: "\n").filter { $0.contains(" --> ") }.map { line in
            let ends = line.components(separatedBy: " --> ")
            return (seconds(Substring(ends[0])), seconds(Substring(ends[1])))
        }
    }

    @Test("MKV to MKV keeps the SRT, ASS and WebVTT tracks with their languages, default flag and cues")
    func matroska() async throws {
        let folder = try UserFolder()
        defer { folder.remove() }
        try folder.add("generated/subtitles.mkv", as: "film.mkv")
        let outcome = try await folder.run(["convert", "film.mkv", "--to", "mkv", "-o", "out"])
        #expect(outcome.status == 0, "\(outcome.stderr)")
        #expect(outcome.stderr.contains("3 subtitle tracks kept"), "\(outcome.stderr)")
        let source = folder.url.appendingPathComponent("film.mkv").path
        let output = folder.url.appendingPathComponent("out/film.mkv").path
        #expect(try Self.subtitles(output) == ["subrip,1,eng", "ass,0,fra", "webvtt,0,ger"])
        for index in 0..<3 {
            let cues = try Self.cues(output, index)
            #expect(cues == (try Self.cues(source, index)) && !cues.isEmpty, "track \(index): \(cues)")
        }
        #expect(try Self.cues(output, 0).contains("00:00:01,221 --> 00:00:01,921\nGoodbye"))
        let info = try await folder.run(["info", "out/film.mkv"])
        #expect(info.stdout.contains("  #2 subtitle subrip, eng"), "\(info.stdout)")
    }

    @Test(
        "send-to-windows keeps mov_text tracks with their languages; MKV to MP4 writes SRT, ASS and WebVTT again as mov_text, cue for cue"
    )
    func mp4() async throws {
        let folder = try UserFolder()
        defer { folder.remove() }
        try folder.add("generated/subtitles.mp4", as: "clip.mp4")
        try folder.add("generated/subtitles.mkv", as: "film.mkv")
        let windows = try await folder.run(["send-to-windows", "clip.mp4", "-o", "win"])
        #expect(windows.status == 0, "\(windows.stderr)")
        #expect(
            try Self.subtitles(folder.url.appendingPathComponent("win/clip.mp4").path) == [
                "mov_text,1,eng", "mov_text,0,spa",
            ], "as in the source")
        let converted = try await folder.run(
            ["send-to-windows", "film.mkv"], environment: ["XDG_STATE_HOME": folder.state + "-2"])
        #expect(converted.status == 0, "\(converted.stderr)")
        #expect(converted.stderr.contains("3 subtitle tracks kept (as mov_text)"), "\(converted.stderr)")
        let output = folder.url.appendingPathComponent("film.mp4").path
        #expect(try Self.subtitles(output) == ["mov_text,1,eng", "mov_text,0,fra", "mov_text,0,ger"])
        let source = folder.url.appendingPathComponent("film.mkv").path
        for index in 0..<3 { #expect(try Self.cues(output, index) == (try Self.cues(source, index)), "track \(index)") }
    }

    @Test("MKV to WebM writes SRT, ASS and WebVTT again as WebVTT, cue for cue, with their languages")
    func webm() async throws {
        let folder = try UserFolder()
        defer { folder.remove() }
        try folder.add("generated/subtitles.mkv", as: "film.mkv")
        let converted = try await folder.run(["convert", "film.mkv", "--to", "webm"])
        #expect(converted.status == 0, "\(converted.stderr)")
        #expect(converted.stderr.contains("3 subtitle tracks kept (2 made WebVTT)"), "\(converted.stderr)")
        let output = folder.url.appendingPathComponent("film.webm").path
        #expect(try Self.subtitles(output) == ["webvtt,1,eng", "webvtt,0,fra", "webvtt,0,ger"])
        let source = folder.url.appendingPathComponent("film.mkv").path
        for index in 0..<3 {
            // The same words; times from the picture's start (the SRT that ffmpeg writes counts
            // from the first packet, which Opus's pre-skip moves 7 ms earlier than AAC's).
            let (words, sourceWords) = (
                Self.words(try Self.cues(output, index)), Self.words(try Self.cues(source, index))
            )
            #expect(words == sourceWords, "track \(index)")
            let (times, sourceTimes) = (try Self.packetTimes(output, index), try Self.packetTimes(source, index))
            #expect(
                times.count == 2 && zip(times, sourceTimes).allSatisfy { abs($0 - $1) < 0.002 },
                "track \(index): \(times) against \(sourceTimes)")
        }
        #expect(Self.words(try Self.cues(output, 0)) == ["Hello", "Goodbye"])
    }

    @Test("--subtitles drop leaves the tracks out and says so; a cut keeps them, each cue timed from the start")
    func dropAndCut() async throws {
        let folder = try UserFolder()
        defer { folder.remove() }
        try folder.add("generated/subtitles.mkv", as: "film.mkv")
        let dropped = try await folder.run([
            "convert", "film.mkv", "--to", "mkv", "--subtitles", "drop", "-o", "dropped",
        ])
        #expect(dropped.status == 0, "\(dropped.stderr)")
        #expect(dropped.stderr.contains("3 subtitle tracks left out (--subtitles drop)"), "\(dropped.stderr)")
        #expect(try Self.subtitles(folder.url.appendingPathComponent("dropped/film.mkv").path) == [])
        let cut = try await folder.run(["convert", "film.mkv", "--to", "mkv", "--start", "1", "-o", "cut"])
        #expect(cut.status == 0, "\(cut.stderr)")
        #expect(cut.stderr.contains("3 subtitle tracks kept, cut with the picture"), "\(cut.stderr)")
        // The source shows "Hello" until 1.02 s and "Goodbye" from 1.22 s to 1.92 s: from 1 s,
        // Hello's last 21 ms are too short to show, and Goodbye starts 0.22 s in (ffmpeg's SRT
        // times count from the file's first packet, the AAC priming's 14 ms before the picture).
        let cutFilm = folder.url.appendingPathComponent("cut/film.mkv").path
        for index in 0..<3 {
            let cues = Self.times(try Self.cues(cutFilm, index))
            #expect(
                cues.count == 1 && abs(cues[0].start - 0.22) < 0.03 && abs(cues[0].end - 0.92) < 0.03,
                "track \(index): \(cues)")
        }
        let mp4 = try await folder.run([
            "convert", "film.mkv", "--to", "mp4", "--start", "0.5", "--duration", "1", "-o", "mp4",
        ])
        #expect(mp4.status == 0, "\(mp4.stderr)")
        let english = try Self.cues(folder.url.appendingPathComponent("mp4/film.mp4").path, 0)
        let times = Self.times(english)
        // Hello runs into the start (0 to 0.52 s), Goodbye is cut at the end (0.72 to 1 s).
        #expect(
            times.count == 2 && abs(times[0].start) < 0.03 && abs(times[0].end - 0.52) < 0.03
                && abs(times[1].start - 0.72) < 0.03 && abs(times[1].end - 1.0) < 0.03, "\(english)")
        #expect(english.contains("Hello") && english.contains("Goodbye"))
        let bad = try await folder.run(["convert", "film.mkv", "--to", "mkv", "--subtitles", "some"])
        #expect(bad.status == 64, "\(bad.stderr)")
    }
}
