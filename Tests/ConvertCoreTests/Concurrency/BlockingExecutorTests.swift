import Foundation
import Synchronization
import Testing

@testable import ConvertAllowance
@testable import ConvertCore

@Suite("Blocking executor")
struct BlockingExecutorTests {
    /// The calling thread's name, as `top -H` and `perf` show it.
    static func threadName() -> String {
        ((try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8)) ?? "")
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test("the engine's threads carry the engine's names, cut to Linux's 15 bytes; not the pool that started them")
    func threadNames() async throws {
        let named = Mutex<[String]>([])
        let done = DispatchSemaphore(value: 0)
        let helpers = WorkerPool(threadCount: 2, stackSize: 1 << 20)
        for executor in [
            BlockingExecutor(threadCount: 1, stackSize: 1 << 20, helpers: helpers),
            BlockingExecutor(threadCount: 1, stackSize: 1 << 20, helpers: helpers, name: "offc-a-name-longer-than-15"),
        ] {
            executor.submit {
                let own = Self.threadName()
                // Iterations 1...3 go to the helpers while index 0 runs here; each waits for the
                // others so that at least one runs on a helper thread.
                let helperNames = Mutex<Set<String>>([])
                let arrived = Atomic<Int>(0)
                WorkerPool.current.forEach(iterations: 3) { _ in
                    helperNames.withLock { _ = $0.insert(Self.threadName()) }
                    arrived.add(1, ordering: .relaxed)
                    let deadline = ContinuousClock.now + .seconds(2)
                    while arrived.load(ordering: .relaxed) < 2 && ContinuousClock.now < deadline { sched_yield() }
                }
                named.withLock { $0 += [own] + helperNames.withLock { $0.sorted() } }
                done.signal()
            }
            await done.waitOffPool()
        }
        let names = named.withLock { $0 }
        #expect(names.first == "offc-codec")
        #expect(names.contains("offc-a-name-lon"))
        #expect(names.contains("offc-helper"))
        #expect(!names.contains { $0.contains("qos") }, "\(names)")
    }

    @Test("work beyond the bound waits for a thread; no more threads start than the bound")
    func bounded() async throws {
        let executor = BlockingExecutor(threadCount: 3, stackSize: 1 << 20)
        let gate = DispatchSemaphore(value: 0)
        let entered = DispatchSemaphore(value: 0)
        let running = Atomic<Int>(0)
        let peak = Atomic<Int>(0)
        let finished = DispatchSemaphore(value: 0)
        for _ in 0..<9 {
            executor.submit {
                let now = running.wrappingAdd(1, ordering: .relaxed).newValue
                peak.max(now)
                entered.signal()
                gate.wait()
                running.wrappingSubtract(1, ordering: .relaxed)
                finished.signal()
            }
        }
        // Three pieces of work hold the three threads; the other six wait in the queue.
        for _ in 0..<3 { await entered.waitOffPool() }
        #expect(running.load(ordering: .relaxed) == 3)
        #expect(executor.startedThreads == 3)
        for _ in 0..<9 { gate.signal() }
        for _ in 0..<9 { await finished.waitOffPool() }
        #expect(executor.startedThreads == 3)
        #expect(peak.load(ordering: .relaxed) == 3)
    }

    @Test("under ten times as much work as threads, the pool never starts more threads than its size")
    func oversubscribed() async throws {
        let executor = BlockingExecutor(threadCount: 4, stackSize: 1 << 20)
        let gate = DispatchSemaphore(value: 0)
        let entered = DispatchSemaphore(value: 0)
        let finished = DispatchSemaphore(value: 0)
        let running = Atomic<Int>(0)
        let peak = Atomic<Int>(0)
        for _ in 0..<40 {
            executor.submit {
                peak.max(running.wrappingAdd(1, ordering: .relaxed).newValue)
                entered.signal()
                gate.wait()
                running.wrappingSubtract(1, ordering: .relaxed)
                finished.signal()
            }
        }
        for _ in 0..<4 { await entered.waitOffPool() }
        #expect(executor.startedThreads == 4)
        for _ in 0..<40 { gate.signal() }
        for _ in 0..<40 { await finished.waitOffPool() }
        #expect(executor.startedThreads == 4)
        #expect(peak.load(ordering: .relaxed) == 4)
    }

    @Test(
        "the library's lanes are fixed and small: the codec lane as many threads as cores (at least 2), the short lane four"
    )
    func laneSizes() {
        #expect(BlockingExecutor.codec.threadCount == max(2, ProcessInfo.processInfo.activeProcessorCount))
        #expect(BlockingExecutor.short.threadCount == 4)
        #expect(ConversionLimits.codecThreads == BlockingExecutor.codec.threadCount)
        #expect(JobAdmission.shared.maximum == BlockingExecutor.codec.threadCount)
    }

