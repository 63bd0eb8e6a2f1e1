import Foundation
import Synchronization
import Testing

@testable import ConvertCore
@testable import ConvertMedia

@Suite("Video frame pump")
struct VideoTranscodeTests {
    @Test(
        "Each container and codec pair decodes cleanly with the expected streams and duration",
        arguments: [
            (VideoContainer.mp4, VideoCodec.h264, "aac"), (.mov, .hevc, "aac"), (.mkv, .vp9, "aac"),
            (.webm, .vp9, "opus"), (.webm, .av1, "opus"),
        ])
    func containers(_ container: VideoContainer, _ codec: VideoCodec, _ audio: String) async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let input = Fixtures.path("video/sample.mp4")
        let result = try await VideoConverter.convert(
            VideoRequest(
                input: input, container: container, codec: codec, maxHeight: 144,
                output: OutputLocation(directory: directory.path))
        ).result()
        let output = try outputPath(result)
        #expect(output.hasSuffix(".\(container.fileExtension)"))
        let probe = try MediaTool.probe(output)
        #expect(probe.streams.map(\.codecName) == [codec.rawValue, audio])
        #expect(probe.video?.int("height") == 144)
        #expect(probe.video?.int("width") == 216)
        #expect(try MediaTool.decodeErrors(output) == "")
        let frames = try MediaTool.videoFrameTimes(output)
        let sourceFrames = try MediaTool.videoFrameTimes(input)
        #expect(frames.count == sourceFrames.count)
        #expect(abs((frames.last ?? 0) - (sourceFrames.last ?? 0)) < 1.0 / 29.97)
    }

    @Test("A variable frame rate survives a re-encode: every frame keeps its time")
    func variableFrameRate() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let input = Fixtures.generated("video-vfr.mp4")
        let result = try await VideoConverter.convert(
            VideoRequest(
                input: input, container: .mkv, codec: .h264, crf: 30,
                output: OutputLocation(directory: directory.path))
        ).result()
        let source = try MediaTool.videoFrameTimes(input)
        let output = try MediaTool.videoFrameTimes(try outputPath(result))
        #expect(source.count == 90)
        #expect(output.count == source.count)
        let drift = zip(source, output).map { abs($0 - $1) }.max() ?? 1
        #expect(drift < 0.002)
    }

    @Test("Over a minute, audio and video stay together and the duration is kept")
    func longClipDrift() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let input = Fixtures.generated("video-long.mp4")
        var progress: [JobProgress] = []
        let result = try await VideoConverter.convert(
            VideoRequest(
                input: input, container: .mp4, codec: .h264, crf: 35,
                output: OutputLocation(directory: directory.path))
        )
        .result { progress.append($0) }
        let probe = try MediaTool.probe(try outputPath(result))
        let source = try MediaTool.probe(input)
        let video = try #require(probe.video?.duration)
        let audio = try #require(probe.audio?.duration)
        #expect(abs(video - audio) < 0.05)
        #expect(abs(video - (source.video?.duration ?? 0)) <= 1.0 / 30)
        #expect(probe.audio?.codecName == "aac")
        #expect(result.notes.messages.contains("audio copied without re-encoding"))
        // Progress: a stage and a fraction that never goes backwards, reaching the end.
        #expect(progress.count > 5)
        #expect(zip(progress, progress.dropFirst()).allSatisfy { $0.fraction <= $1.fraction })
        #expect(progress.contains { $0.stage == .encoding })
        #expect((progress.last?.fraction ?? 0) >= 0.98)
    }

    @Test("Over a minute, re-encoded Opus sound stays with re-encoded VP9 video")
    func longClipDriftOpus() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let result = try await VideoConverter.convert(
            VideoRequest(
                input: Fixtures.generated("video-long.mp4"), container: .webm,
                crf: 50, output: OutputLocation(directory: directory.path))
        ).result()
        let probe = try MediaTool.probe(try outputPath(result))
        // Matroska keeps per-track durations as "HH:MM:SS.nnnnnnnnn" tags.
        func seconds(_ stream: MediaTool.Stream?) -> Double? {
            guard let text = (stream?.fields["tags"] as? [String: String])?["DURATION"] else { return nil }
            let parts = text.split(separator: ":").compactMap { Double($0) }
            guard parts.count == 3 else { return nil }
            return parts[0] * 3600 + parts[1] * 60 + parts[2]
        }
        let video = try #require(seconds(probe.video))
        let audio = try #require(seconds(probe.audio))
        #expect(probe.streams.map(\.codecName) == ["vp9", "opus"])
        #expect(abs(video - 60) <= 1.0 / 30)
        #expect(abs(audio - video) < 0.05)
    }

    @Test("A picture size change mid-stream keeps the output size and loses no frame")
    func sizeChange() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let input = Fixtures.generated("video-size-change.ts")
        let result = try await VideoConverter.convert(
            VideoRequest(
                input: input, container: .mp4, crf: 30,
                output: OutputLocation(directory: directory.path))
        ).result()
        let output = try outputPath(result)
        let probe = try MediaTool.probe(output)
        #expect(probe.video?.int("width") == 160)
        #expect(probe.video?.int("height") == 90)
        #expect(try MediaTool.videoFrameTimes(output).count == 60)
        #expect(try MediaTool.decodeErrors(output) == "")
    }

    @Test("Audio is resampled and re-encoded when the container needs it")
    func audioTranscode() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let input = Fixtures.generated("video-iphone-like.mov")
        let result = try await VideoConverter.convert(
            VideoRequest(
                input: input, container: .webm, maxHeight: 120,
                output: OutputLocation(directory: directory.path))
        ).result()
        let probe = try MediaTool.probe(try outputPath(result))
        #expect(probe.streams.map(\.codecName) == ["vp9", "opus"])
        #expect(probe.audio?.string("sample_rate") == "48000")
        let video = try #require(probe.video?.duration ?? probe.duration)
        #expect(abs(video - 2.0) < 0.05)
    }

    @Test("Exactly one terminal event ends every job")
    func oneTerminalEvent() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let good = await runJob(
            VideoConverter.convert(
                .sendToWindows(
                    Fixtures.path("video/sample.mp4"),
                    output: OutputLocation(directory: directory.path))))
        #expect(good.events.filter(\.isTerminal).count == 1)
        #expect(good.events.last?.isTerminal == true)
        let bad = await runJob(
            VideoConverter.convert(
                .sendToWindows(
                    Fixtures.path("broken/sample_vvc.mp4"),
                    output: OutputLocation(directory: directory.path))))
        #expect(bad.events.filter(\.isTerminal).count == 1)
    }

    @Test("Cancelling mid-transcode stops within a packet and leaves no file")
    func cancellation() throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let request = VideoRequest(
            input: Fixtures.generated("video-long.mp4"), container: .mkv, codec: .hevc,
            output: OutputLocation(directory: directory.path))
        // The flag is set from the encode thread at 5%: through the buffered event stream the
        // consumer may see 5% only after a loaded machine has finished the clip, and then
        // nothing would be cancelled. (The public path from `cancel()` to this flag is tested below.)
        let flag = CancellationFlag()
        let reached = Mutex(0.0)
        let reporter = ProgressReporter { progress in
            reached.withLock { $0 = max($0, progress.fraction) }
            if progress.stage == .encoding && progress.fraction > 0.05 { flag.cancel() }
        }
        let error = expectConvertError(.cancelled) {
            try VideoJob.run(
                input: request.input, output: request.output, maxPixels: request.maxPixels,
                plan: { media throws(ConvertError) in try VideoPlanner.plan(request, media: media) },
                cancellation: flag, reporter: reporter)
        }
        #expect(error?.category == .cancelled)
        // Within a packet: the encode stopped right after the cancel, not at the end of the clip.
        #expect(reached.withLock { $0 } < 0.2)
        #expect(fileNames(in: directory).isEmpty)
    }

    @Test("A cancelled job ends with one .cancelled failure and leaves no file")
    func jobCancellation() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let job = VideoConverter.convert(
            VideoRequest(
                input: Fixtures.generated("video-long.mp4"), container: .mkv, codec: .hevc,
                output: OutputLocation(directory: directory.path)))
        job.cancel()
        var events: [JobEvent] = []
        for await event in job.events { events.append(event) }
        await job.completion()
        #expect(events.filter(\.isTerminal).count == 1)
        guard case .failed(let error)? = events.last else {
            Issue.record("the job did not fail: \(String(describing: events.last))")
            return
        }
        #expect(error.category == .cancelled)
        #expect(fileNames(in: directory).isEmpty)
    }
}
