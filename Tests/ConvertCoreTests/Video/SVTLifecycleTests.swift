import Foundation
import Synchronization
import Testing

@testable import ConvertCore
@testable import ConvertMedia
@testable import FFmpegLayer

/// SVT-AV1 keeps its CPU topology in one unguarded global that every encoder's set-up fills in and
/// every teardown frees, whatever other encoders are alive: AV1 jobs running side by side in one
/// process must not crash, which ``CodecEncoder`` makes sure of by serialising both steps.
@Suite("SVT-AV1 encoders side by side")
struct SVTLifecycleTests {
    @Test(
        "four AV1 conversions at once, four times over, all finish", .enabled(if: FFmpeg.hasEncoder(named: "libsvtav1"))
    )
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
                            input: input, container: .webm, codec: .av1, maxHeight: 72,
                            output: OutputLocation(directory: folder.path))
                        return try outputPath(try await VideoConverter.convert(request).result())
                    }
                }
                return try await group.reduce(into: [String]()) { $0.append($1) }
            }
            #expect(outputs.count == 4)
            for output in outputs { #expect(try MediaTool.probe(output).streams.first?.codecName == "av1") }
        }
    }

    /// A small SVT-AV1 encoder, opened.
    static func openedEncoder() throws -> CodecEncoder {
        let encoder = try CodecEncoder(name: "libsvtav1", path: "svt-lifecycle-test")
        encoder.configure(
            video: .init(
                width: 64, height: 64, pixelFormat: .yuv420p, sampleAspect: Rational(1, 1), timeBase: Rational(1, 30),
                frameRate: Rational(30, 1), color: nil, globalHeader: false))
        try encoder.open(options: [("preset", "12")])
        return encoder
    }

    /// SVT-AV1 1.4 waited forever, in its teardown and in a drain, for an encoder that was opened
    /// and given no frame (a job cancelled, or whose input failed, before its first frame). The
    /// body runs on a thread of its own so that a hang is reported rather than stopping the suite;
    /// the bound is minutes, for work that takes milliseconds.
    @Test(
        "an SVT-AV1 encoder given no frame drains at once and closes",
        .enabled(if: FFmpeg.hasEncoder(named: "libsvtav1")))
    func encoderWithoutFrames() throws {
        let done = DispatchSemaphore(value: 0)
        let drained = Mutex<CodecEncoder.Step?>(nil)
        Thread.detachNewThread {
            if let encoder = try? Self.openedEncoder(), let packet = try? Packet() {
                try? encoder.send(nil)
                drained.withLock { $0 = try? encoder.receive(into: packet) }
            }
            done.signal()
        }
        #expect(
            done.wait(timeout: .now() + 180) == .success, "opening, draining and freeing an idle SVT-AV1 encoder hung")
        #expect(drained.withLock { $0 } == .endOfStream)
        let closed = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            _ = try? Self.openedEncoder()
            closed.signal()
        }
        #expect(closed.wait(timeout: .now() + 180) == .success, "freeing an idle SVT-AV1 encoder hung")
    }
}
