import Foundation
import Testing
@testable import ConvertCore
@testable import ConvertMedia

/// SVT-AV1 keeps its CPU topology in one unguarded global that every encoder's set-up fills in and
/// every teardown frees, whatever other encoders are alive: AV1 jobs running side by side in one
/// process must not crash, which ``CodecEncoder`` makes sure of by serialising both steps.
@Suite("SVT-AV1 encoders side by side")
struct SVTLifecycleTests {
    @Test("four AV1 conversions at once, four times over, all finish", .enabled(if: FFmpeg.hasEncoder(named: "libsvtav1")))
    func concurrentAV1Jobs() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let input = Fixtures.path("video/sample.mp4")
        for round in 0..<4 {
            let outputs = try await withThrowingTaskGroup(of: String.self) { group in
                for job in 0..<4 {
                    let folder = directory.appendingPathComponent("r\(round)-j\(job)")
                    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
                    group.addTask {
                        let request = VideoRequest(
                            input: input, container: .webm, codec: .av1, maxHeight: 72, output: OutputLocation(directory: folder.path))
                        return try outputPath(try await VideoConverter.convert(request).result())
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(outputs.count == 4)
            for output in outputs { #expect(try MediaTool.probe(output).streams.first?.codecName == "av1") }
        }
    }
}
