internal import CLinux
import Glibc

/// Starting a detached POSIX thread, where full Foundation's `Thread` was used before
/// (FoundationEssentials has none): blocking C work needs a real thread with a deep stack,
/// not a task on Swift's cooperative pool.
package enum DetachedThread {
    /// Runs `body` on a new detached thread named `name` with a stack of `stackSize` bytes (the
    /// system's default when nil). False when no thread could be started; `body` then never runs.
    ///
    /// The name is what `top -H`, `perf` and a debugger show, and the threads a codec starts from
    /// this one inherit it (x264's and libde265's workers): without it a thread is named after
    /// whichever thread created it, often Swift's cooperative pool ("com.apple.root.default-qos"),
    /// so an app that embeds the engine would see its own pool doing the engine's work. Linux
    /// keeps at most 15 bytes; a longer name is cut there.
    @discardableResult
    package static func start(name: String, stackSize: Int? = nil, _ body: @escaping @Sendable () -> Void) -> Bool {
        var attributes = pthread_attr_t()
        guard pthread_attr_init(&attributes) == 0 else { return false }
        defer { pthread_attr_destroy(&attributes) }
        pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED))
        if let stackSize { pthread_attr_setstacksize(&attributes, stackSize) }
        let context = Unmanaged.passRetained(Work(name: name, body)).toOpaque()
        var thread = pthread_t()
        guard
            pthread_create(
                &thread, &attributes,
                { raw in
                    guard let raw else { return nil }
                    let work = Unmanaged<Work>.fromOpaque(raw).takeRetainedValue()
                    _ = offc_name_this_thread(work.name)
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
        let name: String
        let body: @Sendable () -> Void

        init(name: String, _ body: @escaping @Sendable () -> Void) {
            self.name = name
            self.body = body
        }
    }
}
