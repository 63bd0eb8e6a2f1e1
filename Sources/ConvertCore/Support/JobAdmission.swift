/// Admits conversion jobs to their codec work, at most ``limit`` at a time, in order of arrival.
///
/// A job beyond the limit waits as a suspended task: it holds no thread of the codec pool (which
/// is fixed, ``BlockingExecutor/codec``), so waiting jobs never keep admitted ones from running,
/// and a waiting job that is cancelled leaves the queue at once without ever running its work.
/// A finished job hands its place straight to the oldest waiting one, so later arrivals cannot
/// overtake it.
///
/// Library users set the limit through ``ConversionLimits/concurrentConversions``.
package final class JobAdmission: Sendable {
    /// The admission every ``ConversionJob`` passes, limited to the codec pool's size by default.
    package static let shared = JobAdmission(
        limit: BlockingExecutor.codec.threadCount, maximum: BlockingExecutor.codec.threadCount)

    private struct Waiter {
        var id: UInt64
        var continuation: CheckedContinuation<Bool, Never>
    }

    private struct State {
        var limit: Int
        var running = 0
        var waiting: [Waiter] = []
        var nextID: UInt64 = 0
    }

    /// The highest limit this admission takes: more admitted jobs than codec threads would only
    /// move the wait from here (cancellable, threadless) into the pool's queue.
    package let maximum: Int
    private let state: PthreadLocked<State>

    /// An admission of `limit` jobs at once, clamped to `1...maximum`.
    package init(limit: Int, maximum: Int) {
        self.maximum = max(1, maximum)
        state = PthreadLocked(State(limit: min(max(1, limit), max(1, maximum))))
    }

    /// How many jobs run at once.
    package var limit: Int { state.withLock { $0.limit } }

    /// Jobs admitted and not yet finished.
    package var running: Int { state.withLock { $0.running } }

    /// Jobs waiting for admission.
    package var waiting: Int { state.withLock { $0.waiting.count } }

    /// Changes the limit (clamped to `1...maximum`). Raising it admits waiting jobs at once;
    /// lowering it lets running jobs finish and admits no more until fewer than the new limit run.
    package func setLimit(_ newValue: Int) {
        let admitted: [Waiter] = state.withLock { state in
            state.limit = min(max(1, newValue), maximum)
            var admitted: [Waiter] = []
            while state.running < state.limit, !state.waiting.isEmpty {
                state.running += 1
                admitted.append(state.waiting.removeFirst())
            }
            return admitted
        }
        for waiter in admitted { waiter.continuation.resume(returning: true) }
    }

    /// Runs `body` once admitted and gives the place back when it returns or throws. When the job
    /// must wait, `onWait` is called once it is in the queue (a job reports ``JobStage/queued``). Throws
    /// `.cancelled` without running `body` when the task is cancelled before or while it waits.
    package func run<T: Sendable>(onWait: @Sendable () -> Void, _ body: @Sendable () async throws -> T) async throws
        -> T
    {
        guard await admit(onWait: onWait) else { throw ConvertError.cancelled() }
        defer { release() }
        // Admitted in the same moment as cancelled: the place was handed over, but the work
        // must not start.
        if Task.isCancelled { throw ConvertError.cancelled() }
        return try await body()
    }

    /// Waits for a place; false when the task was cancelled first (it then holds no place).
    private func admit(onWait: @Sendable () -> Void) async -> Bool {
        let immediate: Bool = state.withLock { state in
            guard state.running < state.limit, state.waiting.isEmpty else { return false }
            state.running += 1
            return true
        }
        if immediate { return true }
        let id: UInt64 = state.withLock { state in
            defer { state.nextID += 1 }
            return state.nextID
        }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
                let answer: Bool? = state.withLock { state in
                    // The cancellation handler may have run before this waiter was queued; the
                    // task's flag is set before the handler runs, so checking it under the lock
                    // misses neither order.
                    if Task.isCancelled { return false }
                    if state.running < state.limit, state.waiting.isEmpty {
                        state.running += 1
                        return true
                    }
                    state.waiting.append(Waiter(id: id, continuation: continuation))
                    return nil
                }
                if let answer {
                    continuation.resume(returning: answer)
                } else {
                    // Only once in the queue: a job that says it is queued has its place in line.
                    onWait()
                }
            }
        } onCancel: {
            let removed: Waiter? = state.withLock { state in
                guard let index = state.waiting.firstIndex(where: { $0.id == id }) else { return nil }
                return state.waiting.remove(at: index)
            }
            removed?.continuation.resume(returning: false)
        }
    }

    /// Gives a place back: to the oldest waiting job when the limit allows, else to the pool.
    private func release() {
        let next: Waiter? = state.withLock { state in
            if state.running <= state.limit, !state.waiting.isEmpty { return state.waiting.removeFirst() }
            state.running -= 1
            return nil
        }
        next?.continuation.resume(returning: true)
    }
}
