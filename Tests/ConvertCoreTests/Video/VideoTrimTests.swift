import Foundation
import Testing

@testable import ConvertCore
@testable import ConvertMedia

/// Issue 18, trimming: a GIF that runs past the end says how long it is, a long default GIF warns.
@Suite("Video trimming")
struct VideoTrimTests {
    @Test("gif --start 12 --duration 5 on a 14 s clip makes 2 s and says so")
    func gifPastTheEnd() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let request = GIFRequest(
            input: Fixtures.generated("fidelity-14s.mp4"), start: 12, duration: 5, framesPerSecond: 10,
            width: 64, output: OutputLocation(directory: directory.path))
        let result = try await VideoConverter.gif(request).result()
        #expect(result.notes.messages.contains("made 2 s, not 5 s: the video ends 2 s after the start"))
        let output = try outputPath(result)
        let duration = try #require(try MediaTool.probe(output).duration)
        #expect(abs(duration - 2) < 0.25)
    }

    @Test("A GIF of a 14 s clip made without --duration warns about its size; one with --duration does not")
    func longDefaultGIF() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let input = Fixtures.generated("fidelity-14s.mp4")
        let long = try await VideoConverter.gif(
            GIFRequest(
                input: input, framesPerSecond: 2, width: 32,
                output: OutputLocation(directory: directory.path))
        ).result()
        #expect(
            long.notes.contains(JobNote(.largeGIF, "warning: a 14 s GIF is large", detail: .largeGIF(seconds: 14))),
            "\(long.notes)")
        let short = try await VideoConverter.gif(
            GIFRequest(
                input: input, duration: 3, framesPerSecond: 2, width: 32,
                output: OutputLocation(directory: directory.path))
        ).result()
        #expect(!short.notes.messages.contains { $0.hasPrefix("warning") || $0.hasPrefix("made") })
    }
}
