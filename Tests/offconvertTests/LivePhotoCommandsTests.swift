import Foundation
import Testing

/// `info`, `heic-to-jpg` and `live-photo` on Live Photos, each output checked with ffprobe.
@Suite("Live Photo commands")
struct LivePhotoCommandsTests {
    static let haveTools = FileManager.default.isExecutableFile(atPath: "/usr/bin/ffprobe")

    /// A user's folder: a Live Photo pair, a renamed pair, a plain photo and an unrelated video.
    static func folder() throws -> UserFolder {
        let folder = try UserFolder()
        try folder.add("generated/live/IMG_5195.HEIC", as: "IMG_5195.HEIC")
        try folder.add("generated/live/IMG_5195.MOV", as: "IMG_5195.MOV")
        try folder.add("photos/tokyo.jpg", as: "tokyo.jpg")
        try folder.add("video/sample.mp4", as: "other.mp4")
        return folder
    }

    static func probe(_ path: String) async throws -> String {
        let outcome = try await CLIRunner.run(
            ["-v", "error", "-show_entries", "stream=codec_name,width,height", "-of", "compact", path],
            executable: URL(fileURLWithPath: "/usr/bin/ffprobe"))
        #expect(outcome.status == 0, "\(path): \(outcome.stderr)")
        return outcome.stdout
    }

