import Foundation
import Testing

/// Chapters survive every video command that writes a container carrying them (issue 39): the
/// real androidx clip's three QuickTime chapters, read back by ffprobe, with their titles and
/// times; a cut keeps the chapters of the part kept, timed from its start.
@Suite("Video chapters", .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/ffprobe")))
struct VideoChapterTests {
    struct Chapter: Equatable {
        var start: Double
        var end: Double
        var title: String
    }

    static let source: [Chapter] = [
        Chapter(start: 0, end: 0.201, title: "Chapter 1"), Chapter(start: 0.201, end: 0.8, title: "Chapter 2"),
        Chapter(start: 0.8, end: 0.85, title: "Chapter 3"),
    ]

    /// The chapters of `path` as ffprobe reads them.
    static func chapters(_ path: String) throws -> [Chapter] {
        let json = try CLIRunner.toolOutput("/usr/bin/ffprobe", ["-v", "error", "-show_chapters", "-of", "json", path])
        let object = try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any]
        return (object?["chapters"] as? [[String: Any]] ?? []).map { chapter in
            Chapter(
                start: Double(chapter["start_time"] as? String ?? "") ?? -1,
                end: Double(chapter["end_time"] as? String ?? "") ?? -1,
                title: (chapter["tags"] as? [String: String])?["title"] ?? "")
        }
    }

    static func close(_ found: [Chapter], _ expected: [Chapter]) -> Bool {
        found.count == expected.count
            && zip(found, expected).allSatisfy {
                $0.title == $1.title && abs($0.start - $1.start) < 0.002 && abs($0.end - $1.end) < 0.002
            }
    }

    @Test(
        "convert to MKV, MP4 and MOV and send-to-windows keep all three chapters; no track is said to be left out for them",
        arguments: [
            ["convert", "c.mp4", "--to", "mkv"], ["convert", "c.mp4", "--to", "mov"], ["send-to-windows", "c.mp4"],
            ["convert", "c.mp4", "--to", "mp4", "--codec", "hevc"],
        ])
    func kept(_ arguments: [String]) async throws {
        let folder = try UserFolder()
        defer { folder.remove() }
        try folder.add("video/sample_with_chapters.mp4", as: "c.mp4")
        #expect(try Self.chapters(folder.url.appendingPathComponent("c.mp4").path) == Self.source)
        let outcome = try await folder.run(arguments + ["-o", "out"])
        #expect(outcome.status == 0, "\(outcome.stderr)")
        #expect(!outcome.stderr.contains("other track"), "\(outcome.stderr)")
        let written = try FileManager.default.contentsOfDirectory(atPath: folder.url.appendingPathComponent("out").path)
        let output = try #require(written.first)
        let found = try Self.chapters(folder.url.appendingPathComponent("out/\(output)").path)
        #expect(Self.close(found, Self.source), "\(output): \(found)")
    }

    @Test("a cut keeps the chapters of the part kept, timed from its start; info lists them")
    func cutAndInfo() async throws {
        let folder = try UserFolder()
        defer { folder.remove() }
        try folder.add("video/sample_with_chapters.mp4", as: "c.mp4")
        let outcome = try await folder.run(["convert", "c.mp4", "--to", "mkv", "--start", "0.5"])
        #expect(outcome.status == 0, "\(outcome.stderr)")
        let found = try Self.chapters(folder.url.appendingPathComponent("c.mkv").path)
        #expect(
            Self.close(
                found,
                [Chapter(start: 0, end: 0.3, title: "Chapter 2"), Chapter(start: 0.3, end: 0.35, title: "Chapter 3")]),
            "\(found)")
        let info = try await folder.run(["info", "c.mp4"])
        #expect(
            info.stdout.contains("chapters: 3: Chapter 1 at 0 s, Chapter 2 at 0.2 s, Chapter 3 at 0.8 s"),
            "\(info.stdout)")
        let json = try await folder.run(["info", "c.mp4", "--json"])
        let object = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any]
        let chapters = (object?["container"] as? [String: Any])?["chapters"] as? [[String: Any]]
        #expect(chapters?.count == 3 && chapters?[1]["title"] as? String == "Chapter 2", "\(json.stdout)")
    }

    @Test(
        "sound outputs keep the chapters to the millisecond: FLAC and Opus as CHAPTERxxx comments, MP3 and M4A as chapters",
        arguments: [
            ["extract-audio", "c.mp4", "--to", "flac"], ["extract-audio", "c.mp4", "--to", "opus"],
            ["extract-audio", "c.mp4", "--to", "mp3"], ["extract-audio", "c.mp4", "--to", "m4a"],
            ["convert", "song.m4a", "--to", "opus"], ["convert", "song.m4a", "--to", "flac"],
        ])
    func keptInSound(_ arguments: [String]) async throws {
        let folder = try UserFolder()
        defer { folder.remove() }
        try folder.add("video/sample_with_chapters.mp4", as: "c.mp4")
        // The clip's sound alone, with its chapters (ffmpeg copies them by default).
        _ = try CLIRunner.toolOutput(
            "/usr/bin/ffmpeg",
            [
                "-v", "error", "-i", folder.url.appendingPathComponent("c.mp4").path, "-map", "0:a", "-c", "copy",
                folder.url.appendingPathComponent("song.m4a").path,
            ])
        let outcome = try await folder.run(arguments + ["-o", "out"])
        #expect(outcome.status == 0, "\(outcome.stderr)")
        #expect(!outcome.stderr.contains("chapter"), "\(outcome.stderr)")
        let name = try #require(try FileManager.default.contentsOfDirectory(atPath: folder.url.path + "/out").first)
        let found = try Self.chapters(folder.url.appendingPathComponent("out/\(name)").path)
        // FFmpeg 5.1's Ogg muxer would have written the third at 1.800 (its seconds rounded up).
        #expect(found.map(\.title) == Self.source.map(\.title), "\(name): \(found)")
        #expect(zip(found, Self.source).allSatisfy { abs($0.start - $1.start) < 0.0005 }, "\(name): \(found)")
        // Vorbis comments have no end: a chapter ends where the next starts, the last with the sound.
        #expect(
            zip(found.dropLast(), Self.source.dropLast()).allSatisfy { abs($0.end - $1.end) < 0.0005 },
            "\(name): \(found)")
        if name.hasSuffix(".opus") {
            let tags = try CLIRunner.toolOutput(
                "/usr/bin/ffprobe",
                [
                    "-v", "error", "-show_entries", "format_tags:stream_tags", "-of", "compact",
                    folder.url.appendingPathComponent("out/\(name)").path,
                ])
            #expect(!tags.contains("CHAPTER0"), "the comments are read as chapters, not as tags: \(tags)")
        }
    }

    @Test("a WAV says its chapters are left out, as it has no place for them")
    func leftOutOfWAV() async throws {
        let folder = try UserFolder()
        defer { folder.remove() }
        try folder.add("video/sample_with_chapters.mp4", as: "c.mp4")
        let outcome = try await folder.run(["extract-audio", "c.mp4", "--to", "wav"])
        #expect(outcome.status == 0, "\(outcome.stderr)")
        #expect(outcome.stderr.contains("chapters left out: WAV has no place for them"), "\(outcome.stderr)")
        #expect(try Self.chapters(folder.url.appendingPathComponent("c.wav").path).isEmpty)
        // A cut past every chapter has none to leave out.
        let cut = try await folder.run(["extract-audio", "c.mp4", "--to", "wav", "--start", "0.9", "-o", "cut"])
        #expect(cut.status == 0, "\(cut.stderr)")
        #expect(!cut.stderr.contains("chapters"), "\(cut.stderr)")
    }

    @Test(
        "info lists an MKV's chapters at the times the file states (ffprobe's), though its Opus sound does not start at 0"
    )
    func infoOfMKVWithOpus() async throws {
        let folder = try UserFolder()
        defer { folder.remove() }
        try folder.add("video/sample.mp4", as: "clip.mp4")
        try folder.write(
            ";FFMETADATA1\n[CHAPTER]\nTIMEBASE=1/1000\nSTART=0\nEND=600\ntitle=Intro\n"
                + "[CHAPTER]\nTIMEBASE=1/1000\nSTART=600\nEND=1000\ntitle=End\n", to: "chapters.txt")
        let mkv = folder.url.appendingPathComponent("c.mkv").path
        _ = try CLIRunner.toolOutput(
            "/usr/bin/ffmpeg",
            [
                "-v", "error", "-i", folder.url.appendingPathComponent("clip.mp4").path, "-i",
                folder.url.appendingPathComponent("chapters.txt").path, "-map", "0:a", "-map_chapters", "1",
                "-c:a", "libopus", mkv,
            ])
        let start = try CLIRunner.toolOutput(
            "/usr/bin/ffprobe", ["-v", "error", "-show_entries", "format=start_time", "-of", "csv=p=0", mkv])
        // The clip's sound starts at 0.044 s; Opus's own delay moves the file's start to 0.054 s.
        #expect(abs(Double(start.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0) > 0.01, "\(start)")
        #expect(
            Self.close(
                try Self.chapters(mkv),
                [Chapter(start: 0, end: 0.6, title: "Intro"), Chapter(start: 0.6, end: 1, title: "End")]))
        let info = try await folder.run(["info", "c.mkv"])
        #expect(info.stdout.contains("chapters: 2: Intro at 0 s, End at 0.6 s"), "\(info.stdout)")
    }
}
