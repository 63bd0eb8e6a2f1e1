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
}
