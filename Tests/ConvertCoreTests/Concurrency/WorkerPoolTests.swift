import Foundation
import Synchronization
import Testing

@testable import ConvertCore

/// ``WorkerPool``: the fan-out of a conversion runs on threads the engine owns, every index
/// exactly once, and completes whatever the pool's size or load and however deep the nesting,
/// because the caller takes part.
@Suite("Worker pool: the engine's fan-out")
struct WorkerPoolTests {
    @Test("every index runs once, index 0 on the calling codec thread, all on the limits' own threads")
    func everyIndexOnce() async throws {
        let limits = ConversionLimits(codecThreads: 2)
        let (caller, runs) = try await runBlocking(on: limits.codec) { _ in
            let runs = Mutex<[Int: UInt]>([:])
            WorkerPool.current.forEach(iterations: 7) { index in
                runs.withLock { $0[index] = pthread_self() }
            }
            return (pthread_self(), runs.withLock { $0 })
        }
        #expect(runs.keys.sorted() == Array(0..<7))
        #expect(runs[0] == caller)
        #expect(limits.helpers.runsOnOwnedThreads == 7)
        #expect(limits.helpers.runsOnOtherThreads == 0)
        #expect(limits.helpers.startedThreads <= limits.helperThreads)
    }

    @Test("a fan-out completes on the caller alone when every helper is held elsewhere")
    func busyHelpers() async throws {
        let limits = ConversionLimits(codecThreads: 1)
        let release = DispatchSemaphore(value: 0)
        let held = DispatchSemaphore(value: 0)
        // The pool's only helper waits until the fan-out below is over.
        let holder = limits.helpers.start(iterations: 1) { _ in
            held.signal()
            release.wait()
        }
        await held.waitOffPool()
        let (caller, threads) = try await runBlocking(on: limits.codec) { _ in
            let threads = Mutex<Set<UInt>>([])
            WorkerPool.current.forEach(iterations: 8) { _ in threads.withLock { _ = $0.insert(pthread_self()) } }
            return (pthread_self(), threads.withLock { $0 })
        }
        #expect(threads == [caller])
        release.signal()
        holder.join()
        #expect(limits.helpers.runsOnOtherThreads == 0)
    }

    @Test("nested fan-out on a pool of one helper runs every inner index")
    func nested() async throws {
        let limits = ConversionLimits(codecThreads: 1)
        let count = try await runBlocking(on: limits.codec) { _ in
            let count = Atomic<Int>(0)
            WorkerPool.current.forEach(iterations: 4) { _ in
                WorkerPool.current.forEach(iterations: 4) { _ in
                    WorkerPool.current.forEach(iterations: 2) { _ in count.add(1, ordering: .relaxed) }
                }
            }
            return count.load(ordering: .relaxed)
        }
        #expect(count == 32)
        #expect(limits.helpers.runsOnOtherThreads == 0)
    }

    @Test("started work no helper took runs on the thread that joins it")
    func joinRunsUnstarted() async throws {
        let limits = ConversionLimits(codecThreads: 1)
        let release = DispatchSemaphore(value: 0)
        let held = DispatchSemaphore(value: 0)
        let holder = limits.helpers.start(iterations: 1) { _ in
            held.signal()
            release.wait()
        }
        await held.waitOffPool()
        let (caller, ranOn) = try await runBlocking(on: limits.codec) { _ in
            let ranOn = Mutex<UInt?>(nil)
            let batch = WorkerPool.current.start(iterations: 1) { _ in ranOn.withLock { $0 = pthread_self() } }
            batch.join()
            batch.join()
            return (pthread_self(), ranOn.withLock { $0 })
        }
        #expect(ranOn == caller)
        release.signal()
        holder.join()
    }

    @Test("the shared limits' codec threads fan out to the shared pool")
    func sharedWiring() {
        #expect(ConversionLimits.shared.codec === BlockingExecutor.codec)
        #expect(ConversionLimits.shared.helpers === WorkerPool.shared)
        #expect(ConversionLimits.shared.admission === JobAdmission.shared)
        #expect(BlockingExecutor.codec.helpers === WorkerPool.shared)
        #expect(WorkerPool.shared.threadCount == BlockingExecutor.codec.threadCount)
        #expect(ConversionLimits.shared.helperThreads == ConversionLimits.codecThreads)
    }
}
