import Dispatch
import Foundation
import Synchronization

/// Ctrl-C and SIGTERM for commands that work on files.
///
/// While ``run(_:)`` runs, the first SIGINT or SIGTERM cancels the task doing the command's
/// work: the batch stops admitting items, running conversions are cancelled and remove their
/// partial files, and the command then prints its summary and exits 130. A second signal, or a
/// signal outside ``run(_:)``, exits at once with 130 (leftover temporaries are then cleaned by
/// the next run).
enum SignalHandling {
    /// The signal sources and what they cancel. Installed once per process: libdispatch on
    /// Linux installs its own handler the first time a signal gets a source and never again, so
    /// the dispositions must not be changed back and forth between runs.
    private final class Router: Sendable {
        let state = State()
        /// Kept alive for the life of the process.
        private let sources: Mutex<[any DispatchSourceSignal]>

        init() {
            let queue = DispatchQueue(label: "offconvert.signals")
            let state = self.state
            let created = [SIGINT, SIGTERM].map { number -> any DispatchSourceSignal in
                // Ignored so that the default action (terminate) never runs before the source
                // sees the signal.
                signal(number, SIG_IGN)
                let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
                source.setEventHandler { state.received() }
                source.resume()
                return source
            }
            sources = Mutex(created)
        }
    }

    /// What the handlers act on.
    private final class State: Sendable {
        let raised = Atomic<Bool>(false)
        let work = Mutex<Task<Void, Never>?>(nil)

        func received() {
            let cancelled = work.withLock { work -> Bool in
                guard let work, !raised.exchange(true, ordering: .relaxed) else { return false }
                work.cancel()
                return true
            }
            if !cancelled { _exit(ExitCode.interrupted) }
        }
    }

    private static let router = Router()

    /// Runs `body` in a task that SIGINT and SIGTERM cancel; returns what it returned and
    /// whether a signal arrived. One run at a time per process.
    static func run<T: Sendable>(_ body: @escaping @Sendable () async -> T) async -> (value: T, interrupted: Bool) {
        let router = Self.router.state
        let result = Mutex<T?>(nil)
        let task = Task {
            let value = await body()
            result.withLock { $0 = value }
        }
        router.work.withLock { work in
            precondition(work == nil, "one signal-handled run at a time")
            router.raised.store(false, ordering: .relaxed)
            work = task
        }
        await task.value
        let interrupted = router.work.withLock { work in
            work = nil
            return router.raised.load(ordering: .relaxed)
        }
        // The task stored its value before finishing.
        guard let value = result.withLock({ $0 }) else { preconditionFailure("the work ended without a value") }
        return (value, interrupted)
    }
}
