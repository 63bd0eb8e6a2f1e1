import Foundation
import Testing

@testable import ConvertCore
@testable import ConvertMedia

/// What a killed conversion leaves behind is recognised and removed by the next run; what a
/// running conversion is writing is not touched.
@Suite("Hostile: stale temporaries after kill -9")
struct StaleTemporariesTests {
    static func touch(_ folder: URL, _ name: String) throws {
        try Data("x".utf8).write(to: folder.appendingPathComponent(name))
    }

    @Test("a dead run's staged output and x264 statistics (of earlier versions) are removed, a live stage is kept")
    func statistics() throws {
        let folder = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        // A SIGKILLed compress of an earlier version: its reserved file is no longer locked (the
        // lock died with the process), x264's files sit beside it; one family has lost its
        // reserved file entirely. Compress writes no statistics now, but a user upgrading may
        // still have them.
        let dead = [
            ".clip.mp4.offconvert-AbC123.x264", ".clip.mp4.offconvert-AbC123.x264.stats.temp",
            ".clip.mp4.offconvert-AbC123.x264.stats.mbtree.temp", ".clip.mp4.offconvert-AbC123.x264.pass1",
            ".clip.mp4.offconvert-ZzZ999.x264.stats", ".photo.jpg.offconvert-Qq0000.partial",
        ]
        // Not offconvert's: a user's hidden file and files that merely look similar.
        let foreign = [
            ".hidden", "clip.mp4", ".clip.mp4.offconvert-notes.txt", ".a.offconvert-x.partial",
            "b.offconvert-AbC123.x264",
        ]
        for name in dead + foreign { try Self.touch(folder, name) }

        let staged = try StagedOutput(destination: folder.appendingPathComponent("clip.mp4").path)
        let liveNames = Set(fileNames(in: folder)).subtracting(dead + foreign)
        #expect(liveNames.count == 1, "\(liveNames.sorted())")

        #expect(StagedOutput.removeStale(in: folder.path) == dead.count)
        #expect(Set(fileNames(in: folder)) == liveNames.union(foreign))

        staged.discard()
        #expect(Set(fileNames(in: folder)) == Set(foreign), "a discarded stage leaves nothing")
    }

    @Test(
        "which file's lock decides for each temporary name",
        arguments: [
            (".a.jpg.offconvert-123456.partial", ".a.jpg.offconvert-123456.partial"),
            (".a.mp4.offconvert-123456.x264", ".a.mp4.offconvert-123456.x264"),
            (".a.mp4.offconvert-123456.x264.stats.mbtree.temp", ".a.mp4.offconvert-123456.x264"),
            (".a.offconvert-b.mp4.offconvert-123456.x264.pass1", ".a.offconvert-b.mp4.offconvert-123456.x264"),
            (".a.mp4.offconvert-12345", nil), ("a.mp4.offconvert-123456.x264", nil),
            (".a.mp4.offconvert-123456.tmp", nil),
        ] as [(String, String?)])
    func owner(name: String, owner: String?) {
        #expect(StagedOutput.lockOwner(of: name) == owner)
    }
}
