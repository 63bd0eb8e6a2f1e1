import Foundation
import Testing

@testable import ConvertCore
@testable import ConvertMedia

/// Issue 18: `--start`/`--duration` on `compress`/`email` (the target budgets only the part
/// kept), and raw `.h264`/`.hevc` streams compressed like any clip. Checked with ffprobe/ffmpeg.
@Suite("video compress: cuts and raw streams", .serialized)
struct VideoCompressCutTests {
    static func request(
        _ input: String, target: Int64, directory: URL? = nil, start: Double = 0,
        duration: Double? = nil
    ) -> VideoCompressRequest {
        var request = VideoCompressRequest(
            input: input, targetBytes: target,
            output: OutputLocation(directory: directory?.path), unit: .kilobyte)
        (request.start, request.duration) = (start, duration)
        return request
    }

    static func encodePlan(_ preview: VideoCompressPreview) throws -> VideoSizePlanner.EncodePlan {
        guard case .encode(let plan) = preview.action else {
            Issue.record("expected an encode, got \(preview.action)")
            throw CancellationError()
        }
        return plan
    }

    @Test("A 4 s cut of an 8 s clip is budgeted over 4 s: about twice the bitrate, full size and frame rate kept")
    func cutBudget() async throws {
        let input = Fixtures.path("video/motion.mov")
        let whole = try Self.encodePlan(
            try await VideoConverter.previewCompression(Self.request(input, target: 150_000)))
        let cut = try await VideoConverter.previewCompression(
            Self.request(input, target: 150_000, start: 2, duration: 4))
        #expect(abs(cut.duration - 4) < 0.001)
        let part = try Self.encodePlan(cut)
        #expect(
            Double(part.videoBitrate) > 1.8 * Double(whole.videoBitrate),
            "\(part.videoBitrate) vs \(whole.videoBitrate)")
        #expect(part.width == 568 && part.height == 320)
        #expect(whole.width < 568)
    }

    @Test(
        "compress --start 2 --duration 4 --target 150kB: 4.0 s of picture and sound, 120 frames, under 150 kB, clean decode"
    )
    func cutOutput() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let result = try await VideoConverter.compress(
            Self.request(
                Fixtures.path("video/motion.mov"), target: 150_000,
                directory: directory, start: 2, duration: 4)
        ).result()
        #expect(result.notes.messages.contains("cut from 2 s, 4 s long"))
        let output = try outputPath(result)
        #expect(try VideoCompressCeilingTests.size(output) <= 150_000)
        let probe = try MediaTool.probe(output)
        #expect(try abs(#require(probe.video?.duration) - 4) < 0.05)
        #expect(try abs(#require(probe.audio?.duration) - 4) < 0.05)
        #expect(try VideoCompressCeilingTests.frames(output).count == 120)
        #expect(try MediaTool.decodeErrors(output) == "")
    }

    @Test("A start past the end is refused before anything is written")
    func startPastEnd() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let outcome = await runJob(
            VideoConverter.compress(
                Self.request(
                    Fixtures.path("video/motion.mov"), target: 150_000,
                    directory: directory, start: 60))
        ).result
        guard case .failure(let error) = outcome else {
            Issue.record("a start past the end must fail")
            return
        }
        #expect(error.code == .requestStart)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty)
    }

    @Test(
        "A raw HEVC stream compresses: 20 frames over 0.4 s at the rate it says (50 fps), or at --fps for one that says none",
        arguments: [
            ("fidelity-raw50.hevc", nil as Double?, "timed at 50 fps, the rate it says"),
            ("fidelity-raw-untimed.hevc", 50, "timed at 50 fps, as asked"),
        ])
    func rawStream(_ fixture: String, _ rate: Double?, _ note: String) async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        var request = Self.request(Fixtures.generated(fixture), target: 1_000_000, directory: directory)
        request.rawFrameRate = rate
        let result = try await VideoConverter.compress(request).result()
        #expect(result.notes.messages.contains { $0.hasSuffix(note) }, "\(result.notes.messages)")
        let output = try outputPath(result)
        #expect(try VideoCompressCeilingTests.frames(output).count == 20)
        #expect(try abs(#require(MediaTool.probe(output).duration) - 0.4) < 0.01)
        #expect(try MediaTool.decodeErrors(output) == "")
    }
}
