import Foundation
import Testing

@testable import ConvertCore
@testable import ConvertMedia

/// Issue 18, "the picture plays as it was filmed": every output keeps the rotation, the frames
/// and the timing the source plays, and the Dolby Vision record. Checked with ffprobe/ffmpeg.
@Suite("Video fidelity: rotation, edit lists, Dolby Vision records")
struct VideoFidelityTests {
    /// Frames (or audio packets) ffprobe decodes per stream, in stream order.
    static func decodedCounts(_ path: String) throws -> [Int] {
        let result = try MediaTool.run(
            "ffprobe",
            [
                "-v", "error", "-count_frames", "-show_entries", "stream=nb_read_frames",
                "-of", "csv=p=0", path,
            ])
        return String(decoding: result.output, as: UTF8.self).split(separator: "\n").compactMap {
            Int($0.prefix { $0.isNumber })
        }
    }

    static func convert(_ input: String, to container: VideoContainer, in directory: URL) async throws -> JobResult {
        try await VideoConverter.convert(
            VideoRequest(
                input: input, container: container,
                output: OutputLocation(directory: directory.path))
        ).result()
    }

    @Test(
        "An MKV of a 180° clip is re-encoded upright: no display matrix needed, the picture as ffmpeg shows the source")
    func upsideDownToMKV() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let input = Fixtures.generated("fidelity-180.mp4")
        #expect(try MediaTool.probe(input).video?.rotation == -180)
        let result = try await Self.convert(input, to: .mkv, in: directory)
        #expect(
            result.notes.messages.first
                == "video re-encoded to h264 (turned upright: an MKV file cannot say it is rotated)")
        let output = try outputPath(result)
        let probe = try MediaTool.probe(output)
        #expect(probe.video?.rotation == nil)
        #expect(probe.video?.int("width") == 160 && probe.video?.int("height") == 90)
        #expect(try Self.decodedCounts(output) == [10])
        // The ffmpeg CLI turns the source by its matrix when decoding: the output's top-left
        // quarter must match the source's displayed top-left quarter, not its stored one.
        let quarter = "crop=iw/2:ih/2:0:0"
        let shown = try MediaTool.frameStatistics(output, filter: quarter)
        let expected = try MediaTool.frameStatistics(input, filter: quarter)
        let stored = try MediaTool.frameStatistics(input, filter: "hflip,vflip,\(quarter)")
        #expect(abs(shown.luma - expected.luma) < 3)
        #expect(abs(stored.luma - expected.luma) > 6)
        #expect(try MediaTool.decodeErrors(output) == "")
    }

    @Test("An MKV of a portrait (90°) iPhone-like clip stays portrait: 180x320 pixels, no matrix")
    func portraitToMKV() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let result = try await Self.convert(Fixtures.generated("iphone-like.mov"), to: .mkv, in: directory)
        #expect(result.notes.messages.first?.hasPrefix("video re-encoded to hevc (turned upright") == true)
        let probe = try MediaTool.probe(try outputPath(result))
        #expect(probe.video?.int("width") == 180 && probe.video?.int("height") == 320)
        #expect(probe.video?.rotation == nil)
    }

    @Test(
        "A clip cut by an edit list (77 packets, 66 shown) plays 66 frames in MKV, MP4 and MOV, and decodes cleanly",
        arguments: [VideoContainer.mkv, .mp4, .mov])
    func editList(_ container: VideoContainer) async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let input = Fixtures.generated("fidelity-editlist.mp4")
        let source = try Self.decodedCounts(input)
        #expect(source == [66, 121])
        let result = try await Self.convert(input, to: container, in: directory)
        let output = try outputPath(result)
        #expect(try Self.decodedCounts(output) == source)
        #expect(try MediaTool.decodeErrors(output) == "")
        let sourceDuration = try #require(try MediaTool.probe(input).video?.duration)
        if container == .mkv {
            #expect(
                result.notes.messages.first
                    == "video re-encoded to h264 (only the frames the source plays: an MKV file has no edit list)")
            #expect(try abs(#require(MediaTool.probe(output).duration) - sourceDuration) < 0.05)
        } else {
            #expect(result.notes.messages.contains("video copied without re-encoding"))
            #expect(try abs(#require(MediaTool.probe(output).video?.duration) - sourceDuration) < 0.05)
        }
    }

    @Test(
        "An iPhone clip whose edit list ends a frame early (243 samples, 242 shown) copies to 242 frames, not 243",
        arguments: [VideoContainer.mp4, .mov])
    func editListEnd(_ container: VideoContainer) async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let input = Fixtures.path("video/motion.mov")
        let result = try await Self.convert(input, to: container, in: directory)
        #expect(result.notes.messages.contains("video copied without re-encoding"))
        let source = try Self.decodedCounts(input)
        #expect(source == [346, 242])
        let output = try outputPath(result)
        #expect(try Self.decodedCounts(output) == [242, 346])
        // Its edit also ends part-way into the last shown frame (8.0433 s): the copy's ends there.
        let sourceDuration = try #require(try MediaTool.probe(input).video?.duration)
        #expect(try abs(#require(MediaTool.probe(output).video?.duration) - sourceDuration) < 0.002)
        #expect(try MediaTool.decodeErrors(output) == "")
    }

    @Test(
        "An iPhone Dolby Vision clip whose edit list ends before a frame other frames need (5 samples, 4 shown, 0.1067 s) copies to 4 frames over 0.1067 s, not 5 over 0.167 s",
        arguments: [VideoContainer.mp4, .mov])
    func editListEndBeforeReference(_ container: VideoContainer) async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let input = Fixtures.path("video/dolbyVision-hdr.MOV")
        let source = try Self.decodedCounts(input)
        #expect(source.prefix(2) == [4, 5])
        let result = try await Self.convert(input, to: container, in: directory)
        #expect(result.notes.messages.contains("video copied without re-encoding"))
        let output = try outputPath(result)
        #expect(try Self.decodedCounts(output) == [4, 5])
        let sourceProbe = try MediaTool.probe(input)
        let probe = try MediaTool.probe(output)
        let sourceDuration = try #require(sourceProbe.video?.duration)
        #expect(try abs(#require(probe.video?.duration) - sourceDuration) < 0.002)
        #expect(try abs(#require(probe.duration) - sourceDuration) < 0.002)
        // Every sample is kept (the hidden one is a reference); only the edit ends earlier.
        #expect(probe.video?.string("nb_frames") == "5")
        #expect(probe.video?.sideDataTypes.contains("DOVI configuration record") == true)
        #expect(try MediaTool.decodeErrors(output) == "")
    }

    @Test("A MOV copy of an iPhone Dolby Vision clip keeps its dvvC record (written under QuickTime's brand)")
    func dolbyVisionMOV() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let result = try await Self.convert(Fixtures.path("video/dolbyVision-hdr.MOV"), to: .mov, in: directory)
        #expect(result.notes.messages.contains("video copied without re-encoding"))
        let output = try outputPath(result)
        #expect(output.hasSuffix(".mov"))
        let probe = try MediaTool.probe(output)
        #expect(probe.video?.sideDataTypes.contains("DOVI configuration record") == true)
        #expect(probe.video?.rotation == -90)
        #expect(probe.tags["major_brand"] == "qt  ")
        #expect(try MediaTool.decodeErrors(output) == "")
    }
}

