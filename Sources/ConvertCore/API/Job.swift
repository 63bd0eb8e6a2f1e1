import Synchronization

/// One running conversion: its event stream and a way to wait for it to be completely done.
///
/// Cancel the task that iterates ``events`` (or call ``cancel()``, which does the same): the
/// engine stops decoding and encoding, removes any half-written file, and the stream ends with
/// `.failed` carrying a `.cancelled` error if the consumer is still listening.
public struct ConversionJob: Sendable {
    /// Progress events, then exactly one terminal event.
    public let events: AsyncStream<JobEvent>
    private let worker: Task<Void, Never>

    init(events: AsyncStream<JobEvent>, worker: Task<Void, Never>) {
        self.events = events
        self.worker = worker
    }

    /// Requests cancellation of the job.
    public func cancel() { worker.cancel() }

    /// Returns once the job has ended and its cleanup (removing partial files) is finished.
    public func completion() async { await worker.value }

    /// Consumes the events, forwarding progress to `onProgress`, and returns the result or
    /// throws the job's error.
    public func result(onProgress: (JobProgress) -> Void = { _ in }) async throws(ConvertError) -> JobResult {
        var terminal: JobEvent?
        for await event in events {
            switch event {
            case .progress(let progress): onProgress(progress)
            default: terminal = event
            }
        }
        await completion()
        switch terminal {
        case .finished(let result)?: return result
        case .failed(let error)?: throw error
        default: throw .cancelled()
        }
    }

    /// Starts `body` in a task of its own and returns the job that streams its events.
    static func start(
        path: String,
        _ body: @escaping @Sendable (ProgressReporter) async throws -> JobResult
    ) -> ConversionJob {
        let (stream, continuation) = AsyncStream<JobEvent>.makeStream(bufferingPolicy: .unbounded)
        let worker = Task {
            let reporter = ProgressReporter(continuation)
            do {
                let result = try await body(reporter)
                continuation.yield(.finished(result))
            } catch {
                // An interrupted read or write surfaces as whatever the C library makes of it (an
                // I/O error, a short read that looks like truncation); once the job is cancelled,
                // cancellation is the cause to report.
                continuation.yield(.failed(Task.isCancelled ? .cancelled(path: path) : .wrapping(error, path: path)))
            }
            continuation.finish()
        }
        continuation.onTermination = { termination in
            if case .cancelled = termination { worker.cancel() }
        }
        return ConversionJob(events: stream, worker: worker)
    }
}

/// Sends progress events for one job, dropping any that would make the fraction go backwards.
final class ProgressReporter: Sendable {
    private let continuation: AsyncStream<JobEvent>.Continuation
    private let last = Mutex<JobProgress?>(nil)

    init(_ continuation: AsyncStream<JobEvent>.Continuation) {
        self.continuation = continuation
    }

    /// Reports that the job is in `stage` with `fraction` (0...1) of the whole job done.
    func report(_ stage: JobStage, _ fraction: Double) {
        var progress = JobProgress(stage: stage, fraction: fraction)
        let send: Bool = last.withLock { previous in
            if let previous {
                progress.fraction = max(progress.fraction, previous.fraction)
                // Skip tiny steps within one stage: a terminal redraws at most ~100 times a job.
                if previous.stage == progress.stage && progress.fraction - previous.fraction < 0.005
                    && progress.fraction < 1
                {
                    return false
                }
            }
            previous = progress
            return true
        }
        if send { continuation.yield(.progress(progress)) }
    }
}