    @Test("info shows the pair both ways, renamed exports included, and not a decoy")
    func info() async throws {
        let live = CLIRunner.media.appendingPathComponent("generated/live").path
        let outcome = try await CLIRunner.run([
            "info", "\(live)/IMG_5195.MOV", "\(live)/renamed/Holiday.HEIC", "\(live)/decoy/IMG_5195.HEIC",
        ])
        #expect(outcome.status == 0, "\(outcome.stderr)")
        #expect(
            outcome.stdout.contains("live photo: paired with \(live)/IMG_5195.HEIC (content identifier 570F1469"),
            "\(outcome.stdout)")
        #expect(outcome.stdout.contains("live photo: paired with \(live)/renamed/IMG_0042.MOV"), "\(outcome.stdout)")
        #expect(outcome.stdout.contains("live photo: its video is not in this folder"), "\(outcome.stdout)")
        let json = try await CLIRunner.run(["info", "--json", "\(live)/IMG_5195.HEIC"])
        #expect(
            json.stdout.contains(
                "\"livePhoto\":{\"contentIdentifier\":\"570F1469-09C7-4E50-9875-05F21D5BD166\",\"pairedWith\":\"\(live)/IMG_5195.MOV\"}"
            ), "\(json.stdout)")
    }

    @Test("heic-to-jpg over a folder: MOVs left alone, and the summary says how many")
    func leftAlone() async throws {
        let folder = try Self.folder()
        defer { folder.remove() }
        let outcome = try await folder.run(["heic-to-jpg", "."])
        #expect(outcome.status == 0, "\(outcome.stderr)")
        #expect(
            outcome.stderr.contains("1 Live Photo video was not converted (add --live mp4 or --live gif"),
            "\(outcome.stderr)")
        #expect(!folder.files().contains { $0.hasSuffix(".mp4") && $0 != "other.mp4" })
        #expect(folder.files().contains("IMG_5195.jpg"))
    }

    @Test(
        "heic-to-jpg --live mp4|gif writes the motion beside each photo under its name", .enabled(if: haveTools),
        arguments: ["mp4", "gif"])
    func live(_ kind: String) async throws {
        let folder = try Self.folder()
        defer { folder.remove() }
        let outcome = try await folder.run(["heic-to-jpg", "--live", kind, "-o", "out", "."])
        #expect(outcome.status == 0, "\(outcome.stderr)")
        let files = folder.files()
        #expect(files.contains("out/IMG_5195.jpg") && files.contains("out/tokyo.jpg"), "\(files)")
        #expect(files.contains("out/IMG_5195.\(kind)"), "\(files)")
        #expect(!files.contains("out/other.\(kind)") && !files.contains("out/tokyo.\(kind)"), "\(files)")
        let streams = try await Self.probe(folder.url.appendingPathComponent("out/IMG_5195.\(kind)").path)
        #expect(
            streams.contains(kind == "gif" ? "codec_name=gif|width=480" : "codec_name=h264|width=640|height=428"),
            "\(streams)")
    }

    @Test(
        "heic-to-jpg --live mp4 with only the photo named finds its MOV beside it, and says when there is none",
        .enabled(if: haveTools))
    func liveFromPhotoAlone() async throws {
        let folder = try Self.folder()
        defer { folder.remove() }
        let outcome = try await folder.run(["heic-to-jpg", "IMG_5195.HEIC", "--live", "mp4", "-o", "out"])
        #expect(outcome.status == 0, "\(outcome.stderr)")
        #expect(
            folder.files().contains("out/IMG_5195.jpg") && folder.files().contains("out/IMG_5195.mp4"),
            "\(folder.files())")
        let streams = try await Self.probe(folder.url.appendingPathComponent("out/IMG_5195.mp4").path)
        #expect(streams.contains("codec_name=h264"), "\(streams)")

        try FileManager.default.removeItem(at: folder.url.appendingPathComponent("IMG_5195.MOV"))
        let alone = try await folder.run([
            "heic-to-jpg", "IMG_5195.HEIC", "tokyo.jpg", "--include-jpeg", "--live", "mp4", "-o", "alone",
        ])
        #expect(alone.status == 0, "\(alone.stderr)")
        #expect(
            folder.files().filter { $0.hasPrefix("alone/") } == ["alone/IMG_5195.jpg", "alone/tokyo.jpg"],
            "\(folder.files())")
        #expect(
            alone.stderr.contains(
                "IMG_5195.HEIC is a Live Photo, but no MOV with its content identifier was found beside it"),
            "\(alone.stderr)")
        // A photo that is not a Live Photo gets no such note.
        #expect(!alone.stderr.contains("tokyo.jpg is a Live Photo"), "\(alone.stderr)")
    }

    /// Today's used conversions in the folder's own allowance.
    static func used(_ folder: UserFolder) async throws -> Int {
        let outcome = try await folder.run(["allowance", "--json"])
        let object = try #require(try JSONSerialization.jsonObject(with: Data(outcome.stdout.utf8)) as? [String: Any])
        return try #require(object["used"] as? Int)
    }

    @Test(
        "a Live Photo is one conversion: heic-to-jpg --live counts once, like live-photo, even as the last free one",
        .enabled(if: haveTools))
    func oneConversion() async throws {
        let folder = try Self.folder()
        defer { folder.remove() }
        #expect(try await folder.run(["live-photo", "-o", "a", "IMG_5195.HEIC"]).status == 0)
        #expect(try await Self.used(folder) == 1)
        #expect(try await folder.run(["live-photo", "--to", "gif", "-o", "b", "IMG_5195.HEIC"]).status == 0)
        #expect(try await Self.used(folder) == 2)
        // The last free conversion covers the stills and their motion: the motion is not refused.
        let outcome = try await folder.run(["heic-to-jpg", "--live", "mp4", "-o", "c", "IMG_5195.HEIC", "IMG_5195.MOV"])
        #expect(outcome.status == 0, "\(outcome.stderr)")
        #expect(
            folder.files().contains("c/IMG_5195.jpg") && folder.files().contains("c/IMG_5195.mp4"), "\(folder.files())")
        #expect(try await Self.used(folder) == 3)
        // With none left, nothing is made and the run says so once (exit 77).
        let refused = try await folder.run(["heic-to-jpg", "--live", "mp4", "-o", "d", "IMG_5195.HEIC", "IMG_5195.MOV"])
        #expect(refused.status == 77)
        #expect(!folder.files().contains { $0.hasPrefix("d/") }, "\(folder.files())")
    }

    @Test("live-photo turns a pair into an MP4, a GIF or the still", .enabled(if: haveTools))
    func livePhoto() async throws {
        let folder = try Self.folder()
        defer { folder.remove() }
        for (target, name, codec) in [
            ("mp4", "IMG_5195.mp4", "h264"), ("gif", "IMG_5195.gif", "gif"), ("jpg", "IMG_5195.jpg", "mjpeg"),
        ] {
            // Given either side, the other is found by its identifier.
            let input = target == "gif" ? "IMG_5195.MOV" : "IMG_5195.HEIC"
            let outcome = try await folder.run(["live-photo", "--to", target, "-o", "made", input])
            #expect(outcome.status == 0, "\(target): \(outcome.stderr)")
            let streams = try await Self.probe(folder.url.appendingPathComponent("made/\(name)").path)
            #expect(streams.contains("codec_name=\(codec)"), "\(streams)")
        }
        let alone = try await folder.run(["live-photo", "-o", "made2", "tokyo.jpg"])
        #expect(alone.status == 1)
        #expect(alone.stderr.contains("tokyo.jpg is not part of a Live Photo"), "\(alone.stderr)")
    }
}
