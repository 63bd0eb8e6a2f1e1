/// A value behind a POSIX mutex (``ThreadCondition``), read and changed only inside
/// ``withLock(_:)``: the engine's one lock type, used for every piece of shared state.
///
/// Not Synchronization's `Mutex`: ThreadSanitizer does not see that `Mutex`'s lock orders the
/// accesses it guards (on Linux it waits on a futex), and under `Scripts/sanitize thread` it
/// reported every `withLock` of `JobAdmission`, `JobEventLog` and `HeifYCbCrDecoder.TileBytes`
/// as a race; with this lock, and nothing else changed, the reports vanished. One lock type
/// everywhere keeps every shared value checkable by the sanitizer (a test forbids `Mutex` in
/// `Sources/`).
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
