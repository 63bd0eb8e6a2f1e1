import Synchronization

/// A job's events, for any number of consumers: each iteration gets every event the job sends,
/// from its first progress event to its terminal one, whenever it starts.
///
/// Cancelling a task that is iterating cancels the job, and the iteration goes on until the
/// job's terminal event: the engine has stopped and removed its half-written files by then,
/// and the event says how the job ended (usually `.failed` with a `.cancelled` error; a job
/// whose output was already in place when the cancellation reached it ends `.finished`).
public struct JobEvents: AsyncSequence, Sendable {
    public typealias Element = JobEvent
    public typealias Failure = Never

    private let log: JobEventLog
    private let cancel: @Sendable () -> Void

    init(log: JobEventLog, cancel: @escaping @Sendable () -> Void) {
        self.log = log
        self.cancel = cancel
    }

    public func makeAsyncIterator() -> Iterator { Iterator(log: log, cancel: cancel) }

    /// Iterates one consumer's copy of the events; iterators do not share a position.
    public struct Iterator: AsyncIteratorProtocol, Sendable {
        public typealias Element = JobEvent
        public typealias Failure = Never

        private let log: JobEventLog
        private let cancel: @Sendable () -> Void
        private var position = 0

        init(log: JobEventLog, cancel: @escaping @Sendable () -> Void) {
            self.log = log
            self.cancel = cancel
        }

        /// The next event, waiting for the job to send it; `nil` after the terminal event.
        public mutating func next(isolation actor: isolated (any Actor)?) async -> JobEvent? {
            let (log, position, cancel) = (log, position, cancel)
            let event = await withTaskCancellationHandler {
                await log.event(at: position)
            } onCancel: {
                cancel()
            }
            if event != nil { self.position += 1 }
            return event
        }

        /// The next event, waiting for the job to send it; `nil` after the terminal event.
        public mutating func next() async -> JobEvent? {
            await next(isolation: nil)
        }
    }
}

/// Every event a job has sent, in order, and the consumers waiting for the next one. The events
/// are kept for the job's lifetime so that a consumer that starts late still gets all of them:
/// a few hundred at most, as ``ProgressReporter`` drops steps under half a percent.
final class JobEventLog: Sendable {
    private struct State {
        var events: [JobEvent] = []
        var waiting: [CheckedContinuation<Void, Never>] = []
        var ended: Bool { events.last?.isTerminal ?? false }
    }

    private let state = PthreadLocked(State())

    /// Appends `event` and wakes every waiting consumer. Nothing follows a terminal event.
    func send(_ event: JobEvent) {
        let woken = state.withLock { state in
            precondition(!state.ended, "a job sends nothing after its terminal event")
            state.events.append(event)
            defer { state.waiting = [] }
            return state.waiting
        }
        for consumer in woken { consumer.resume() }
    }

    /// The event at `index`, once it is sent; `nil` when `index` is past the terminal event.
    func event(at index: Int, isolation: isolated (any Actor)? = #isolation) async -> JobEvent? {
        if let ready = ready(at: index) { return ready }
        await withCheckedContinuation(isolation: isolation) { (consumer: CheckedContinuation<Void, Never>) in
            // Checked again under the lock: an event sent since the first look must not be missed.
            let sent = state.withLock { state in
                if state.events.count > index || state.ended { return true }
                state.waiting.append(consumer)
                return false
            }
            if sent { consumer.resume() }
        }
        guard let ready = ready(at: index) else { preconditionFailure("a consumer is woken only by a sent event") }
        return ready
    }

    /// `.some(event)` when the event at `index` is sent, `.some(nil)` past the terminal event,
    /// `nil` while it is still to come.
    private func ready(at index: Int) -> JobEvent?? {
        state.withLock { state in
            if index < state.events.count { return .some(state.events[index]) }
            return state.ended ? .some(nil) : nil
        }
    }
}
