import FoundationEssentials

/// A fixed pool of threads for blocking C work, the way `NIOThreadPool(numberOfThreads:)` serves
/// SwiftNIO: codecs, file-system transactions and syncs run here, never on Swift's cooperative
/// pool (which has one thread per core and stalls every task when one of them blocks).
///
/// There are two pools, two lanes, so that short work never waits behind long encodes:
/// - ``codec``: decodes, encodes and remuxes, one conversion a thread, as many threads as cores
///   (at least 2). A conversion job enters only once ``JobAdmission`` admits it, so jobs beyond
///   the limit wait as suspended tasks holding no thread.
/// - ``short``: work that blocks for a moment and must not queue behind a minutes-long encode:
///   allowance transactions (a lock and two fsyncs), journal lines, header probes and cost
///   estimates, reaping a finished child process. A few threads, since such work is over in
///   milliseconds; it only waits behind other short work.
///
/// Threads start when work arrives and no idle thread can take it, up to ``threadCount``, and
/// then stay until the process ends: there are at most the cores plus four of them, an idle one
/// costs only the stack pages it once touched, and restarting threads for every batch would gain
/// nothing. Work beyond the pool waits its turn in order of submission.
///
/// Nested waits: a fixed pool deadlocks when work on it blocks until other work submitted to the
/// same pool has run. No work does: what runs here is synchronous C work, and ``runBlocking(on:_:)``
/// is `async`, so a body cannot call it; the fan-out inside bodies (`BandPipeline`'s and
/// `HeifYCbCrDecoder`'s tile workers, `RowBands`, `LUTToneMapper`, `PendingGainMap`) goes to
/// ``helpers``, a ``WorkerPool`` whose callers take part in their own work, so it completes even
/// when no helper is free. The only submission from a body is an allowance reservation's release
/// in its `deinit`, to the short lane, and nothing waits for it. Keep it so: work that needs
/// helpers asks ``WorkerPool/current``, never Dispatch's global queues (Swift's global executor
/// runs on those threads on Linux) and never a thread of its own.
///
/// `@unchecked Sendable`: every stored `var` is read and written with `condition` held; the
/// `let`s are set once in `init`.
package final class BlockingExecutor: @unchecked Sendable {
    /// The lane for codec work: as many threads as cores, at least 2, with a stack of
    /// ``codecStackSize``. Conversion jobs reach it through ``JobAdmission``.
    package static let codec = BlockingExecutor(
        threadCount: max(2, ProcessInfo.processInfo.activeProcessorCount), stackSize: codecStackSize,
        helpers: .shared)

    /// The lane for short blocking work (allowance transactions, syncs, journal lines, probes,
    /// reaping a child): four threads, so a slow disk's fsync or one probe of a hostile file
    /// does not hold up the rest, and none of them waits behind an encode.
    package static let short = BlockingExecutor(
        threadCount: 4, stackSize: shortStackSize, helpers: .shared, name: "offc-short")

    /// The stack of a codec thread. The codecs' calling thread goes no deeper than 94 KiB
    /// (`StackDepthTests` measures it on a painted stack and fails past a quarter of this size;
    /// 2026-12, x86_64, libheif 1.15.1, libde265 1.0.11, x265 3.5, libjxl 0.7.0, FFmpeg 5.1):
    /// HEIC → JPEG (libheif, libde265) 44 KiB, HEIC → PNG 72 KiB, JPEG → HEIC (x265) 49 KiB,
    /// JPEG → JXL (libjxl) 52 KiB; video encodes H.264 (x264) 58 KiB, HEVC (x265) 89 KiB,
    /// VP9 (libvpx) 94 KiB, AV1 (SVT-AV1) 49 KiB. The codecs' deep recursion runs on their own
    /// worker threads, whose stacks they size themselves. 2 MiB leaves over 20 times the deepest
    /// for paths not measured (HDR tone mapping, PDF pages, bigger inputs); the 16 MiB used before
    /// was never measured. Only touched pages are ever resident.
    package static let codecStackSize = 2 << 20

    /// The stack of a short-lane thread: a probe reads headers (libheif, FFmpeg's stream probe,
    /// which may decode a frame), no deeper than the decodes measured for ``codecStackSize``, so
    /// 1 MiB keeps more than ten times the deepest of those.
    package static let shortStackSize = 1 << 20

    /// The number of threads this executor runs at most; fixed for its life.
    package let threadCount: Int
    /// The pool the work here fans out to (``WorkerPool/current`` on these threads).
    package let helpers: WorkerPool
    private let stackSize: Int
    /// What its threads are called (see ``DetachedThread/start(name:stackSize:_:)``).
    private let name: String
    // `condition` guards everything below it.
    private let condition = ThreadCondition()
    private var queue: [(work: @Sendable () -> Void, then: (@Sendable () -> Void)?)] = []
    private var next = 0
    private var threads = 0
    private var busy = 0

    /// An executor of at most `threadCount` threads (at least one) of `stackSize` bytes each,
    /// named `name`, whose work fans out to `helpers` (by default the shared pool).
    package init(threadCount: Int, stackSize: Int, helpers: WorkerPool = .shared, name: String = "offc-codec") {
        self.threadCount = max(1, threadCount)
        self.stackSize = stackSize
        self.name = name
        self.helpers = helpers
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
    package func submit(_ work: @escaping @Sendable () -> Void, then: (@Sendable () -> Void)? = nil) {
        condition.lock()
        queue.append((work, then))
        let waiting = queue.count - next
        let free = threads - busy
        if waiting > free, threads < threadCount {
            // Counted only once the thread exists: if none can be started, the queued work waits
            // for the threads there are (or for a later submission to try again).
            if startThread() { threads += 1 }
        }
        condition.signal()
        condition.unlock()
    }

    private func startThread() -> Bool {
        DetachedThread.start(name: name, stackSize: stackSize) { [self] in serve() }
    }

    /// A thread's life: take the oldest waiting work, run it, and wait when there is none.
    private func serve() {
        EngineThread.pool = helpers
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