/// Dolby Vision profile 10 (AV1, `dav1` sample entry), which FFmpeg 5.1 cannot name by itself.
@Suite("Video Dolby Vision profile 10")
struct VideoDolbyVisionAV1Tests {
    @Test(
        "A dav1 (Dolby Vision 10.1) clip is AV1 to us: copied into MP4 and MKV with its record, never called 'dav1' in a refusal",
        arguments: [VideoContainer.mp4, .mkv])
    func copy(_ container: VideoContainer) async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let input = Fixtures.generated("fidelity-dv10.mp4")
        #expect(try MediaTool.probe(input).video?.string("codec_tag_string") == "dav1")
        let result = try await VideoFidelityTests.convert(input, to: container, in: directory)
        #expect(result.notes.messages.contains("video copied without re-encoding"))
        let output = try outputPath(result)
        let probe = try MediaTool.probe(output)
        #expect(probe.video?.codecName == "av1")
        #expect(probe.video?.sideDataTypes.contains("DOVI configuration record") == true)
        #expect(try VideoFidelityTests.decodedCounts(output) == [10])
        #expect(try MediaTool.decodeErrors(output) == "")
    }

    @Test("The probe names it AV1 with its Dolby Vision profile")
    func probe() async throws {
        let info = try await MediaProbe.probe(path: Fixtures.generated("fidelity-dv10.mp4"))
        let track = try #require(info.container?.videoTracks.first)
        #expect(track.codec == "av1")
        #expect(track.decoderAvailable)
    }
}

