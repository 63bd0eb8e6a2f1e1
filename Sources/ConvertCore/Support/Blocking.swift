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

/// Runs blocking C work on `executor`, off Swift's cooperative pool (which has only as many
/// threads as cores and must never be blocked), and bridges the task's cancellation
/// to the work through a ``CancellationFlag``. The body runs even when its task is already
/// cancelled (it sees the flag set): settling work such as an allowance reservation's release
/// must still happen then.
///
/// The lane is always named: ``BlockingExecutor/codec`` for decoding, encoding and remuxing,
/// ``BlockingExecutor/short`` for work over in moments (allowance transactions, syncs, journal
/// lines, probes), which must never queue behind an encode.
///
/// Throws what `body` throws as a ``ConvertError`` (``ConvertError/wrapping(_:path:)``: Swift
/// cancellation becomes `.cancelled`, any other error `internal`). `body` keeps untyped `throws`
/// because Swift does not infer a closure's typed throws from its context.
package func runBlocking<T: Sendable>(
    on executor: BlockingExecutor,
    _ body: @escaping @Sendable (CancellationFlag) throws -> T
) async throws(ConvertError) -> T {
    let flag = CancellationFlag()
    let result = await withTaskCancellationHandler {
        await withCheckedContinuation { (continuation: CheckedContinuation<Result<T, ConvertError>, Never>) in
            let outcome = PthreadLocked<Result<T, ConvertError>?>(nil)
            executor.submit {
                let result = Result { try body(flag) }.mapError { ConvertError.wrapping($0) }
                outcome.withLock { $0 = result }
            } then: {
                // Resumed once the thread is free again, so the caller's next call reuses it.
                if let result = outcome.withLock({ $0 }) { continuation.resume(returning: result) }
            }
        }
    } onCancel: {
        flag.cancel()
    }
    return try result.get()
}
