/// One running conversion: its events and a way to wait for it to be completely done.
///
/// Any number of consumers can follow a job: each iteration of ``events`` gets every event, and
/// ``result(isolation:onProgress:)`` is one more consumer. Cancel a task that consumes the job
/// (or call ``cancel()``): the engine stops decoding and encoding, removes any half-written file,
/// and only then sends the terminal event, so a consumer that sees it (or whose `result` throws)
/// finds nothing left behind.
public struct ConversionJob: Sendable {
    /// Progress events, then exactly one terminal event; every iteration gets all of them.
    public let events: JobEvents
    /// The job's work; its value is the terminal event, also when nobody was listening for it.
    private let worker: Task<JobEvent, Never>

    private init(events: JobEvents, worker: Task<JobEvent, Never>) {
        self.events = events
        self.worker = worker
    }

    /// Requests cancellation of the job.
    public func cancel() { worker.cancel() }

    /// Returns once the job has ended and its cleanup (removing partial files) is finished: when
    /// its terminal event has been sent.
    public func completion() async { _ = await worker.value }

    /// Follows the job, calling `onProgress` with each progress event on the caller's actor (so a
    /// `@MainActor` model can update itself from it), and returns the result or throws the job's
    /// error.
    ///
    /// The outcome is the job's own, even when the calling task is cancelled: the cancellation
    /// reaches the job, and a job that had already put its output in place returns that output
    /// (the file exists, so the caller must know about it), one that stopped throws `.cancelled`
    /// after removing what it had started writing.
    public func result(
        isolation: isolated (any Actor)? = #isolation,
        onProgress: (JobProgress) -> Void = { _ in }
    ) async throws(ConvertError) -> JobResult {
        for await event in events {
            switch event {
            case .progress(let progress): onProgress(progress)
            case .finished(let result): return result
            case .failed(let error): throw error
            }
        }
        preconditionFailure("a job's events end with its terminal event")
    }

    /// Starts `body` in a task of its own, once `admission` lets it run (reporting
    /// ``JobStage/queued`` while it waits), and returns the job that sends its events. A job
    /// cancelled while it waits ends with `.cancelled` without running `body`.
    package static func start(
        path: String,
        admission: JobAdmission = .shared,
        _ body: @escaping @Sendable (ProgressReporter) async throws -> JobResult
    ) -> ConversionJob {
        let log = JobEventLog()
        let worker = Task {
            let reporter = ProgressReporter { log.send(.progress($0)) }
            let terminal: JobEvent
            do {
                terminal = .finished(
                    try await admission.run(onWait: { reporter.report(.queued, 0) }) {
                        try await body(reporter)
                    })
            } catch {
                // An interrupted read or write surfaces as whatever the C library makes of it (an
                // I/O error, a short read that looks like truncation); once the job is cancelled,
                // cancellation is the cause to report.
                terminal = .failed(Task.isCancelled ? .cancelled(path: path) : .wrapping(error, path: path))
            }
            // `body` returns only after its teardown: staged outputs and pass statistics are gone.
            log.send(terminal)
            return terminal
        }
        return ConversionJob(events: JobEvents(log: log, cancel: { worker.cancel() }), worker: worker)
    }
}

/// Sends progress events for one job, dropping any that would make the fraction go backwards.
package final class ProgressReporter: Sendable {
    private let send: @Sendable (JobProgress) -> Void
    private let last = PthreadLocked<JobProgress?>(nil)

    /// `send` gets each kept event on the reporting thread, before any consumer of the job's
    /// events does: tests use it to act at an exact point of a job.
    package init(_ send: @escaping @Sendable (JobProgress) -> Void) {
        self.send = send
    }

    /// Reports that the job is in `stage` with `fraction` (0...1) of the whole job done.
    package func report(_ stage: JobStage, _ fraction: Double) {
        var progress = JobProgress(stage: stage, fraction: fraction)
        let keep: Bool = last.withLock { previous in
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
        guard keep else { return }
        send(progress)
    }
}
