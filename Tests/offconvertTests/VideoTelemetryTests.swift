import Foundation
import Testing

/// Issue #54: a shared video copy carries picture, sound, chapters and subtitles, not telemetry.
/// GoPro's GPMF track never reaches the output and is named; a DJI drone's flight log muxed in
/// as a subtitle track (TestMedia/generators/81-dji-telemetry.sh: DJI's cue layouts as mov_text
/// in MP4 and SRT in MKV) is a location: `info` names it, conversions leave it out, and
/// `strip-location` blanks its positions in place. ffprobe and ffmpeg are the oracles.
@Suite("privacy: telemetry tracks and DJI telemetry subtitles (ffprobe oracle)")
struct VideoTelemetryTests {
    static let ffprobe = URL(fileURLWithPath: "/usr/bin/ffprobe")
    static let ffmpeg = URL(fileURLWithPath: "/usr/bin/ffmpeg")
    static let haveTools = [ffprobe, ffmpeg].allSatisfy { FileManager.default.isExecutableFile(atPath: $0.path) }
    static let gopro = CLIRunner.media.appendingPathComponent("video/gopro-karma-gpmf-cut.mp4").path
    static let mp4 = CLIRunner.media.appendingPathComponent("generated/dji-telemetry.mp4").path
    static let mkv = CLIRunner.media.appendingPathComponent("generated/dji-telemetry.mkv").path

    /// ffprobe's streams of `path`, one `type/codec/tag` a stream (`video/h264/avc1`).
    static func streams(_ path: String) async throws -> [String] {
        let outcome = try await CLIRunner.run(
            [
                "-v", "error", "-show_entries", "stream=codec_type,codec_name,codec_tag_string", "-of",
                "csv=p=0", path,
            ], executable: ffprobe)
        #expect(outcome.status == 0, "\(outcome.stderr)")
        return outcome.stdout.split(separator: "\n").map { line in
            let fields = line.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
            // csv order is the entries' own: codec_name, codec_type, codec_tag_string.
            return fields.count == 3 ? "\(fields[1])/\(fields[0])/\(fields[2])" : String(line)
        }
    }

    /// The cues of `path`'s first subtitle track as ffmpeg writes them out in SRT.
    static func cues(_ path: String) async throws -> String {
        try await CLIRunner.run(["-v", "error", "-i", path, "-map", "0:s:0", "-f", "srt", "-"], executable: ffmpeg)
            .stdout
    }

    /// Every packet of `path`'s picture and sound (`framemd5` of a stream copy).
    static func packets(_ path: String) async throws -> String {
        try await CLIRunner.run(
            ["-v", "error", "-i", path, "-map", "0:v", "-map", "0:a", "-c", "copy", "-f", "framemd5", "-"],
            executable: ffmpeg
        ).stdout
    }

    @Test("a GoPro clip's GPMF track stays out of every shared copy, named in the notes", .enabled(if: haveTools))
    func goproTelemetry() async throws {
        let folder = try NoNetworkTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        #expect(try await Self.streams(Self.gopro).contains("data/bin_data/gpmd"))
        for command in [["convert", "--to", "mp4"], ["convert", "--to", "mkv"], ["send-to-windows"]] {
            let out = folder.appendingPathComponent(command.joined(separator: "-"))
            let outcome = try await CLIRunner.run(command + ["-o", out.path, Self.gopro])
            #expect(outcome.status == 0, "\(command): \(outcome.stderr)")
            #expect(outcome.stderr.contains("1 telemetry track left out (GoPro GPMF gpmd)"), "\(outcome.stderr)")
            // The timecode track is no telemetry: named apart.
            #expect(outcome.stderr.contains("1 timecode track left out"), "\(outcome.stderr)")
            let output = try XMPAllowListCommandTests.output(in: out)
            #expect(try await Self.streams(output).allSatisfy { $0.hasPrefix("video/") }, "\(command)")
        }
        let compressed = folder.appendingPathComponent("compressed")
        let outcome = try await CLIRunner.run(["compress", Self.gopro, "--target", "10MB", "-o", compressed.path])
        #expect(outcome.status == 0, "\(outcome.stderr)")
        #expect(outcome.stderr.contains("1 telemetry track left out (GoPro GPMF gpmd)"), "\(outcome.stderr)")
        #expect(try await Self.streams(try XMPAllowListCommandTests.output(in: compressed)) == ["video/h264/avc1"])
    }

