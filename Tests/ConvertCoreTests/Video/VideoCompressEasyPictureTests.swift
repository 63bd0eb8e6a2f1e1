import Foundation
import Testing

@testable import ConvertCore
@testable import ConvertMedia

/// A tight target on a picture so easy that x264's average bitrate would leave its bits unspent
/// (issue #52's screen recording) is made at the normal quality at x264's `veryfast`, found by the
/// first frames of the encode; camera footage under a tight target keeps the average bitrate.
/// What x264 did is read from the settings it writes into every stream (its SEI), not from our
/// notes alone.
@Suite("video compress: an easy picture under a tight target", .serialized)
struct VideoCompressEasyPictureTests {
    /// The options string x264 wrote into the stream of the file at `path` ("... rc=crf ...").
    static func x264Settings(_ path: String) throws -> String {
        let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        let marker = Data("x264 - core".utf8)
        let start = try #require(bytes.range(of: marker)?.lowerBound, "no x264 settings in \(path)")
        let end = bytes[start...].firstIndex(of: 0) ?? bytes.endIndex
        return String(decoding: bytes[start..<end], as: UTF8.self)
    }

    func compress(_ input: String, target: Int64, in name: String) async throws -> (JobResult, String, URL) {
        let directory = try Fixtures.temporaryDirectory(name)
        let result = try await runJob(
            VideoConverter.compress(
                VideoCompressRequest(
                    input: input, targetBytes: target, output: OutputLocation(directory: directory.path)))
        ).result.get()
        return (result, try outputPath(result), directory)
    }

    @Test(
        "a screen recording whose first frames take 8 % of their bits is made at CRF 23 with x264 veryfast, under the target"
    )
    func screenRecording() async throws {
        let screen = Fixtures.generated("screen-720p.mp4")
        // 1 MB for 12 s of 720p: under the planner's bits-per-pixel floor, a tight target.
        let (result, path, directory) = try await compress(screen, target: 1_000_000, in: "easy-screen")
        defer { try? FileManager.default.removeItem(at: directory) }
        let messages = result.notes.messages
        #expect(
            messages.first
                == "H.264 at the normal quality (CRF 23), 1280x720, 30 fps: it fits the target without spending all of it",
            "\(messages)")
        #expect(
            messages.contains {
                $0.hasPrefix("made at the normal quality (x264 veryfast) rather than at the target's average bitrate")
            }, "\(messages)")
        let settings = try Self.x264Settings(path)
        #expect(settings.contains(" rc=crf ") && settings.contains(" crf=23.0 "), "\(settings)")
        // veryfast: sub-pixel refinement 2 and one reference (medium has 7 and 3).
        #expect(settings.contains(" subme=2 ") && settings.contains(" ref=1 "), "\(settings)")
        #expect(try VideoCompressCeilingTests.size(path) <= 1_000_000)
        let ssim = try #require(try MediaTool.ssim(path, reference: screen))
        #expect(ssim > 0.99, "SSIM \(ssim)")

        // 1.3 MB: bits per pixel choose 540 lines, the encode starts at 720 (the largest), and its
        // first frames keep it there: the note says it stayed one size above the plan.
        let (above, abovePath, aboveFolder) = try await compress(screen, target: 1_300_000, in: "easy-above")
        defer { try? FileManager.default.removeItem(at: aboveFolder) }
        #expect(
            above.notes.messages.contains {
                $0.hasPrefix("made 1280x720, one size above what its bits per pixel chose (540 lines)")
            }, "\(above.notes.messages)")
        #expect(try MediaTool.probe(abovePath).video?.int("height") == 720)
        #expect(try VideoCompressCeilingTests.size(abovePath) <= 1_300_000)
    }

    @Test("camera footage under a tight target keeps x264's average bitrate at the fast preset")
    func cameraFootage() async throws {
        // bikes.mp4: 10 s of real footage; 120 kB is under half its normal-quality size.
        let (result, path, directory) = try await compress(
            Fixtures.path("video/bikes.mp4"), target: 120_000, in: "easy-camera")
        defer { try? FileManager.default.removeItem(at: directory) }
        #expect(result.notes.messages.first?.hasPrefix("H.264 at ") == true, "\(result.notes.messages)")
        #expect(!result.notes.messages.contains { $0.hasPrefix("made at the normal quality") })
        let settings = try Self.x264Settings(path)
        #expect(settings.contains(" rc=abr ") && settings.contains(" subme=6 "), "\(settings)")
        #expect(try VideoCompressCeilingTests.size(path) <= 120_000)
    }

    @Test(
        "a picture easy at first and hard after: the normal quality stops once its packets pass the budget, and the target's bitrate makes the file"
    )
    func easyThenHard() async throws {
        let directory = try Fixtures.temporaryDirectory("easy-then-hard")
        defer { try? FileManager.default.removeItem(at: directory) }
        // 3 s of a still white page, then 3 s of grainy test card: 180 frames of 360p30.
        let clip = directory.appendingPathComponent("still then grain.mp4").path
        let made = try MediaTool.run(
            "ffmpeg",
            [
                "-v", "error", "-y", "-f", "lavfi", "-i", "color=c=white:s=640x360:r=30:d=3", "-f", "lavfi", "-i",
                "testsrc2=s=640x360:r=30:d=3", "-filter_complex",
                "[1:v]noise=alls=30:allf=t[n];[0:v][n]concat=n=2:v=1:a=0,format=yuv420p", "-c:v", "libx264",
                "-preset", "ultrafast", "-crf", "20", clip,
            ])
        #expect(made.status == 0, "\(made.errors)")
        let log = EncodeLog()
        var request = VideoCompressRequest(
            input: clip, targetBytes: 150_000, output: OutputLocation(directory: directory.path))
        request.encodeLog = log
        let result = try await runJob(VideoConverter.compress(request)).result.get()
        let messages = result.notes.messages
        #expect(messages.first?.hasPrefix("H.264 at ") == true, "\(messages)")
        #expect(
            messages.contains { $0.hasPrefix("the normal quality (CRF 23) would come out at about") }, "\(messages)")
        let path = try outputPath(result)
        #expect(try VideoCompressCeilingTests.size(path) <= 150_000)
        // The watch's sample, the normal quality stopped partway (not run to its 180th frame, as
        // before it stopped once past the budget), then the encode kept.
        let encoded = log.packetsPerEncode
        #expect(encoded.count == 3 && encoded[1] < 150 && encoded.last == 180, "\(encoded)")
    }
}
