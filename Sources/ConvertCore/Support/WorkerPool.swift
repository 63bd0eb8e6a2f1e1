import FoundationEssentials
import Glibc
import Synchronization

/// A fixed pool of helper threads for a conversion's CPU fan-out: the tiles of a HEIC grid, the
/// bands of an HDR tone map, a gain map beside its primary, a video frame's tone-map rows.
///
/// This replaces Dispatch's global queues and `DispatchQueue.concurrentPerform`, which on Linux
/// share their threads with Swift's global executor: a decode fanned out there held every
/// thread that the host process's tasks (and its main actor's jobs) needed, for the whole decode.
/// These threads belong to the engine, are counted by ``ConversionLimits`` and never run a task.
///
/// Deadlock-free by construction, whatever the pool's size and however deep the nesting: the
/// caller takes part in its own fan-out (``forEach(iterations:_:)`` runs iteration 0 on the calling
/// thread, then any iteration no helper has taken yet, by an index counter), and waits only for
/// iterations that are already running on a helper. A helper that starts after every iteration
/// was taken finds nothing to do. So a fan-out completes even when every helper is busy elsewhere,
/// only with fewer threads.
///
/// The pool a caller reaches is ``current``: the pool of the engine thread it runs on (a codec
/// thread of a ``ConversionLimits`` or one of this pool's helpers), so a conversion started with
/// a ``ConversionLimits`` instance fans out on that instance's helpers alone.
///
/// `@unchecked Sendable`: every stored `var` is read and written with `condition` held; the
/// `let`s are set once in `init`, and the counters are atomic.
package final class WorkerPool: @unchecked Sendable {
    /// The pool of the default ``ConversionLimits/shared`` limits: as many helpers as codec threads.
    package static let shared = WorkerPool(
        threadCount: max(2, ProcessInfo.processInfo.activeProcessorCount), stackSize: BlockingExecutor.codecStackSize)

    /// The most helper threads this pool runs; fixed for its life.
    package let threadCount: Int
    private let stackSize: Int
    // `condition` guards everything below it.
    private let condition = ThreadCondition()
    private var queue: [Batch] = []
    private var next = 0
    private var threads = 0
    private var busy = 0

    private let ownedRuns = Atomic<Int>(0)
    private let foreignRuns = Atomic<Int>(0)

    /// A pool of at most `threadCount` helpers (at least one) with stacks of `stackSize` bytes
    /// (helpers decode HEVC tiles, so they get a codec thread's stack).
    package init(threadCount: Int, stackSize: Int) {
        self.threadCount = max(1, threadCount)
        self.stackSize = stackSize
    }

    /// The pool of the calling thread: the one its ``BlockingExecutor`` (or this pool, for a
    /// helper) was made with; ``shared`` on any other thread (a test or a benchmark calling the
    /// engine's internals directly).
    package static var current: WorkerPool { EngineThread.pool ?? shared }

    /// Threads started so far (they stay until the process ends).
    package var startedThreads: Int {
        condition.lock()
        defer { condition.unlock() }
        return threads
    }

    /// Fan-out iterations and helper bodies run so far on a thread of this pool's own: its
    /// helpers and the codec threads made with it (``EngineThread/pool`` is this pool).
    package var runsOnOwnedThreads: Int { ownedRuns.load(ordering: .relaxed) }

    /// Fan-out iterations and helper bodies run so far on any other thread. A conversion started
    /// through the public API never adds to it: its callers are codec threads.
    package var runsOnOtherThreads: Int { foreignRuns.load(ordering: .relaxed) }

    /// Runs `body` once for each index in `0..<iterations` and returns when all have run: index 0
    /// on the calling thread, the rest on up to `iterations - 1` helpers and on the calling thread,
    /// whichever takes an index first. The caller blocks meanwhile, so it must be an engine thread
    /// (a codec thread or a helper), never a task on the cooperative pool.
    package func forEach(iterations: Int, _ body: @Sendable (Int) -> Void) {
        guard iterations > 0 else { return }
        if iterations == 1 {
            record()
            body(0)
            return
        }
        // The batch holds `body` only until `join` returns: helpers that start later find no
        // index left and never touch it.
        withoutActuallyEscaping(body) { body in
            let batch = Batch(iterations: iterations, reservingFirst: true, body: body, pool: self)
            enqueue(batch, helpers: iterations - 1)
            batch.join()
        }
    }

    /// Starts `body` for each index in `0..<iterations` on up to `iterations` helpers without
    /// waiting; the caller must call ``Batch/join()`` before anything `body` uses goes away. An
    /// index no helper has taken by then runs on the joining thread.
    package func start(iterations: Int, _ body: @escaping @Sendable (Int) -> Void) -> Batch {
        let batch = Batch(iterations: max(0, iterations), reservingFirst: false, body: body, pool: self)
        enqueue(batch, helpers: iterations)
        return batch
    }

    /// Counts one run on the calling thread, as owned or not.
    fileprivate func record() {
        if EngineThread.pool === self {
            ownedRuns.add(1, ordering: .relaxed)
        } else {
            foreignRuns.add(1, ordering: .relaxed)
        }
    }

    /// Queues `helpers` tickets for `batch` (at most one per thread), starting threads up to
    /// ``threadCount`` when too few are free.
    private func enqueue(_ batch: Batch, helpers: Int) {
        let tickets = min(helpers, threadCount)
        guard tickets > 0 else { return }
        condition.lock()
        for _ in 0..<tickets { queue.append(batch) }
        while queue.count - next > threads - busy, threads < threadCount {
            guard DetachedThread.start(name: "offc-helper", stackSize: stackSize, { [self] in serve() }) else { break }
            threads += 1
        }
        condition.broadcast()
        condition.unlock()
    }

    /// A helper's life: take the oldest ticket, help its batch, and wait when there is none.
    private func serve() {
        EngineThread.pool = self
        condition.lock()
        while true {
            while next == queue.count { condition.wait() }
            let batch = queue[next]
            next += 1
            if next == queue.count {
                queue.removeAll(keepingCapacity: true)
                next = 0
            }
            busy += 1
            condition.unlock()
            batch.help()
            condition.lock()
            busy -= 1
        }
    }

    /// One fan-out: its indices, taken by a counter, and the iterations running.
    ///
    /// `@unchecked Sendable`: every stored `var` is read and written with `condition` held.
    package final class Batch: @unchecked Sendable {
        private let condition = ThreadCondition()
        private let iterations: Int
        private let pool: WorkerPool
        private var body: (@Sendable (Int) -> Void)?
        private var next: Int
        private var running: Int
        /// Whether index 0 waits for the thread that joins (a forEach's caller).
        private var reserved: Bool

        fileprivate init(
            iterations: Int, reservingFirst: Bool, body: @escaping @Sendable (Int) -> Void, pool: WorkerPool
        ) {
            self.iterations = iterations
            self.body = body
            self.pool = pool
            // The first index is the caller's, counted as running from the start.
            next = reservingFirst ? 1 : 0
            running = reservingFirst ? 1 : 0
            reserved = reservingFirst
        }

        /// Runs every index not taken yet on the calling thread (first a forEach's reserved
        /// index 0), then waits until the iterations other threads took are done. Callable more
        /// than once.
        package func join() {
            condition.lock()
            let first = reserved
            reserved = false
            condition.unlock()
            if first {
                run(0)
                finished()
            }
            help()
            condition.lock()
            while running > 0 { condition.wait() }
            body = nil
            condition.unlock()
        }

        /// Takes and runs indices until none is left.
        fileprivate func help() {
            while let index = claim() {
                run(index)
                finished()
            }
        }

        private func claim() -> Int? {
            condition.lock()
            defer { condition.unlock() }
            guard next < iterations else { return nil }
            next += 1
            running += 1
            return next - 1
        }

        /// Runs one index; the body's reference is dropped before the iteration counts as done,
        /// so none outlives ``join()``.
        private func run(_ index: Int) {
            condition.lock()
            let body = self.body
            condition.unlock()
            pool.record()
            body?(index)
        }

        private func finished() {
            condition.lock()
            running -= 1
            if running == 0 { condition.broadcast() }
            condition.unlock()
        }
    }
}