    @Test("info names DJI telemetry subtitles and counts their cues", .enabled(if: haveTools))
    func info() async throws {
        for (path, cues) in [(Self.mp4, 30), (Self.mkv, 10)] {
            let source = try await Self.cues(path)
            #expect(source.contains("GPS(113.958") || source.contains("[latitude: 22.5432"), "\(source)")
            let text = try await CLIRunner.run(["info", path])
            #expect(text.stdout.contains("location: yes, in DJI telemetry subtitles (\(cues) cues)"), "\(text.stdout)")
            let json = try await CLIRunner.run(["info", "--json", path])
            #expect(
                json.stdout.contains("\"location\":{\"present\":true,\"sources\":[\"dji-telemetry\"]}"),
                "\(json.stdout)")
            #expect(json.stdout.contains("\"telemetrySubtitleCues\":\(cues)"), "\(json.stdout)")
        }
        // A film's subtitles are not a location.
        let film = CLIRunner.media.appendingPathComponent("generated/subtitles.mp4").path
        let plain = try await CLIRunner.run(["info", "--json", film])
        #expect(!plain.stdout.contains("telemetrySubtitleCues"), "\(plain.stdout)")
    }

    @Test(
        "shared copies leave the telemetry subtitles out and say so; --keep-location keeps them",
        .enabled(if: haveTools))
    func sharedCopies() async throws {
        let folder = try NoNetworkTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let runs: [(String, [String])] = [
            (Self.mp4, ["convert", "--to", "mp4"]), (Self.mkv, ["convert", "--to", "mkv"]),
            (Self.mkv, ["convert", "--to", "mp4"]), (Self.mp4, ["send-to-windows"]),
        ]
        for (index, (input, command)) in runs.enumerated() {
            let out = folder.appendingPathComponent("run\(index)")
            let outcome = try await CLIRunner.run(command + ["-o", out.path, input])
            #expect(outcome.status == 0, "\(command): \(outcome.stderr)")
            #expect(
                outcome.stderr.contains(
                    "subtitle track 1 (DJI telemetry) left out: it records where the video was made"),
                "\(outcome.stderr)")
            let streams = try await Self.streams(try XMPAllowListCommandTests.output(in: out))
            #expect(!streams.contains { $0.hasPrefix("subtitle/") }, "\(command) \(input): \(streams)")
            #expect(streams.contains { $0.hasPrefix("video/") } && streams.contains { $0.hasPrefix("audio/") })
        }
        let kept = folder.appendingPathComponent("kept")
        let outcome = try await CLIRunner.run(["convert", "--to", "mp4", "--keep-location", "-o", kept.path, Self.mp4])
        #expect(outcome.status == 0, "\(outcome.stderr)")
        let output = try XMPAllowListCommandTests.output(in: kept)
        #expect(try await Self.streams(output).contains("subtitle/mov_text/tx3g"))
        #expect(try await Self.cues(output).contains("[latitude: 22.543201]"))
    }

    @Test("strip-location blanks the positions in every cue, in place; the MKV is refused", .enabled(if: haveTools))
    func strip() async throws {
        let folder = try NoNetworkTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let out = folder.appendingPathComponent("out")
        let outcome = try await CLIRunner.run(["strip-location", "-o", out.path, Self.mp4])
        #expect(outcome.status == 0, "\(outcome.stderr)")
        #expect(outcome.stderr.contains("location removed: DJI telemetry subtitles"), "\(outcome.stderr)")
        let output = out.appendingPathComponent("dji-telemetry (no location).mp4").path
        let size = { (file: String) in (try? FileManager.default.attributesOfItem(atPath: file)[.size] as? Int) ?? -1 }
        #expect(size(output) == size(Self.mp4))
        let cues = try await Self.cues(output)
        #expect(
            cues.components(
                separatedBy: "[latitude:" + String(repeating: " ", count: 10) + "] [longitude:"
                    + String(repeating: " ", count: 11) + "]"
            ).count == 31, "\(cues)")
        for gone in ["22.543", "113.958", "25.300"] { #expect(!cues.contains(gone), "\(gone) left: \(cues)") }
        // What places nothing stays: the height above take-off, the camera settings, the time.
        for kept in ["rel_alt: 9.000", "[iso: 100]", "FrameCnt: 30", "2024-08-07 12:34:24.380"] {
            #expect(cues.contains(kept), "\(kept) missing: \(cues)")
        }
        #expect(try await Self.packets(output) == (try await Self.packets(Self.mp4)))
        let reread = try await CLIRunner.run(["info", "--json", output])
        #expect(reread.stdout.contains("\"location\":{\"present\":false,\"sources\":[]}"), "\(reread.stdout)")

        let refused = try await CLIRunner.run(["strip-location", "-o", out.path, Self.mkv])
        #expect(refused.status != 0)
        #expect(refused.stderr.contains("not supported"), "\(refused.stderr)")
    }

    /// The GoPro clip with its telemetry track's sample entry renamed `tag`: a track of a kind
    /// offconvert cannot read (no public DJI `djmd` or Sony `rtmd` sample exists to build one from;
    /// only the sample entry's code tells a reader what the samples are).
    static func renamedTelemetry(_ tag: String, in folder: URL) throws -> String {
        let data = try Data(contentsOf: URL(fileURLWithPath: gopro))
        var renamed = data
        var from = renamed.startIndex
        while let range = renamed.range(of: Data("gpmd".utf8), in: from..<renamed.endIndex) {
            renamed.replaceSubrange(range, with: Data(tag.utf8))
            from = range.upperBound
        }
        #expect(renamed != data)
        let path = folder.appendingPathComponent("drone \(tag).mp4").path
        try renamed.write(to: URL(fileURLWithPath: path))
        return path
    }

    @Test(
        "telemetry offconvert cannot read (DJI djmd, Sony rtmd) is a likely location: info names it, strip-location refuses and writes nothing, copies leave it out",
        .enabled(if: haveTools))
    func unreadTelemetry() async throws {
        let folder = try NoNetworkTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        for (tag, maker) in [("djmd", "DJI"), ("rtmd", "Sony")] {
            let path = try Self.renamedTelemetry(tag, in: folder)
            #expect(try await Self.streams(path).contains { $0.hasPrefix("data/") && $0.hasSuffix("/\(tag)") })
            let text = try await CLIRunner.run(["info", path])
            #expect(
                text.stdout.contains("location: likely, in telemetry offconvert cannot read (\(maker) \(tag))"),
                "\(text.stdout)")
            let json = try await CLIRunner.run(["info", "--json", path])
            #expect(
                json.stdout.contains("\"location\":{\"present\":true,\"sources\":[\"unread-telemetry\"]}"),
                "\(json.stdout)")
            let before = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
            let stripped = try await CLIRunner.run(["strip-location", path])
            #expect(stripped.status == 1, "\(stripped.stderr)")
            #expect(
                stripped.stderr.contains("has telemetry offconvert cannot read (\(maker) \(tag))"), "\(stripped.stderr)"
            )
            #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted() == before)
            let out = folder.appendingPathComponent("copy-\(tag)")
            let copied = try await CLIRunner.run(["convert", "--to", "mp4", "-o", out.path, path])
            #expect(copied.status == 0, "\(copied.stderr)")
            #expect(copied.stderr.contains("1 telemetry track left out (\(maker) \(tag))"), "\(copied.stderr)")
            let output = try XMPAllowListCommandTests.output(in: out)
            #expect(try await Self.streams(output).allSatisfy { $0.hasPrefix("video/") })
            #expect(try await CLIRunner.run(["info", output]).stdout.contains("location: none"))
        }
    }
}