    @Test("short-lane work, an allowance transaction included, completes while every codec thread is held")
    func shortLaneBesideFullCodecLane() async throws {
        let codec = BlockingExecutor.codec
        let gate = DispatchSemaphore(value: 0)
        let entered = DispatchSemaphore(value: 0)
        let finished = DispatchSemaphore(value: 0)
        // Every codec thread held, and as much work again queued behind them.
        let pieces = codec.threadCount * 2
        for _ in 0..<pieces {
            codec.submit {
                entered.signal()
                gate.wait()
                finished.signal()
            }
        }
        for _ in 0..<codec.threadCount { await entered.waitOffPool() }
        let folder = try Fixtures.temporaryDirectory("short-lane")
        defer { try? FileManager.default.removeItem(at: folder) }
        let short = try await runBlocking(on: .short) { _ in 42 }
        let store = AllowanceStore(
            directory: folder.path, clock: { Date(timeIntervalSince1970: 1_800_000_000) }, dailyLimit: 3)
        let charged = try await store.withAllowance { reservation in
            await reservation.outputPlaced()
            return true
        }
        #expect(short == 42 && charged)
        #expect(try store.status().used == 1)
        for _ in 0..<pieces { gate.signal() }
        for _ in 0..<pieces { await finished.waitOffPool() }
    }

    @Test("threads are reused: a hundred calls one after another start one thread")
    func reused() async throws {
        let executor = BlockingExecutor(threadCount: 8, stackSize: 1 << 20)
        var sum = 0
        for value in 0..<100 {
            sum += try await runBlocking(on: executor) { _ in value }
        }
        #expect(sum == 4950)
        #expect(executor.startedThreads == 1)
    }

    @Test("a blocked thread does not hold up other work while the bound allows another thread")
    func noHeadOfLineBlocking() async throws {
        let executor = BlockingExecutor(threadCount: 2, stackSize: 1 << 20)
        let gate = DispatchSemaphore(value: 0)
        let started = DispatchSemaphore(value: 0)
        let long = Task {
            try await runBlocking(on: executor) { _ in
                started.signal()
                gate.wait()
            }
        }
        await started.waitOffPool()
        // The long job holds one thread; a short one still runs on the second.
        let short = try await runBlocking(on: executor) { _ in 42 }
        #expect(short == 42)
        gate.signal()
        try await long.value
        #expect(executor.startedThreads == 2)
    }

    @Test("cancelling the task sets the flag the blocking work polls")
    func cancellation() async throws {
        let executor = BlockingExecutor(threadCount: 2, stackSize: 1 << 20)
        let started = DispatchSemaphore(value: 0)
        let task = Task {
            try await runBlocking(on: executor) { flag -> Int in
                started.signal()
                var polls = 0
                while !flag.isCancelled {
                    polls += 1
                    usleep(1000)
                }
                return polls
            }
        }
        await started.waitOffPool()
        task.cancel()
        let polls = try await task.value
        #expect(polls >= 0)
    }

    @Test(
        "runBlocking throws ConvertError only: a ConvertError as it is, cancellation as cancelled, others as internal")
    func typedThrows() async {
        struct Other: Error {}
        let executor = BlockingExecutor(threadCount: 1, stackSize: 1 << 20)
        await expectConvertError(.inputCorrupt) {
            try await runBlocking(on: executor) { _ in throw ConvertError(code: .inputCorrupt, message: "damaged") }
        }
        await expectConvertError(.cancelled) { try await runBlocking(on: executor) { _ in throw CancellationError() } }
        let other = await expectConvertError(.internalError) {
            try await runBlocking(on: executor) { _ in throw Other() }
        }
        #expect(other?.underlyingDescription?.contains("Other") == true)
    }
}

extension DispatchSemaphore {
    /// Waits on a Dispatch thread: a test that blocked the cooperative pool (two threads here)
    /// could starve the very tasks it waits for.
    func waitOffPool() async {
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                self.wait()
                continuation.resume()
            }
        }
    }
}

extension Atomic where Value == Int {
    /// Raises the stored value to at least `candidate`.
    func max(_ candidate: Int) {
        var current = load(ordering: .relaxed)
        while current < candidate {
            let (exchanged, original) = compareExchange(expected: current, desired: candidate, ordering: .relaxed)
            if exchanged { return }
            current = original
        }
    }
}
