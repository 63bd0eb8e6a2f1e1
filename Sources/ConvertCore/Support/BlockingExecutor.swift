import FoundationEssentials

/// A bounded set of long-lived threads for blocking C work, the way NIOThreadPool serves SwiftNIO:
/// codecs, file-system transactions and syncs run here, never on Swift's cooperative pool (which
/// has one thread per core and stalls every task when one of them blocks).
///
/// Threads are started when work arrives and no idle thread can take it, up to
/// ``maximumThreads``, and then kept for the next piece of work instead of a new thread per call.
/// Work beyond the bound waits its turn in order of submission. Each thread has a deep stack:
/// x265 and libheif need more than a secondary thread's default.
///
/// `@unchecked Sendable`: every stored `var` is read and written with `condition` held; the
/// `let`s are set once in `init`.
package final class BlockingExecutor: @unchecked Sendable {
    /// The executor every ``runBlocking(_:)`` call uses. Its bound is a guard against runaway
    /// thread creation, not a scheduler: the CLI's batches already run one conversion a core,
    /// and a library user's jobs must not wait behind each other (a queued job's deadline and
    /// cancellation would then depend on unrelated work; 150 concurrent jobs under a bound of
    /// 32 missed their time limit in the stress test), so it is set far above any batch.
    package static let shared = BlockingExecutor(maximumThreads: 512)

    /// The most threads this executor ever runs at once.
    let maximumThreads: Int
    private let stackSize: Int
    // `condition` guards everything below it.
    private let condition = ThreadCondition()
    private var queue: [(work: @Sendable () -> Void, then: (@Sendable () -> Void)?)] = []
    private var next = 0
    private var threads = 0
    private var busy = 0

    /// An executor of at most `maximumThreads` threads (at least one) of `stackSize` bytes each.
    package init(maximumThreads: Int, stackSize: Int = 16 << 20) {
        self.maximumThreads = max(1, maximumThreads)
        self.stackSize = stackSize
    }

    /// Threads started so far (they stay until the process ends).
    var startedThreads: Int {
        condition.lock()
        defer { condition.unlock() }
        return threads
    }

    /// Queues `work`; it runs on one of the executor's threads as soon as one is free. `then` runs
    /// on the same thread once the thread counts as free again: a caller resumed from there (an
    /// awaiting task) that submits its next piece of work finds this thread idle, rather than
    /// starting another.
    func submit(_ work: @escaping @Sendable () -> Void, then: (@Sendable () -> Void)? = nil) {
        condition.lock()
        queue.append((work, then))
        let waiting = queue.count - next
        let free = threads - busy
        if waiting > free, threads < maximumThreads {
            threads += 1
            startThread()
        }
        condition.signal()
        condition.unlock()
    }

    private func startThread() {
        // (Foundation's Thread was named "offconvert-blocking", which Linux refused as longer
        // than 15 bytes; these threads keep the process's name, as those did.)
        DetachedThread.start(stackSize: stackSize) { [self] in serve() }
    }

    /// A thread's life: take the oldest waiting work, run it, and wait when there is none.
    private func serve() {
        condition.lock()
        while true {
            while next == queue.count { condition.wait() }
            let (work, then) = queue[next]
            next += 1
            if next == queue.count {
                queue.removeAll(keepingCapacity: true)
                next = 0
            }
            busy += 1
            condition.unlock()
            work()
            condition.lock()
            busy -= 1
            if let then {
                condition.unlock()
                then()
                condition.lock()
            }
        }
    }
}
