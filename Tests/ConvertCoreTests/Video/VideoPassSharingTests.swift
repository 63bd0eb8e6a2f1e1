import Foundation
import Synchronization
import Testing

@testable import ConvertCore
@testable import ConvertMedia

/// Compress and convert run their passes through the same ``VideoJob`` pipeline (one place
/// stages, pumps and commits), so a cancellation in the middle of any pass of either leaves
/// nothing behind: no staged output, no x264 statistics, nothing still listed as being written.
@Suite("video jobs: compress and convert share one pass pipeline", .serialized)
struct VideoPassSharingTests {
    /// (label, the stage whose progress past 5 % cancels, the job's blocking body).
    typealias Body = @Sendable (String, CancellationFlag, ProgressReporter) throws(ConvertError) -> JobResult
    static let cases: [(String, JobStage, Body)] = [
        (
            "convert to HEVC, mid-encode", .encoding,
            { directory, flag, reporter throws(ConvertError) in
                let request = VideoRequest(
                    input: Fixtures.generated("video-long.mp4"), codec: .hevc,
                    output: OutputLocation(directory: directory))
                return try VideoJob.run(
                    input: request.input, output: request.output, maxPixels: request.maxPixels,
                    plan: { media throws(ConvertError) in try VideoPlanner.plan(request, media: media) },
                    cancellation: flag, reporter: reporter)
            }
        ),
        (
            "convert to AV1 (SVT-AV1), mid-encode", .encoding,
            { directory, flag, reporter throws(ConvertError) in
                let request = VideoRequest(
                    input: Fixtures.generated("video-long.mp4"), container: .webm, codec: .av1, maxHeight: 144,
                    output: OutputLocation(directory: directory))
                return try VideoJob.run(
                    input: request.input, output: request.output, maxPixels: request.maxPixels,
                    plan: { media throws(ConvertError) in try VideoPlanner.plan(request, media: media) },
                    cancellation: flag, reporter: reporter)
            }
        ),
        (
            "compress, mid encode", .encoding,
            { directory, flag, reporter throws(ConvertError) in
                try VideoCompressor.run(
                    VideoCompressRequest(
                        input: Fixtures.generated("video-long.mp4"), targetBytes: 600_000,
                        output: OutputLocation(directory: directory)),
                    cancellation: flag, reporter: reporter)
            }
        ),
        (
            "compress, mid retry", .retrying,
            { directory, flag, reporter throws(ConvertError) in
                var request = VideoCompressRequest(
                    input: Fixtures.generated("video-long.mp4"), targetBytes: 600_000,
                    output: OutputLocation(directory: directory))
                // Aimed 60 % high, the first encode comes out over and the retry runs.
                request.firstBitrateFactor = 1.6
                return try VideoCompressor.run(request, cancellation: flag, reporter: reporter)
            }
        ),
    ]

    /// The job's body runs here with a reporter whose observer sees each progress event on the
    /// pump's own thread, while the pass is still writing: a consumer of the buffered event
    /// stream can lag a whole pass behind on a loaded machine.
    @Test("a cancellation mid-pass leaves no temporaries", arguments: 0..<cases.count)
    func cancelledPassLeavesNothing(_ index: Int) throws {
        let (label, stage, body) = Self.cases[index]
        let directory = try Fixtures.temporaryDirectory("pass-cancel-\(index)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let flag = CancellationFlag()
        let sawTemporary = Mutex(false)
        let reporter = ProgressReporter { progress in
            guard progress.stage == stage, progress.fraction > 0.05 else { return }
            // The pass is really writing: its staged file is there when the cancel arrives.
            let staged = fileNames(in: directory).contains { $0.hasSuffix(StagedOutput.partialSuffix) }
            sawTemporary.withLock { seen in
                if staged && !seen { flag.cancel() }
                seen = seen || staged
            }
        }
        var outcome: ConvertError?
        do {
            let result = try body(directory.path, flag, reporter)
            Issue.record("\(label): the job did not fail: \(result)")
        } catch {
            outcome = error
        }
        #expect(sawTemporary.withLock { $0 }, "\(label): no staged file seen during the pass")
        #expect(outcome?.category == .cancelled, "\(label)")
        #expect(fileNames(in: directory).isEmpty, "\(label): \(fileNames(in: directory))")
        #expect(!LiveTemporaries.current.contains { $0.hasPrefix(directory.path + "/") }, "\(label)")
    }

    @Test(
        "compress's encode is staged like any output: a locked .partial beside the destination, no other working file, gone afterwards"
    )
    func encodeIsStaged() throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let duringPassOne = Mutex<Set<String>>([])
        // Observed on the pump's thread, while the encode writes (see cancelledPassLeavesNothing).
        let reporter = ProgressReporter { progress in
            guard progress.stage == .encoding, progress.fraction > 0.05 else { return }
            let names = fileNames(in: directory)
            duringPassOne.withLock { $0.formUnion(names) }
        }
        let result = try VideoCompressor.run(
            VideoCompressRequest(
                input: Fixtures.generated("video-long.mp4"), targetBytes: 600_000,
                output: OutputLocation(directory: directory.path)),
            cancellation: CancellationFlag(), reporter: reporter)
        let duringPassOneNames = duringPassOne.withLock { $0 }
        // The staged output, named after the destination, and nothing else: no statistics, no trial.
        #expect(
            duringPassOneNames.contains {
                $0.hasPrefix(".video-long.mp4.offconvert-") && $0.hasSuffix(StagedOutput.partialSuffix)
            })
        #expect(
            duringPassOneNames.allSatisfy { $0.hasSuffix(StagedOutput.partialSuffix) }, "\(duringPassOneNames.sorted())"
        )
        #expect(fileNames(in: directory) == ["video-long.mp4"])
        #expect(try #require(result.outputs.first).byteCount <= 600_000)
    }
}
