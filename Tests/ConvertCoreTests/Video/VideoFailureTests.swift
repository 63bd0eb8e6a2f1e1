import Foundation
import Testing

@testable import ConvertCore
@testable import ConvertMedia

@Suite("Video inputs that cannot be converted")
struct VideoFailureTests {
    @Test("VVC (no decoder in FFmpeg 5.1) is refused as unsupported before any file is made")
    func vvc() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let job = VideoConverter.convert(
            .sendToWindows(
                Fixtures.path("broken/sample_vvc.mp4"),
                output: OutputLocation(directory: directory.path)))
        let error = await expectConvertError(.unsupportedCodec) { try await job.result() }
        #expect(error?.category == .unsupported)
        #expect(error?.message.contains("vvc1") == true)
        #expect(fileNames(in: directory).isEmpty)
    }

    @Test("A truncated clip is reported as incomplete and leaves nothing behind")
    func truncated() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let whole = try Data(contentsOf: URL(fileURLWithPath: Fixtures.generated("video-long.mp4")))
        // The generated clip has its index at the end: cutting it loses the index (unreadable);
        // a faststart copy cut in the middle keeps the index but loses half the data.
        let faststart = try await VideoConverter.convert(
            VideoRequest(
                input: Fixtures.generated("video-long.mp4"), container: .mp4,
                output: OutputLocation(directory: directory.path))
        ).result()
        let faststartData = try Data(contentsOf: URL(fileURLWithPath: try outputPath(faststart)))
        let cases: [(String, Data, ConvertError.Code)] = [
            ("index-lost.mp4", whole.prefix(whole.count / 2), .inputTruncated),
            ("data-lost.mp4", faststartData.prefix(faststartData.count / 2), .inputTruncated),
        ]
        let outputs = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: outputs) }
        for (name, data, code) in cases {
            let path = directory.appendingPathComponent(name).path
            try data.write(to: URL(fileURLWithPath: path))
            let job = VideoConverter.convert(.sendToWindows(path, output: OutputLocation(directory: outputs.path)))
            let error = await expectConvertError(code) { try await job.result() }
            #expect(error?.category == .input, "\(name)")
            #expect(fileNames(in: outputs).isEmpty)
        }
    }

    @Test("Not a video, a missing file: clear input errors")
    func notVideo() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let text = directory.appendingPathComponent("notes.mp4")
        try Data("this is not a movie".utf8).write(to: text)
        for (path, code) in [
            (text.path, ConvertError.Code.inputUnrecognised),
            (directory.appendingPathComponent("missing.mov").path, .inputMissing),
        ] {
            let job = VideoConverter.convert(.sendToWindows(path, output: OutputLocation(directory: directory.path)))
            let error = await expectConvertError(code) { try await job.result() }
            #expect(error?.category == .input)
        }
        #expect(fileNames(in: directory) == ["notes.mp4"])
    }

    @Test("box.mp4's damaged slice is concealed by a re-encode and its MP3 sound becomes AAC")
    func damagedSlice() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let input = Fixtures.path("broken/box.mp4")
        #expect(try MediaTool.decodeErrors(input).contains("non-intra slice"))
        let result = try await VideoConverter.convert(
            VideoRequest(
                input: input, container: .mp4, codec: .h264, maxHeight: 120,
                output: OutputLocation(directory: directory.path))
        ).result()
        let output = try outputPath(result)
        #expect(try MediaTool.probe(output).streams.map(\.codecName) == ["h264", "aac"])
        #expect(try MediaTool.decodeErrors(output) == "")
    }

    @Test("Requests out of range fail before anything is read")
    func badRequests() async throws {
        let input = Fixtures.path("video/sample.mp4")
        let requests: [(VideoRequest, ConvertError.Code)] = [
            (VideoRequest(input: input, crf: 99), .requestCrf),
            (VideoRequest(input: input, maxHeight: 4), .requestMaxHeight),
            (VideoRequest(input: input, container: .webm, codec: .h264), .requestCodec),
        ]
        for (request, code) in requests {
            let error = await expectConvertError(code) { try await VideoConverter.convert(request).result() }
            #expect(error?.category == .request)
        }
    }
}
