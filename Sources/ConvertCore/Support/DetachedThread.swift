import Glibc

/// Starting a detached POSIX thread, where full Foundation's `Thread` was used before
/// (FoundationEssentials has none): blocking C work needs a real thread with a deep stack,
/// not a task on Swift's cooperative pool.
package enum DetachedThread {
    /// Runs `body` on a new detached thread with a stack of `stackSize` bytes (the system's
    /// default when nil). False when no thread could be started; `body` then never runs.
    @discardableResult
    package static func start(stackSize: Int? = nil, _ body: @escaping @Sendable () -> Void) -> Bool {
        var attributes = pthread_attr_t()
        guard pthread_attr_init(&attributes) == 0 else { return false }
        defer { pthread_attr_destroy(&attributes) }
        pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED))
        if let stackSize { pthread_attr_setstacksize(&attributes, stackSize) }
        let context = Unmanaged.passRetained(Work(body)).toOpaque()
        var thread = pthread_t()
        guard
            pthread_create(
                &thread, &attributes,
                { raw in
                    guard let raw else { return nil }
                    let work = Unmanaged<Work>.fromOpaque(raw).takeRetainedValue()
                    work.body()
                    return nil
                }, context) == 0
        else {
            Unmanaged<Work>.fromOpaque(context).release()
            return false
        }
        return true
    }

    /// What a new thread runs, handed to it through `pthread_create`'s context pointer.
    private final class Work: Sendable {
        let body: @Sendable () -> Void

        init(_ body: @escaping @Sendable () -> Void) {
            self.body = body
        }
    }
}
