/// A value behind a POSIX mutex (``ThreadCondition``), read and changed only inside
/// ``withLock(_:)``: Synchronization's `Mutex` with a lock ThreadSanitizer understands.
///
/// Synchronization's `Mutex` is the first choice elsewhere; this one is for the state that the
/// concurrency suites exercise from many threads under `Scripts/sanitize thread`: TSan does not
/// see that `Mutex`'s lock order its accesses (on Linux it waits on a futex) and reported every
/// `withLock` of `JobAdmission`, `JobEventLog` and `HeifYCbCrDecoder.TileBytes` as a race; with
/// this lock, and nothing else changed, the reports vanished.
///
/// `@unchecked Sendable`: `value` is read and written only with `lock` held.
package final class PthreadLocked<Value>: @unchecked Sendable {
    private let lock = ThreadCondition()
    private var value: Value

    /// A lock around `value`.
    package init(_ value: Value) {
        self.value = value
    }

    /// Runs `body` with the lock held and the value lent to it for changes.
    package func withLock<T, E: Error>(_ body: (inout Value) throws(E) -> T) throws(E) -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
