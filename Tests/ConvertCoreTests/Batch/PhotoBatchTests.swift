import ConvertBatch
import ConvertCore
import Foundation
import Synchronization
import Testing

/// Issue #53: the public batch API an app converts many photos with: a queue under a memory
/// budget, one progress, each photo's outcome, and resume from a journal the app places.
@Suite("PhotoBatch: many photos, one call, resumable")
struct PhotoBatchTests {
    /// `count` photos (real JPEG, HEIC and WebP files, names with spaces) in a new folder, plus a
    /// text file named as a photo at position 3 when `withBadOne`.
    static func inputs(_ count: Int, in folder: URL, withBadOne: Bool = false) throws -> [String] {
        let sources = ["photos/tokyo.jpg", "photos/zPug_3.heic", "photos/flower2-hp-srgb.webp", "photos/DSCN0010.jpg"]
        var paths: [String] = []
        for index in 0..<count {
            let source = sources[index % sources.count]
            let path = folder.appendingPathComponent("photo \(index).\((source as NSString).pathExtension)").path
            if withBadOne && index == 3 {
                try Data("not a photo".utf8).write(to: URL(fileURLWithPath: path))
            } else {
                try FileManager.default.copyItem(atPath: Fixtures.path(source), toPath: path)
            }
            paths.append(path)
        }
        return paths
    }

    /// Every progress value a run reported, in order.
    final class Recorder: Sendable {
        let progress = Mutex<[BatchProgress]>([])
        let items = Mutex<[PhotoBatchItem]>([])
    }

    static func run(_ batch: PhotoBatch, recorder: Recorder) async throws -> [PhotoBatchItem] {
        try await batch.run(
            limits: ConversionLimits(codecThreads: 2),
            onProgress: { value in recorder.progress.withLock { $0.append(value) } },
            onItem: { item in recorder.items.withLock { $0.append(item) } })
    }

    @Test("12 photos with one damaged: 11 converted, 1 failed, progress in order to 100 %; a second run redoes nothing")
    func convertsThenSkips() async throws {
        let folder = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let inbox = folder.appendingPathComponent("in box")
        let outbox = folder.appendingPathComponent("out box").path
        try FileManager.default.createDirectory(at: inbox, withIntermediateDirectories: true)
        let paths = try Self.inputs(12, in: inbox, withBadOne: true)
        let batch = PhotoBatch(
            paths.map { PhotoRequest(inputPath: $0, format: .jpeg, outputDirectory: outbox) },
            memoryBudget: 64 << 20, concurrency: 3, journalFolder: folder.appendingPathComponent("state").path)

        let recorder = Recorder()
        let items = try await Self.run(batch, recorder: recorder)
        #expect(items.map(\.index) == Array(0..<12))
        #expect(recorder.items.withLock { $0.count } == 12, "one item call a photo")
        for item in items {
            switch item.outcome {
            case .converted(let result):
                #expect(result.outputs.count == 1)
                #expect(FileManager.default.fileExists(atPath: result.outputs[0].path))
            case .failed(let error):
                #expect(item.index == 3)
                #expect(error.category == .input, "\(error)")
            default: Issue.record("photo \(item.index): \(item.outcome)")
            }
        }
        let progress = recorder.progress.withLock { $0 }
        let fractions = progress.map(\.fraction)
        #expect(fractions == fractions.sorted(), "progress went backwards")
        #expect(progress.last == BatchProgress(fraction: 1, ended: 12, total: 12))
        let written = try FileManager.default.contentsOfDirectory(atPath: outbox).sorted()
        #expect(written.count == 11)
        #expect(Set(written) == Set((0..<12).filter { $0 != 3 }.map { "photo \($0).jpg" }))

        // The same batch again: what is done stays done (no "photo 0 (2).jpg"); the damaged one
        // is tried again.
        let again = try await Self.run(batch, recorder: Recorder())
        #expect(again.filter { if case .alreadyDone = $0.outcome { true } else { false } }.count == 11)
        #expect(try FileManager.default.contentsOfDirectory(atPath: outbox).sorted() == written)
    }

    @Test("a batch cancelled mid-way, run again: every photo converted exactly once")
    func cancelledThenResumed() async throws {
        let folder = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let outbox = folder.appendingPathComponent("out").path
        let paths = try Self.inputs(16, in: folder)
        let batch = PhotoBatch(
            paths.map { PhotoRequest(inputPath: $0, format: .png, outputDirectory: outbox) }, concurrency: 2,
            journalFolder: folder.appendingPathComponent("state").path)
        let recorder = Recorder()
        let first = Task { try await Self.run(batch, recorder: recorder) }
        // Cancelled once four photos have ended.
        while recorder.items.withLock({ $0.count }) < 4 { try await Task.sleep(for: .milliseconds(5)) }
        first.cancel()
        let interrupted = try await first.value
        let cancelled = interrupted.filter { if case .cancelled = $0.outcome { true } else { false } }.count
        #expect(cancelled > 0, "the cancel came after every photo ended")
        let resumed = try await Self.run(batch, recorder: Recorder())
        #expect(resumed.allSatisfy { !$0.outputs.isEmpty }, "\(resumed.map(\.outcome))")
        let done = resumed.filter { if case .alreadyDone = $0.outcome { true } else { false } }.count
        #expect(done == 16 - cancelled)
        let written = try FileManager.default.contentsOfDirectory(atPath: outbox)
        #expect(Set(written) == Set((0..<16).map { "photo \($0).png" }), "\(written.sorted())")
    }

    @Test("the estimate of a 12 MP HEIC is its picture's size at least, of a missing file 0")
    func estimates() async {
        let twelve = await PhotoBatch.estimatedBytes(
            for: PhotoRequest(inputPath: Fixtures.path("photos/IMG_3853.HEIC"), format: .png))
        #expect(twelve > 4032 * 3024 * 3)
        #expect(await PhotoBatch.estimatedBytes(for: PhotoRequest(inputPath: "/nonexistent.heic", format: .png)) == 0)
    }
}
