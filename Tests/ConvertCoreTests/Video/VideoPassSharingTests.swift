import Foundation
import Testing

@testable import ConvertCore
@testable import ConvertMedia

/// Compress and convert run their passes through the same ``VideoJob`` pipeline (one place
/// stages, pumps and commits), so a cancellation in the middle of any pass of either leaves
/// nothing behind: no staged output, no x264 statistics, nothing still listed as being written.
@Suite("video jobs: compress and convert share one pass pipeline", .serialized)
struct VideoPassSharingTests {
    /// (label, the stage whose progress past 5 % cancels, the job).
    static let cases: [(String, JobStage, @Sendable (String) -> ConversionJob)] = [
        ("convert to HEVC, mid-encode", .encoding, { directory in
            VideoConverter.convert(VideoRequest(input: Fixtures.generated("video-long.mp4"), codec: .hevc,
                                                output: OutputLocation(directory: directory)))
        }),
        ("compress, mid pass 1", .pass(1, of: 2), { directory in
            VideoConverter.compress(VideoCompressRequest(input: Fixtures.generated("video-long.mp4"), targetBytes: 600_000,
                                                         output: OutputLocation(directory: directory)))
        }),
        ("compress, mid pass 2", .pass(2, of: 2), { directory in
            VideoConverter.compress(VideoCompressRequest(input: Fixtures.generated("video-long.mp4"), targetBytes: 600_000,
                                                         output: OutputLocation(directory: directory)))
        }),
    ]

    @Test("a cancellation mid-pass leaves no temporaries", arguments: 0..<cases.count)
    func cancelledPassLeavesNothing(_ index: Int) async throws {
        let (label, stage, start) = Self.cases[index]
        let directory = try Fixtures.temporaryDirectory("pass-cancel-\(index)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let job = start(directory.path)
        var events: [JobEvent] = []
        var sawTemporary = false
        for await event in job.events {
            events.append(event)
            if case .progress(let progress) = event, progress.stage == stage, progress.fraction > 0.05, !sawTemporary {
                // The pass is really writing: its staged file is there when the cancel arrives.
                sawTemporary = fileNames(in: directory).contains { $0.hasSuffix(StagedOutput.partialSuffix) }
                if sawTemporary { job.cancel() }
            }
        }
        await job.completion()
        #expect(sawTemporary, "\(label): no staged file seen during the pass")
        guard case .failed(let error)? = events.last else {
            Issue.record("\(label): the job did not fail: \(String(describing: events.last))")
            return
        }
        #expect(error.category == .cancelled, "\(label)")
        #expect(fileNames(in: directory).isEmpty, "\(label): \(fileNames(in: directory))")
        #expect(!LiveTemporaries.current.contains { $0.hasPrefix(directory.path + "/") }, "\(label)")
    }

    @Test("compress's pass 1 is staged like any output: a locked .partial beside the destination, gone afterwards")
    func firstPassIsStaged() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let job = VideoConverter.compress(VideoCompressRequest(
            input: Fixtures.generated("video-long.mp4"), targetBytes: 600_000, output: OutputLocation(directory: directory.path)))
        var duringPassOne: Set<String> = []
        var events: [JobEvent] = []
        for await event in job.events {
            events.append(event)
            if case .progress(let progress) = event, progress.stage == .pass(1, of: 2), progress.fraction > 0.05 {
                duringPassOne.formUnion(fileNames(in: directory))
            }
        }
        await job.completion()
        guard case .finished(let result)? = events.last else {
            Issue.record("the compress failed: \(String(describing: events.last))")
            return
        }
        // The staged pass and the statistics' locked owner, both named after the destination.
        #expect(duringPassOne.contains { $0.hasPrefix(".video-long.mp4.offconvert-") && $0.hasSuffix(StagedOutput.partialSuffix) })
        #expect(duringPassOne.contains { $0.hasPrefix(".video-long.mp4.offconvert-") && $0.hasSuffix(StagedOutput.statsSuffix) })
        #expect(fileNames(in: directory) == ["video-long.mp4"])
        #expect(try #require(result.outputs.first).byteCount <= 600_000)
    }
}
