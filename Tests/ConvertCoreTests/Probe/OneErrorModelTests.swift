import ConvertMedia
import Foundation
import Testing

/// The same broken input gets the same code from every public entry point: the photo probe, the
/// media probe (what `offconvert info` prints), the photo converter and the video converter.
@Suite("One error model")
struct OneErrorModelTests {
    /// Each public entry point, run on `path` until it throws.
    static let entryPoints: [(name: String, run: @Sendable (String, String) async throws(ConvertError) -> Void)] = [
        ("ImageProbe.probe", { path, _ throws(ConvertError) in _ = try ImageProbe.probeBlocking(path: path) }),
        ("MediaProbe.probe", { path, _ throws(ConvertError) in _ = try await MediaProbe.probe(path: path) }),
        (
            "PhotoConverter.convert",
            { path, folder throws(ConvertError) in
                _ = try await PhotoConverter.convert(
                    PhotoRequest(inputPath: path, format: .jpeg, outputDirectory: folder)
                ).result()
            }
        ),
        (
            "VideoConverter.convert",
            { path, folder throws(ConvertError) in
                _ = try await VideoConverter.convert(
                    VideoRequest(input: path, output: OutputLocation(directory: folder))
                ).result()
            }
        ),
    ]

    /// What to make at the input's path.
    enum Input {
        case bytes([UInt8])
        case folder
        case fifo
    }

    /// Makes `input` and expects `code` from every entry point.
    private func expectEverywhere(_ code: ConvertError.Code, _ made: Input, name: String) async throws {
        let folder = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = folder.appendingPathComponent(name)
        switch made {
        case .bytes(let bytes): try Data(bytes).write(to: input)
        case .folder: try FileManager.default.createDirectory(at: input, withIntermediateDirectories: false)
        case .fifo: try #require(mkfifo(input.path, 0o600) == 0)
        }
        let output = folder.appendingPathComponent("out")
        try FileManager.default.createDirectory(at: output, withIntermediateDirectories: false)
        for entry in Self.entryPoints {
            let error = await expectConvertError(code) { try await entry.run(input.path, output.path) }
            #expect(error?.code == code, "\(entry.name)")
            #expect(error?.category == code.category, "\(entry.name)")
            #expect(error?.message.contains(input.path) == true, "\(entry.name): \(error?.message ?? "")")
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: output.path).isEmpty)
    }

    @Test("an empty file is input.empty everywhere")
    func empty() async throws {
        try await expectEverywhere(.inputEmpty, .bytes([]), name: "empty.heic")
    }

    @Test("a folder is input.not-a-file everywhere")
    func folder() async throws {
        try await expectEverywhere(.inputNotAFile, .folder, name: "folder.mp4")
    }

    @Test("a FIFO is input.not-a-file everywhere, refused without waiting for a writer")
    func fifo() async throws {
        try await expectEverywhere(.inputNotAFile, .fifo, name: "pipe.mov")
    }
}
