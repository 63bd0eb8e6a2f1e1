import FoundationEssentials
import Synchronization

/// A cancellation flag shared between an async task and the blocking C work it started.
///
/// Codec loops poll ``isCancelled`` between packets or rows; FFmpeg's interrupt callback reads it
/// too, so a blocked read returns promptly once the owning task is cancelled.
package final class CancellationFlag: Sendable {
    private let flag = Atomic<Bool>(false)

    package init() {}

    /// Marks the work as cancelled. Safe from any thread, any number of times.
    package func cancel() { flag.store(true, ordering: .relaxed) }

    /// Whether cancellation was requested.
    package var isCancelled: Bool { flag.load(ordering: .relaxed) }

    /// Throws `.cancelled` when cancellation was requested.
    package func check() throws(ConvertError) {
        if isCancelled { throw .cancelled() }
    }
}

/// Runs blocking C work on ``BlockingExecutor/shared``, off Swift's cooperative pool (which has
/// only as many threads as cores and must never be blocked), and bridges the task's cancellation
/// to the work through a ``CancellationFlag``. The body runs even when its task is already
/// cancelled (it sees the flag set): settling work such as an allowance reservation's release
/// must still happen then. The task's ``OutputPlacement/gate`` goes with the work, so an output
/// committed on the thread passes through it.
package func runBlocking<T: Sendable>(
    on executor: BlockingExecutor = .shared,
    _ body: @escaping @Sendable (CancellationFlag) throws -> T
) async throws -> T {
    let flag = CancellationFlag()
    let gate = OutputPlacement.gate
    return try await withTaskCancellationHandler {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
            let outcome = Mutex<Result<T, any Error>?>(nil)
            executor.submit {
                let result = OutputPlacement.$gate.withValue(gate) { Result { try body(flag) } }
                outcome.withLock { $0 = result }
            } then: {
                // Resumed once the thread is free again, so the caller's next call reuses it.
                if let result = outcome.withLock({ $0 }) { continuation.resume(with: result) }
            }
        }
    } onCancel: {
        flag.cancel()
    }
}
