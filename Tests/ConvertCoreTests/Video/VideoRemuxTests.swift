import Foundation
import Testing

@testable import ConvertCore
@testable import ConvertMedia

@Suite("Video passthrough remux")
struct VideoRemuxTests {
    @Test("A HEVC clip with a metadata track keeps exactly its video and AAC, copied, and plays cleanly")
    func metadataTrackDropped() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let input = Fixtures.path("video/h265_with_metadata_track.mp4")
        let job = VideoConverter.convert(
            VideoRequest(input: input, container: .mp4, output: OutputLocation(directory: directory.path)))
        let result = try await job.result()
        #expect(result.notes.messages.contains("video copied without re-encoding"))
        #expect(result.notes.messages.contains("audio copied without re-encoding"))
        let output = try #require(result.outputs.first)
        let probe = try MediaTool.probe(output.path)
        #expect(probe.streams.map(\.codecType) == ["video", "audio"])
        #expect(probe.streams.map(\.codecName) == ["hevc", "aac"])
        #expect(probe.video?.string("codec_tag_string") == "hvc1")
        #expect(probe.video?.rotation == -90)
        #expect(try MediaTool.decodeErrors(output.path) == "")
        #expect(!probe.tags.keys.contains { $0.lowercased().contains("location") })
        #expect(fileNames(in: directory) == ["h265_with_metadata_track.mp4"])
    }

    @Test(
        "Real iPhone clips with mebx tracks FFmpeg cannot name remux to video + AAC, keeping Dolby Vision and rotation",
        arguments: ["video/dolbyVision-hdr.MOV", "video/sample_with_color_info.mp4"])
    func iPhoneRemux(_ fixture: String) async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let input = Fixtures.path(fixture)
        #expect(try MediaTool.probe(input).streams.filter { $0.string("codec_tag_string") == "mebx" }.count == 3)
        let result = try await VideoConverter.convert(
            VideoRequest(
                input: input, container: .mp4,
                output: OutputLocation(directory: directory.path))
        ).result()
        #expect(result.notes.messages.contains("video copied without re-encoding"))
        #expect(result.notes.messages.contains("3 timed metadata tracks (mebx) left out"), "\(result.notes.messages)")
        let output = try outputPath(result)
        let probe = try MediaTool.probe(output)
        #expect(probe.streams.map(\.codecName) == ["hevc", "aac"])
        #expect(probe.video?.rotation == -90)
        #expect(probe.video?.string("color_transfer") == "arib-std-b67")
        #expect(probe.video?.sideDataTypes.contains("DOVI configuration record") == true)
        #expect(try MediaTool.decodeErrors(output) == "")
    }

    @Test("The multi-track MOV keeps the video, the FIRST AAC track and its two mov_text subtitle tracks")
    func multiTrackMOV() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let input = Fixtures.generated("video-iphone-like.mov")
        let source = try MediaTool.probe(input)
        #expect(source.streams.count >= 7)
        let result = try await VideoConverter.convert(
            VideoRequest(
                input: input, container: .mp4,
                output: OutputLocation(directory: directory.path))
        ).result()
        let output = try outputPath(result)
        let probe = try MediaTool.probe(output)
        #expect(probe.streams.map(\.codecName) == ["hevc", "aac", "mov_text", "mov_text"])
        // The first AAC track is the stereo one; the second (mono) is left out.
        #expect(probe.audio?.int("channels") == 2)
        #expect(result.notes.messages.contains("audio track 2 (AAC mono) left out"))
        #expect(result.notes.messages.contains("audio track 3 (PCM mono) left out"))
        let leftOut = result.notes.filter { $0.code == .audioTrackLeftOut }.map(\.detail)
        #expect(
            leftOut == [
                .audioTrackLeftOut(
                    JobNote.AudioTrackLeftOut(position: 2, description: "AAC mono", canChoose: true, canKeepAll: true)),
                .audioTrackLeftOut(
                    JobNote.AudioTrackLeftOut(position: 3, description: "PCM mono", canChoose: true, canKeepAll: true)),
            ])
        #expect(result.notes.messages.contains("2 subtitle tracks kept"))
        #expect(
            result.notes.messages.contains("1 timecode track left out"), "\(result.notes.messages)")
        #expect(try MediaTool.decodeErrors(output) == "")
        #expect(abs((probe.duration ?? 0) - (source.duration ?? 0)) < 0.05)
    }

    @Test("Location tags are removed by default and kept on request")
    func location() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let input = Fixtures.path("video/sample.mp4")
        #expect(try MediaTool.probe(input).tags["location"] != nil)
        let stripped = try await VideoConverter.convert(
            .sendToWindows(input, output: OutputLocation(directory: directory.path))
        ).result()
        #expect(stripped.notes.messages.contains("location removed"))
        #expect(stripped.notes.messages.contains("video copied without re-encoding"))
        let strippedProbe = try MediaTool.probe(try outputPath(stripped))
        #expect(!strippedProbe.tags.keys.contains { $0.lowercased().contains("location") })
        var request = VideoRequest.sendToWindows(input, output: OutputLocation(directory: directory.path))
        request.keepLocation = true
        let kept = try await VideoConverter.convert(request).result()
        let keptPath = try outputPath(kept)
        #expect(keptPath.hasSuffix("sample (2).mp4"))
        #expect(try MediaTool.probe(keptPath).tags["location"]?.hasPrefix("+40.68") == true)
    }

    @Test("An iPhone MOV's ISO6709 location is removed from the MP4")
    func iPhoneLocation() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let result = try await VideoConverter.convert(
            VideoRequest(
                input: Fixtures.generated("video-iphone-like.mov"),
                container: .mov, output: OutputLocation(directory: directory.path))
        ).result()
        let output = try outputPath(result)
        let data = try Data(contentsOf: URL(fileURLWithPath: output))
        #expect(data.range(of: Data("ISO6709".utf8)) == nil)
        #expect(data.range(of: Data("+40.6892".utf8)) == nil)
    }

    @Test(
        "No location is left anywhere in the bytes of a shared video",
        arguments: [
            ("video/motion.mov", "+37.7899"), ("video/dolbyVision-hdr.MOV", "+51.5334"),
            ("video/h265_with_metadata_track.mp4", "+51.5932"), ("video/bt601.mov", "+40.6892"),
            ("video/hlg10-color-test.mp4", "+51.5335"), ("video/sample_with_color_info.mp4", "+37.7450"),
        ])
    func noLocationBytes(_ fixture: String, _ latitude: String) async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let input = Fixtures.path(fixture)
        #expect(try Data(contentsOf: URL(fileURLWithPath: input)).range(of: Data(latitude.utf8)) != nil)
        let result = try await VideoConverter.convert(
            .sendToWindows(input, output: OutputLocation(directory: directory.path))
        ).result()
        #expect(result.notes.messages.contains("location removed"))
        let data = try Data(contentsOf: URL(fileURLWithPath: try outputPath(result)))
        #expect(data.range(of: Data(latitude.utf8)) == nil)
        #expect(data.range(of: Data(latitude.dropFirst().prefix(5).utf8)) == nil)
    }

    @Test("An iPhone clip's ISO 6709 location is kept on request, as ©xyz")
    func iPhoneLocationKept() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        var request = VideoRequest.sendToWindows(
            Fixtures.path("video/dolbyVision-hdr.MOV"),
            output: OutputLocation(directory: directory.path))
        request.keepLocation = true
        let result = try await VideoConverter.convert(request).result()
        #expect(result.notes.messages.contains("location kept"))
        #expect(try MediaTool.probe(try outputPath(result)).tags["location"]?.hasPrefix("+51.533") == true)
    }

    @Test("Rotation is kept when remuxing and when re-encoding to MP4")
    func rotation() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let input = Fixtures.path("video/sample_rotate_and_reflect.mp4")
        let copied = try await VideoConverter.convert(
            .sendToWindows(input, output: OutputLocation(directory: directory.path))
        ).result()
        #expect(try MediaTool.probe(try outputPath(copied)).video?.rotation == -90)
        let encoded = try await VideoConverter.convert(
            VideoRequest(
                input: input, container: .mp4, codec: .h264, maxHeight: 240,
                output: OutputLocation(directory: directory.path))
        ).result()
        let probe = try MediaTool.probe(try outputPath(encoded))
        #expect(probe.video?.rotation == -90)
        // The limit applies to the displayed height: stored 1080x720 shown as 720x1080 → 240 px wide stored height.
        #expect(probe.video?.int("height") == 160)
        #expect(probe.video?.int("width") == 240)
    }

    @Test("Rotation becomes pixels in WebM, which cannot carry a display matrix")
    func rotationInWebM() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let input = Fixtures.path("video/sample_rotate_and_reflect.mp4")
        let result = try await VideoConverter.convert(
            VideoRequest(
                input: input, container: .webm, maxHeight: 320,
                output: OutputLocation(directory: directory.path))
        ).result()
        let probe = try MediaTool.probe(try outputPath(result))
        #expect(probe.video?.int("width") == 214 || probe.video?.int("width") == 212)
        #expect(probe.video?.int("height") == 320)
        #expect(probe.video?.rotation == nil)
    }

    @Test("Dolby Vision is copied with its configuration when remuxing")
    func dolbyVisionRemux() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let result = try await VideoConverter.convert(
            VideoRequest(
                input: Fixtures.path("video/regular.mkv"), container: .mp4,
                output: OutputLocation(directory: directory.path))
        ).result()
        let probe = try MediaTool.probe(try outputPath(result))
        #expect(probe.video?.codecName == "hevc")
        #expect(probe.video?.sideDataTypes.contains("DOVI configuration record") == true)
    }

    @Test("Output names never replace the input or an existing file")
    func naming() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let input = directory.appendingPathComponent("clip.mp4").path
        try FileManager.default.copyItem(atPath: Fixtures.path("video/sample.mp4"), toPath: input)
        let before = try Data(contentsOf: URL(fileURLWithPath: input))
        let first = try await VideoConverter.convert(.sendToWindows(input)).result()
        #expect(first.outputs.first?.path == directory.appendingPathComponent("clip (2).mp4").path)
        let second = try await VideoConverter.convert(.sendToWindows(input)).result()
        #expect(second.outputs.first?.path == directory.appendingPathComponent("clip (3).mp4").path)
        let replaced = try await VideoConverter.convert(.sendToWindows(input, output: OutputLocation(overwrite: true)))
            .result()
        #expect(replaced.outputs.first?.path == directory.appendingPathComponent("clip (2).mp4").path)
        #expect(try Data(contentsOf: URL(fileURLWithPath: input)) == before)
        #expect(fileNames(in: directory) == ["clip (2).mp4", "clip (3).mp4", "clip.mp4"])
        let explicit = VideoConverter.convert(
            .sendToWindows(input, output: OutputLocation(path: input, overwrite: true)))
        await expectConvertError(.outputIsInput) { try await explicit.result() }
    }
}
