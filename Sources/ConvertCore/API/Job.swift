import Synchronization

/// One running conversion: its event stream and a way to wait for it to be completely done.
///
/// Cancel the task that iterates ``events`` (or call ``cancel()``, which does the same): the
/// engine stops decoding and encoding, removes any half-written file, and the stream ends with
/// `.failed` carrying a `.cancelled` error if the consumer is still listening.
public struct ConversionJob: Sendable {
    /// Progress events, then exactly one terminal event.
    public let events: AsyncStream<JobEvent>
    /// The job's work; its value is the terminal event, also when nobody was listening for it.
    private let worker: Task<JobEvent, Never>

    package init(events: AsyncStream<JobEvent>, worker: Task<JobEvent, Never>) {
        self.events = events
        self.worker = worker
    }

    /// Requests cancellation of the job.
    public func cancel() { worker.cancel() }

    /// Returns once the job has ended and its cleanup (removing partial files) is finished.
    public func completion() async { _ = await worker.value }

    /// Consumes the events, forwarding progress to `onProgress`, and returns the result or
    /// throws the job's error.
    ///
    /// The outcome is the job's own, even when the calling task is cancelled: a job that had
    /// already put its output in place when the cancellation reached it returns that output
    /// (the file exists, so the caller must know about it), one that stopped throws `.cancelled`.
    public func result(onProgress: (JobProgress) -> Void = { _ in }) async throws(ConvertError) -> JobResult {
        for await event in events {
            if case .progress(let progress) = event { onProgress(progress) }
        }
        // Not the stream's last event: a cancelled consumer's stream ends at once and drops
        // the terminal event the job yields after that.
        switch await worker.value {
        case .finished(let result): return result
        case .failed(let error): throw error
        case .progress: preconditionFailure("a job's worker ends with its terminal event")
        }
    }

    /// Starts `body` in a task of its own and returns the job that streams its events.
    package static func start(
        path: String,
        _ body: @escaping @Sendable (ProgressReporter) async throws -> JobResult
    ) -> ConversionJob {
        let (stream, continuation) = AsyncStream<JobEvent>.makeStream(bufferingPolicy: .unbounded)
        let worker = Task {
            let reporter = ProgressReporter(continuation)
            let terminal: JobEvent
            do {
                terminal = .finished(try await body(reporter))
            } catch {
                // An interrupted read or write surfaces as whatever the C library makes of it (an
                // I/O error, a short read that looks like truncation); once the job is cancelled,
                // cancellation is the cause to report.
                terminal = .failed(Task.isCancelled ? .cancelled(path: path) : .wrapping(error, path: path))
            }
            continuation.yield(terminal)
            continuation.finish()
            return terminal
        }
        continuation.onTermination = { termination in
            if case .cancelled = termination { worker.cancel() }
        }
        return ConversionJob(events: stream, worker: worker)
    }
}

/// Sends progress events for one job, dropping any that would make the fraction go backwards.
package final class ProgressReporter: Sendable {
    private let continuation: AsyncStream<JobEvent>.Continuation
    private let last = Mutex<JobProgress?>(nil)
    private let observer: (@Sendable (JobProgress) -> Void)?

    /// `observer` sees each sent event on the reporting thread, before the stream's consumer
    /// does: tests use it to act at an exact point of a job, which the buffered stream cannot give.
    package init(_ continuation: AsyncStream<JobEvent>.Continuation, observer: (@Sendable (JobProgress) -> Void)? = nil) {
        self.continuation = continuation
        self.observer = observer
    }

    /// Reports that the job is in `stage` with `fraction` (0...1) of the whole job done.
    package func report(_ stage: JobStage, _ fraction: Double) {
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
        guard send else { return }
        observer?(progress)
        continuation.yield(.progress(progress))
    }
}
