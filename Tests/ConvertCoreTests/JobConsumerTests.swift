import Foundation
import Synchronization
import Testing

@testable import ConvertCore
@testable import ConvertMedia

/// What a host app does with a job: follow its progress from UI code, watch it from several
/// places at once, cancel it and find nothing left behind once it says it has ended.
@Suite("job consumers")
struct JobConsumerTests {
    static let result = JobResult(
        inputPath: "in.heic", outputs: [OutputFile(path: "/nonexistent/out.jpg", byteCount: 1)])

    /// A job that reports encoding at 10%, 20%, ... 100%, pausing between steps so that its
    /// consumers are really waiting while it runs. It has an admission of its own: behind the
    /// shared one (full of other suites' conversions) it would first report `.queued`.
    static func steppedJob() -> ConversionJob {
        ConversionJob.start(path: "in.heic", admission: JobAdmission(limit: 1, maximum: 1)) { reporter in
            for step in 1...10 {
                try? await Task.sleep(for: .milliseconds(5))
                reporter.report(.encoding, Double(step) / 10)
            }
            return result
        }
    }

    static let steppedEvents: [JobEvent] =
        (1...10).map { .progress(JobProgress(stage: .encoding, fraction: Double($0) / 10)) } + [.finished(result)]

    /// A view model as an app writes it: main-actor state updated from the progress closure.
    @MainActor final class ProgressModel {
        var fractions: [Double] = []
        var outputs: [String] = []

        func run(_ job: ConversionJob) async throws(ConvertError) {
            let result = try await job.result { progress in self.fractions.append(progress.fraction) }
            outputs = result.outputs.map(\.path)
        }
    }

    @Test("a @MainActor model is updated from result's progress closure, on the main actor")
    @MainActor func progressOnMainActor() async throws {
        let model = ProgressModel()
        try await model.run(Self.steppedJob())
        #expect(model.fractions == [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0])
        #expect(model.outputs == ["/nonexistent/out.jpg"])
    }

    @Test("an actor's own state is updated from the progress closure")
    func progressOnAnActor() async throws {
        actor Counter {
            var seen = 0
            func follow(_ job: ConversionJob) async throws(ConvertError) -> Int {
                _ = try await job.result { _ in self.seen += 1 }
                return seen
            }
        }
        #expect(try await Counter().follow(Self.steppedJob()) == 10)
    }

    @Test("every consumer gets every event: two iterations and result() at once, and one after the end")
    func broadcast() async throws {
        let job = Self.steppedJob()
        async let first = Self.collect(job)
        async let second = Self.collect(job)
        let fractions = Mutex<[Double]>([])
        let result = try await job.result { progress in fractions.withLock { $0.append(progress.fraction) } }
        #expect(await first == Self.steppedEvents)
        #expect(await second == Self.steppedEvents)
        #expect(fractions.withLock { $0 } == [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0])
        #expect(result == Self.result)
        // A consumer that starts after the end still gets the whole story.
        #expect(await Self.collect(job) == Self.steppedEvents)
    }

    @Test("two consumers of a real photo conversion see the same events, ending with one .finished")
    func broadcastPhoto() async throws {
        let folder = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let job = PhotoConverter.convert(
            PhotoRequest(
                inputPath: Fixtures.path("photos/IMG_5195.HEIC"), format: .jpeg,
                outputDirectory: folder.path))
        async let first = Self.collect(job)
        async let second = Self.collect(job)
        let (a, b) = await (first, second)
        #expect(a == b)
        #expect(a.filter(\.isTerminal).count == 1)
        #expect(a.lastResult?.outputs.map(\.path) == [folder.appendingPathComponent("IMG_5195.jpg").path])
        #expect(a.count >= 3, "decode, encode and write progress, then the result: \(a)")
    }

