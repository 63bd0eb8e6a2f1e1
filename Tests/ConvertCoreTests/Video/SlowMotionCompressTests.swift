import Foundation
import Testing

@testable import ConvertCore
@testable import ConvertMedia

/// Issue 56 for `compress`: a Samsung slow-motion clip under a size target plays as the phone
/// plays it, as `convert` makes it, and the target is spent on the flattened timeline (its
/// duration and frames), not the file's. Checked with ffprobe against convert's output and the
/// SEF arithmetic.
@Suite("Slow motion: compress flattens it and budgets the flattened timeline", .serialized)
struct SlowMotionCompressTests {
    static let samsung = SlowMotionTests.samsung
    static let flattening = SlowMotionTests.flattening
    /// How long the Samsung clip's sound is (ffprobe: 2.151750 s), the longer of its tracks.
    static let soundEnd = 2.15175

    static func request(_ input: String, target: Int64, in directory: URL? = nil, slowMotion: SlowMotionChoice)
        -> VideoCompressRequest
    {
        var request = VideoCompressRequest(
            input: input, targetBytes: target, output: OutputLocation(directory: directory?.path), unit: .kilobyte)
        request.slowMotion = slowMotion
        return request
    }

    @Test("The plan of a flattened clip budgets ~0.99 s and ~30 frames, not the file's 2.15 s and 64")
    func previewBudgetsOutput() async throws {
        let flat = try await VideoConverter.previewCompression(
            Self.request(Self.samsung, target: 20_000, slowMotion: .flatten))
        #expect(abs(flat.duration - Self.flattening.outputTime(Self.soundEnd)) < 0.001)
        #expect(flat.slowMotion?.segments.map(\.speedDivisor) == [2, 8])
        // Outside the segments one frame in 8 is kept, in the ½ one one in 4, in the ⅛ one all.
        #expect(abs(flat.sourceFrameRate * flat.duration - 30) < 1)
        #expect(flat.isReachable)
        let kept = try await VideoConverter.previewCompression(
            Self.request(Self.samsung, target: 20_000, slowMotion: .keep))
        #expect(abs(kept.duration - Self.soundEnd) < 0.001)
        #expect(kept.slowMotion == nil)
        // The same 20 kB cannot hold the file's own 2.15 s at the quality floor.
        #expect(!kept.isReachable)
    }

    @Test(
        "compress --target 20kB of the Samsung clip: under 20 kB, each frame at its flattened time, as long as convert's output"
    )
    func compressFlattens() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let result = try await VideoConverter.compress(
            Self.request(Self.samsung, target: 20_000, in: directory, slowMotion: .flatten)
        ).result()
        #expect(
            result.notes.messages.contains(
                "slow motion played as the phone plays it: 0.09–0.88 s at 1/2, 1.26–1.97 s at 1/8, captured at 240 fps; "
                    + "the sound follows the same timeline, its pitch kept"), "\(result.notes.messages)")
        let output = try outputPath(result)
        #expect(try VideoCompressCeilingTests.size(output) <= 20_000)
        let mapped = try MediaTool.videoFrameTimes(Self.samsung).map(Self.flattening.outputTime)
        let times = try MediaTool.videoFrameTimes(output)
        for time in times { #expect(mapped.contains { abs($0 - time) < 0.0015 }, "frame at \(time)") }
        let elsewhere = directory.appendingPathComponent("convert")
        try FileManager.default.createDirectory(at: elsewhere, withIntermediateDirectories: true)
        let converted = try await SlowMotionTests.convert(Self.samsung, in: elsewhere)
        let reference = try MediaTool.probe(try outputPath(converted))
        #expect(try times.count == MediaTool.videoFrameTimes(try outputPath(converted)).count)
        let probe = try MediaTool.probe(output)
        let (video, sound) = try (#require(probe.video?.duration), #require(probe.audio?.duration))
        #expect(try abs(video - #require(reference.video?.duration)) < 0.001)
        #expect(try abs(sound - #require(reference.audio?.duration)) < 1.0 / 30)
        #expect(abs(video - Self.flattening.outputTime(2.1)) < 1.0 / 30)
        #expect(abs(sound - Self.flattening.outputTime(Self.soundEnd)) < 1.0 / 30)
        #expect(try MediaTool.decodeErrors(output) == "")
    }

    @Test(
        "--slow-motion keep and off copy the clip at the file's own timing; keep writes the markers back, off drops them",
        arguments: ["keep", "off"])
    func keepCopies(_ choice: String) async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let slowMotion = try #require(SlowMotionChoice(rawValue: choice))
        let result = try await VideoConverter.compress(
            Self.request(Self.samsung, target: 1_000_000, in: directory, slowMotion: slowMotion)
        ).result()
        let kept = "slow motion markers kept (Samsung's SEF trailer): a Galaxy plays the segments slowed"
        #expect(
            result.notes.messages
                == ["already under the target: video and audio copied without re-encoding"]
                + (slowMotion == .keep ? [kept] : []))
        let output = try outputPath(result)
        let probe = try MediaTool.probe(output)
        #expect(try abs(#require(probe.video?.duration) - 2.1) < 0.0005)
        #expect(try abs(#require(probe.audio?.duration) - Self.soundEnd) < 0.001)
        let source = Array(try Data(contentsOf: URL(fileURLWithPath: Self.samsung)))
        let written = Array(try Data(contentsOf: URL(fileURLWithPath: output)))
        #expect((written.suffix(128) == source.suffix(128)) == (slowMotion == .keep))
    }

    @Test(
        "--slow-motion keep with a re-encode to a tight target still ends the file with the markers, under the target")
    func keepEncoded() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let result = try await VideoConverter.compress(
            Self.request(Self.samsung, target: 30_000, in: directory, slowMotion: .keep)
        ).result()
        let output = try outputPath(result)
        let written = Array(try Data(contentsOf: URL(fileURLWithPath: output)))
        #expect(written.count <= 30_000)
        #expect(SlowMotionSegments.read(from: MemoryByteSource(bytes: written)) == .segments(SlowMotionTests.segments))
        #expect(try MediaTool.decodeErrors(output) == "")
    }

    @Test("Android's capture-rate tag alone: copied at the file's timing, with convert's note")
    func captureRateOnly() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let result = try await VideoConverter.compress(
            Self.request(SlowMotionTests.android, target: 1_000_000, in: directory, slowMotion: .flatten)
        ).result()
        #expect(
            result.notes.messages == [
                "already under the target: video copied without re-encoding",
                "captured at 240 fps for slow motion, with no slowed segments marked: it plays at the file's own timing",
            ])
        #expect(try abs(#require(MediaTool.probe(try outputPath(result)).video?.duration) - 0.525) < 0.001)
    }

    @Test("A cut is not flattened, as in convert: the cut's length at the file's timing, with convert's note")
    func cutNotFlattened() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        var request = Self.request(Self.samsung, target: 1_000_000, in: directory, slowMotion: .flatten)
        request.start = 0.5
        let preview = try await VideoConverter.previewCompression(request)
        #expect(preview.slowMotion == nil)
        #expect(abs(preview.duration - (Self.soundEnd - 0.5)) < 0.001)
        let result = try await VideoConverter.compress(request).result()
        #expect(
            result.notes.messages.contains(
                "slow motion not flattened in a cut: it plays at the file's own (slowed) timing"))
        let probe = try MediaTool.probe(try outputPath(result))
        #expect(try abs(#require(probe.video?.duration) - 1.6) < 1.0 / 30)
    }
}
