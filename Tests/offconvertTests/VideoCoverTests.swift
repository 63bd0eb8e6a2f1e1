import Foundation
import Testing

/// A video's cover (an attached JPEG or PNG picture) survives every container that has a place
/// for it (issue 56): MP4 `covr`, a MOV's `covr` (written by the MP4 muxer under QuickTime's
/// brand), an MKV attachment; WebM says it has none. Sources are made here with ffmpeg from the
/// real androidx clip and a picture ffmpeg draws; ffprobe reads the outputs back, and the cover
/// ffmpeg takes out of each is compared byte for byte with the picture put in.
@Suite("Video covers", .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/ffmpeg")))
struct VideoCoverTests {
    static let ffmpeg = "/usr/bin/ffmpeg"

    /// Adds `c.<container>`: the real clip with `cover.<picture>` attached as its cover (and its
    /// sound as 16-bit PCM when `pcm`).
    static func clipWithCover(_ folder: UserFolder, container: String, picture: String, pcm: Bool = false) throws {
        try folder.add("video/sample.mp4", as: "clip.mp4")
        let cover = folder.url.appendingPathComponent("cover.\(picture)").path
        _ = try CLIRunner.toolOutput(
            ffmpeg, ["-v", "error", "-f", "lavfi", "-i", "testsrc2=s=96x64", "-frames:v", "1", cover])
        let clip = folder.url.appendingPathComponent("clip.mp4").path
        let output = folder.url.appendingPathComponent("c.\(container)").path
        if container == "mkv" {
            // Matroska keeps a cover as an attachment (its demuxer shows it as an attached picture).
            _ = try CLIRunner.toolOutput(
                ffmpeg,
                [
                    "-v", "error", "-i", clip, "-attach", cover, "-metadata:s:t",
                    "mimetype=image/\(picture == "jpg" ? "jpeg" : picture)",
                    "-metadata:s:t", "filename=cover.\(picture)", "-map", "0", "-c", "copy",
                ] + (pcm ? ["-c:a", "pcm_s16le"] : []) + [output])
        } else {
            _ = try CLIRunner.toolOutput(
                ffmpeg,
                [
                    "-v", "error", "-i", clip, "-i", cover, "-map", "0", "-map", "1", "-c", "copy",
                    "-disposition:v:1", "attached_pic", output,
                ])
        }
    }

    /// Each stream of `path` as ffprobe reads it: `codec attached_pic mimetype`.
    static func streams(_ path: String) throws -> [String] {
        try CLIRunner.toolOutput(
            "/usr/bin/ffprobe",
            [
                "-v", "error", "-show_entries",
                "stream=codec_name:stream_disposition=attached_pic:stream_tags=mimetype",
                "-of", "csv=p=0", path,
            ]
        ).split(separator: "\n").map(String.init)
    }

    /// The bytes of the cover ffmpeg takes out of `path` (its second video stream, as it is).
    static func coverBytes(_ path: String, folder: UserFolder) throws -> Data {
        let taken = folder.url.appendingPathComponent("taken-\(UUID().uuidString.prefix(6))").path
        _ = try CLIRunner.toolOutput(
            ffmpeg, ["-v", "error", "-i", path, "-map", "0:v:1", "-c", "copy", "-f", "image2", taken])
        return try Data(contentsOf: URL(fileURLWithPath: taken))
    }

    @Test(
        "convert --to mkv, mp4 and mov and send-to-windows keep an MP4's JPEG cover byte for byte; no track is left out",
        arguments: [
            (["convert", "c.mp4", "--to", "mkv"], "mjpeg,1,image/jpeg"),
            (["convert", "c.mp4", "--to", "mp4"], "mjpeg,1"), (["convert", "c.mp4", "--to", "mov"], "mjpeg,1"),
            (["send-to-windows", "c.mp4"], "mjpeg,1"),
        ])
    func keptFromMP4(_ arguments: [String], _ expected: String) async throws {
        let folder = try UserFolder()
        defer { folder.remove() }
        try Self.clipWithCover(folder, container: "mp4", picture: "jpg")
        #expect(try Self.streams(folder.url.appendingPathComponent("c.mp4").path).last == "mjpeg,1")
        let outcome = try await folder.run(arguments + ["-o", "out"])
        #expect(outcome.status == 0, "\(outcome.stderr)")
        #expect(outcome.stderr.contains("cover art kept"), "\(outcome.stderr)")
        #expect(!outcome.stderr.contains("left out"), "\(outcome.stderr)")
        let name = try #require(try FileManager.default.contentsOfDirectory(atPath: folder.url.path + "/out").first)
        let output = folder.url.appendingPathComponent("out/\(name)").path
        let streams = try Self.streams(output)
        #expect(streams.count == 3 && streams.last == expected, "\(name): \(streams)")
        let cover = try Data(contentsOf: folder.url.appendingPathComponent("cover.jpg"))
        #expect(try Self.coverBytes(output, folder: folder) == cover, "\(name)")
        if name.hasSuffix(".mov") {
            // QuickTime's brand: the file is still a MOV to players.
            let head = try Data(contentsOf: URL(fileURLWithPath: output)).prefix(12)
            #expect(String(decoding: head.suffix(4), as: UTF8.self) == "qt  ")
        }
    }

    @Test("an MKV's PNG cover attachment becomes the MP4's covr and stays an MKV attachment, byte for byte")
    func keptFromMKV() async throws {
        let folder = try UserFolder()
        defer { folder.remove() }
        try Self.clipWithCover(folder, container: "mkv", picture: "png")
        let cover = try Data(contentsOf: folder.url.appendingPathComponent("cover.png"))
        for target in ["mp4", "mkv"] {
            let outcome = try await folder.run(["convert", "c.mkv", "--to", target, "-o", "out"])
            #expect(outcome.status == 0, "\(outcome.stderr)")
            #expect(outcome.stderr.contains("cover art kept"), "\(outcome.stderr)")
            let output = folder.url.appendingPathComponent("out/c.\(target)").path
            let streams = try Self.streams(output)
            #expect(streams.last?.hasPrefix("png,1") == true, "\(target): \(streams)")
            #expect(try Self.coverBytes(output, folder: folder) == cover, "\(target)")
        }
    }

    @Test("convert --to webm says the cover is left out and why, and writes none")
    func leftOutOfWebM() async throws {
        let folder = try UserFolder()
        defer { folder.remove() }
        try Self.clipWithCover(folder, container: "mp4", picture: "jpg")
        let outcome = try await folder.run(["convert", "c.mp4", "--to", "webm"])
        #expect(outcome.status == 0, "\(outcome.stderr)")
        #expect(outcome.stderr.contains("cover art left out: WebM has no place for it"), "\(outcome.stderr)")
        #expect(!outcome.stderr.contains("other track"), "\(outcome.stderr)")
        let streams = try Self.streams(folder.url.appendingPathComponent("c.webm").path)
        #expect(streams.count == 2 && streams.allSatisfy { !$0.contains(",1") }, "\(streams)")
    }

    @Test("a cover going into a MOV beside PCM sound (which FFmpeg's MP4 writer refuses) is left out with the reason")
    func leftOutOfPCMMOV() async throws {
        let folder = try UserFolder()
        defer { folder.remove() }
        try Self.clipWithCover(folder, container: "mkv", picture: "jpg", pcm: true)
        let outcome = try await folder.run(["convert", "c.mkv", "--to", "mov", "-o", "out"])
        #expect(outcome.status == 0, "\(outcome.stderr)")
        #expect(
            outcome.stderr.contains("cover art left out: FFmpeg writes it in a MOV only beside MP4 codecs"),
            "\(outcome.stderr)")
        let streams = try Self.streams(folder.url.appendingPathComponent("out/c.mov").path)
        #expect(streams.first?.hasPrefix("h264") == true && streams.contains("pcm_s16le,0"), "\(streams)")
    }
}