    @Test("a cancelled consumer still gets the terminal event, sent after the job's teardown")
    func cancelledConsumerSeesTeardown() async throws {
        let folder = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let partial = folder.appendingPathComponent(".out.jpg.partial").path
        let job = ConversionJob.start(path: "in.heic", admission: JobAdmission(limit: 1, maximum: 1)) { reporter in
            _ = FileManager.default.createFile(atPath: partial, contents: Data([1]))
            reporter.report(.encoding, 0.5)
            while !Task.isCancelled { await Task.yield() }
            // A slow teardown: the consumer must not be told the job ended before it is done.
            usleep(200_000)
            try? FileManager.default.removeItem(atPath: partial)
            throw ConvertError.cancelled(path: "in.heic")
        }
        let consumer = Task { () -> [JobEvent] in
            var events: [JobEvent] = []
            for await event in job.events {
                events.append(event)
                if case .progress = event { withUnsafeCurrentTask { $0?.cancel() } }
            }
            // Nothing is left once the stream has ended.
            #expect(!FileManager.default.fileExists(atPath: partial))
            return events
        }
        #expect(
            await consumer.value == [
                .progress(JobProgress(stage: .encoding, fraction: 0.5)),
                .failed(.cancelled(path: "in.heic")),
            ])
    }

    @Test("cancelling a photo's consumer ends with one terminal event and only its outputs on disk")
    func cancelledPhotoConsumer() async throws {
        let folder = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let job = PhotoConverter.convert(
            PhotoRequest(
                inputPath: Fixtures.path("photos/IMG_3853.HEIC"), format: .png,
                outputDirectory: folder.path))
        let consumer = Task { () -> [JobEvent] in
            var events: [JobEvent] = []
            for await event in job.events {
                events.append(event)
                withUnsafeCurrentTask { $0?.cancel() }
            }
            return events
        }
        let events = await consumer.value
        let terminal = events.filter(\.isTerminal)
        #expect(terminal.count == 1)
        // The job may have placed its output just before the cancellation reached it; then the
        // file is there and the event says so. Nothing else, no `.partial`, either way.
        switch terminal.first {
        case .finished(let result)?:
            #expect(fileNames(in: folder) == result.outputs.map { ($0.path as NSString).lastPathComponent })
        case .failed(let error)?:
            #expect(error.category == .cancelled)
            #expect(fileNames(in: folder) == [])
        default:
            Issue.record("no terminal event: \(events)")
        }
    }

    @Test("cancelling a two-pass compress in pass 1 leaves no .partial or x264 statistics once it has ended")
    func cancelledCompress() async throws {
        let folder = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let request = VideoCompressRequest(
            input: Fixtures.generated("video-long.mp4"), targetBytes: 600_000,
            output: OutputLocation(directory: folder.path))
        let iterated = VideoConverter.compress(request)
        let iterating = Task { () -> [JobEvent] in
            var events: [JobEvent] = []
            for await event in iterated.events { events.append(event) }
            return events
        }
        // Cancelled once the encode's files exist, not when the consumer sees an event: on a loaded
        // machine the consumer's task may run seconds behind the job, which had finished by then.
        let cancelledWhileWorking = await Self.cancel(iterating, whenWorkingIn: folder)
        let events = await iterating.value
        #expect(events.filter(\.isTerminal).count == 1)
        #expect(Self.workingFiles(in: folder).isEmpty, "\(fileNames(in: folder))")
        // Seen at work and cancelled then: the job ends cancelled, with nothing in the folder. (A
        // machine so loaded that the encode never showed in 10 minutes proves only the line above.)
        if cancelledWhileWorking {
            #expect(events.last == .failed(.cancelled(path: request.input)))
            #expect(fileNames(in: folder) == [])
        }
        for name in fileNames(in: folder) {
            try? FileManager.default.removeItem(at: folder.appendingPathComponent(name))
        }

        let awaited = VideoConverter.compress(request)
        let awaiting = Task { () -> ConvertError? in
            do throws(ConvertError) {
                _ = try await awaited.result()
                return nil
            } catch {
                return error
            }
        }
        let awaitedWhileWorking = await Self.cancel(awaiting, whenWorkingIn: folder)
        let outcome = await awaiting.value
        #expect(Self.workingFiles(in: folder).isEmpty, "\(fileNames(in: folder))")
        if awaitedWhileWorking {
            #expect(outcome == .cancelled(path: request.input))
            #expect(fileNames(in: folder) == [])
        }
    }

    /// Cancels `task` as soon as a compress is at work in `folder` (its staged `.partial` output or
    /// x264's statistics are there), polling every 2 ms for at most 10 minutes; whether it did. The poll
    /// runs on a thread of its own and cancels from there: other suites sometimes hold the
    /// cooperative pool for seconds, and a poll that waited for it would let the encode finish first.
    static func cancel<Success: Sendable>(_ task: Task<Success, Never>, whenWorkingIn folder: URL) async -> Bool {
        await withCheckedContinuation { continuation in
            Thread.detachNewThread {
                let deadline = Date().addingTimeInterval(600)
                while Date() < deadline {
                    if fileNames(in: folder).contains(where: { $0.hasSuffix(".partial") || $0.contains(".stats") }) {
                        task.cancel()
                        continuation.resume(returning: true)
                        return
                    }
                    usleep(2_000)
                }
                continuation.resume(returning: false)
            }
        }
    }

    /// A compress's working files in `folder`: its staged output, and any hidden file of ours.
    static func workingFiles(in folder: URL) -> [String] {
        fileNames(in: folder).filter { $0.hasSuffix(".partial") || $0.contains(StagedOutput.marker) }
    }

    static func collect(_ job: ConversionJob) async -> [JobEvent] {
        var events: [JobEvent] = []
        for await event in job.events { events.append(event) }
        return events
    }
}

extension [JobEvent] {
    fileprivate var lastResult: JobResult? {
        if case .finished(let result)? = last { return result }
        return nil
    }
}
