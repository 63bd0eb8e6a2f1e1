import ConvertCore
import Dispatch
import FoundationEssentials
import Glibc
import Synchronization

/// Ctrl-C and SIGTERM for commands that work on files.
///
/// While ``run(_:)`` runs, the first SIGINT or SIGTERM cancels the task doing the command's
/// work: the batch stops admitting items, running conversions are cancelled and remove their
/// partial files, and the command then prints its summary and exits 130. A conversion inside a
/// C encoder that cannot be interrupted (x265 on a large photo) is not waited for: if the work
/// has not stopped within ``gracePeriodMicroseconds``, or at a second signal, the process removes the
/// temporaries it is writing (``LiveTemporaries``) and exits 130 at once. A signal outside
/// ``run(_:)`` exits at once too.
package enum SignalHandling {
    /// The signal sources and what they cancel. Installed once per process: libdispatch on
    /// Linux installs its own handler the first time a signal gets a source and never again, so
    /// the dispositions must not be changed back and forth between runs.
    private final class Router: Sendable {
        package let state = State()
        /// Kept alive for the life of the process.
        private let sources: PthreadLocked<[any DispatchSourceSignal]>

        package init() {
            let queue = DispatchQueue(label: "offconvert.signals")
            let state = self.state
            let created = SignalHandling.handledSignals.map { number -> any DispatchSourceSignal in
                // Ignored so that the default action (terminate) never runs before the source
                // sees the signal.
                signal(number, SIG_IGN)
                let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
                source.setEventHandler { state.received() }
                source.setRegistrationHandler { state.armedSources.add(1, ordering: .releasing) }
                source.resume()
                return source
            }
            sources = PthreadLocked(created)
        }
    }

    /// What the handlers act on: the runs in progress, each with whether a signal reached it.
    private final class State: Sendable {
        package struct Runs {
            package var active: [Int: (task: Task<Void, Never>, interrupted: Bool)] = [:]
            package var next = 0
        }

        package let runs = PthreadLocked(Runs())
        /// How many of the signal sources libdispatch has registered with the kernel.
        package let armedSources = Atomic<Int>(0)

        /// First signal: cancel every run in progress. A signal with nothing left to cancel
        /// (no run, or every run already cancelled) ends the process.
        func received() {
            let cancelled = runs.withLock { runs -> Set<Int> in
                let pending = runs.active.filter { !$0.value.interrupted }
                for (key, run) in pending {
                    run.task.cancel()
                    runs.active[key]?.interrupted = true
                }
                return Set(pending.keys)
            }
            guard !cancelled.isEmpty else { SignalHandling.exitNow() }
            guard SignalHandling.exitsWithoutWaiting.load(ordering: .relaxed) else { return }
            // A thread of its own, not Dispatch's global queues: those are the threads of Swift's
            // global executor on Linux, which the process's own work may be holding.
            DetachedThread.start(name: "offc-signal") {
                usleep(SignalHandling.gracePeriodMicroseconds)
                let stillRunning = self.runs.withLock { !cancelled.isDisjoint(with: $0.active.keys) }
                if stillRunning { SignalHandling.exitNow() }
            }
        }

        /// Starts `work` in a task and registers it under the lock the handler takes, so a
        /// signal can never find the work running but not yet registered (it would then end the
        /// process instead of cancelling the run).
        func start(_ work: @escaping @Sendable () async -> Void) -> (key: Int, task: Task<Void, Never>) {
            runs.withLock { runs in
                let key = runs.next
                runs.next += 1
                let task = Task { await work() }
                runs.active[key] = (task, false)
                return (key, task)
            }
        }

        func unregister(_ key: Int) -> Bool {
            runs.withLock { $0.active.removeValue(forKey: key)?.interrupted ?? false }
        }
    }

    private static let router = Router()

    /// Whether SIGINT and SIGTERM now reach ``run(_:)``'s work. libdispatch registers a signal
    /// source with the kernel after `resume` returns, on a queue of its own; a signal sent
    /// before that is ignored. Creates the sources on first use.
    package static var isArmed: Bool {
        router.state.armedSources.load(ordering: .acquiring) == handledSignals.count
    }

    /// The signals that cancel ``run(_:)``'s work.
    private static let handledSignals = [SIGINT, SIGTERM]

    /// Whether a first signal whose work has not stopped within ``gracePeriodMicroseconds`` ends the process
    /// (set by the `offconvert` executables). Off by default, so a program using the batch
    /// runner in-process (the tests) is never exited from under its other work.
    package static let exitsWithoutWaiting = Atomic<Bool>(false)

    /// How long cancelled work may take to stop before the process exits without it.
    static let gracePeriodMicroseconds: UInt32 = 800_000

    /// Exits 130 now, without waiting for conversions: their temporaries are removed first.
    static func exitNow() -> Never {
        let removed = LiveTemporaries.removeAll()
        let line =
            "Interrupted: stopped without waiting for the encoder"
            + (removed > 0 ? "; \(removed) partial file(s) removed.\n" : ".\n")
        _ = line.withCString { write(STDERR_FILENO, $0, strlen($0)) }
        _exit(ExitCode.interrupted)
    }

    /// Runs `body` in a task that SIGINT and SIGTERM cancel; returns what it returned and
    /// whether a signal arrived while it ran. Runs may overlap; a signal cancels all of them.
    package static func run<T: Sendable>(_ body: @escaping @Sendable () async -> T) async -> (
        value: T, interrupted: Bool
    ) {
        let state = Self.router.state
        let result = PthreadLocked<T?>(nil)
        let (key, task) = state.start {
            let value = await body()
            result.withLock { $0 = value }
        }
        await task.value
        let interrupted = state.unregister(key)
        // The task stored its value before finishing.
        guard let value = result.withLock({ $0 }) else { preconditionFailure("the work ended without a value") }
        return (value, interrupted)
    }
}