/// Raw `.hevc`/`.h264` elementary streams: no timestamps, yet valid files.
@Suite("Video raw elementary streams")
struct VideoElementaryStreamTests {
    @Test(
        "A raw stream converts, timed by its frame rate: 10 frames over 0.4 s, clean decode, never called damaged",
        arguments: [("fidelity-raw.hevc", VideoSituation.convert), ("fidelity-raw.h264", .sendToWindows)])
    func converts(_ fixture: String, _ situation: VideoSituation) async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let input = Fixtures.generated(fixture)
        let output = OutputLocation(directory: directory.path)
        let request =
            situation == .sendToWindows
            ? VideoRequest.sendToWindows(input, output: output)
            : VideoRequest(input: input, container: .mp4, output: output)
        let result = try await VideoConverter.convert(request).result()
        #expect(
            result.notes.messages.first?.hasSuffix(
                "(a raw stream has no timestamps: timed at 25 fps, the rate it says)") == true)
        let path = try outputPath(result)
        #expect(try VideoFidelityTests.decodedCounts(path) == [10])
        #expect(try abs(#require(MediaTool.probe(path).duration) - 0.4) < 0.01)
        let times = try MediaTool.videoFrameTimes(path)
        #expect(times.count == 10 && abs(times[1] - times[0] - 0.04) < 0.001)
        #expect(try MediaTool.decodeErrors(path) == "")
    }

    /// A raw stream's timing case: the fixture, the rate asked for, the note's words, the frame
    /// interval and duration the output must have.
    struct RawTimingCase: Sendable, CustomTestStringConvertible {
        var fixture: String
        var rate: Double?
        var note: String
        var interval: Double
        var duration: Double
        var testDescription: String { "\(fixture) at \(rate.map { "\($0)" } ?? "its own rate")" }
    }

    @Test(
        "A raw stream is timed by --fps when given, else by its VUI timing, else at 30 fps with a note saying so",
        arguments: [
            RawTimingCase(
                fixture: "fidelity-raw50.hevc", rate: nil, note: "timed at 50 fps, the rate it says",
                interval: 0.02, duration: 0.4),
            RawTimingCase(
                fixture: "fidelity-raw-untimed.hevc", rate: nil,
                note: "does not say its frame rate: timed at 30 fps", interval: 1.0 / 30,
                duration: 20.0 / 30),
            RawTimingCase(
                fixture: "fidelity-raw-untimed.hevc", rate: 50, note: "timed at 50 fps, as asked",
                interval: 0.02, duration: 0.4),
            RawTimingCase(
                fixture: "fidelity-raw50.hevc", rate: 25, note: "timed at 25 fps, as asked",
                interval: 0.04, duration: 0.8),
        ])
    func timing(_ timing: RawTimingCase) async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        var request = VideoRequest(
            input: Fixtures.generated(timing.fixture), container: .mp4,
            output: OutputLocation(directory: directory.path))
        request.rawFrameRate = timing.rate
        let result = try await VideoConverter.convert(request).result()
        #expect(result.notes.messages.first?.hasSuffix(timing.note + ")") == true, "\(result.notes.messages)")
        let source: JobNote.FrameRateSource =
            timing.rate != nil ? .request : timing.note.contains("the rate it says") ? .stream : .assumed
        #expect(result.notes.first?.code == .rawStreamTiming)
        #expect(
            result.notes.first?.detail
                == .rawStreamTiming(framesPerSecond: timing.rate ?? (source == .stream ? 50 : 30), source: source))
        let path = try outputPath(result)
        #expect(try VideoFidelityTests.decodedCounts(path) == [20])
        #expect(try abs(#require(MediaTool.probe(path).duration) - timing.duration) < 0.01)
        let times = try MediaTool.videoFrameTimes(path)
        #expect(times.count == 20 && abs(times[1] - times[0] - timing.interval) < 0.001)
        #expect(try MediaTool.decodeErrors(path) == "")
    }

    @Test("--fps changes nothing for a file with timestamps")
    func fpsIgnoredWithTimestamps() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        var request = VideoRequest(
            input: Fixtures.generated("fidelity-180.mp4"), container: .mp4, crf: 30,
            output: OutputLocation(directory: directory.path))
        request.rawFrameRate = 50
        let result = try await VideoConverter.convert(request).result()
        let times = try MediaTool.videoFrameTimes(try outputPath(result))
        #expect(times.count == 10 && abs(times[1] - times[0] - 0.04) < 0.001)
        #expect(!result.notes.messages.contains { $0.contains("fps") })
    }
}

/// Spatial (3D, MV-HEVC) video: FFmpeg 5.1 keeps only the left view, and we say so.
@Suite("Video spatial (3D) clips")
struct VideoSpatialTests {
    @Test("info marks a clip with a vexu box as stereoscopic; a conversion notes '3D video: left eye only'")
    func spatial() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let input = Fixtures.generated("fidelity-spatial.mov")
        let info = try await MediaProbe.probe(path: input)
        #expect(info.container?.videoTracks.first?.video?.stereoscopic == true)
        let flat = try await MediaProbe.probe(path: Fixtures.generated("iphone-like.mov"))
        #expect(flat.container?.videoTracks.first?.video?.stereoscopic == nil)
        let result = try await VideoFidelityTests.convert(input, to: .mp4, in: directory)
        #expect(result.notes.messages.contains("3D video: left eye only"))
        #expect(try MediaTool.decodeErrors(try outputPath(result)) == "")
    }
}
