import Foundation
import Synchronization
import Testing

@testable import ConvertBatch
@testable import ConvertCore
@testable import ConvertMedia

/// Measures what is really in flight, from inside the item bodies. (A pthread lock, which
/// ThreadSanitizer understands, rather than `Mutex`: see ``PthreadLocked``.)
private final class Meter: Sendable {
    private let state = PthreadLocked<
        (bytes: Int64, count: Int, peakBytes: Int64, peakCount: Int, oversizeOverlap: Bool)
    >(
        (0, 0, 0, 0, false))
    let budget: Int64

    init(budget: Int64) { self.budget = budget }

    func enter(_ cost: Int64) {
        state.withLock {
            $0.bytes += cost
            $0.count += 1
            $0.peakBytes = max($0.peakBytes, $0.bytes)
            $0.peakCount = max($0.peakCount, $0.count)
            if $0.count > 1 && $0.bytes > budget { $0.oversizeOverlap = true }
        }
    }

    func leave(_ cost: Int64) {
        state.withLock {
            $0.bytes -= cost
            $0.count -= 1
        }
    }

    var peakBytes: Int64 { state.withLock { $0.peakBytes } }
    var peakCount: Int { state.withLock { $0.peakCount } }
    var oversizeOverlap: Bool { state.withLock { $0.oversizeOverlap } }
}

@Suite("Batch scheduler")
struct BatchSchedulerTests {
    struct Item: Sendable {
        var index: Int
        var cost: Int64
        var micros: UInt32
    }

    @Test(
        "random costs: the budget is never exceeded, huge items run alone, every result comes once",
        arguments: [1, 2, 3, 4])
    func budget(seed: UInt64) async {
        var random = FuzzMixer(state: seed)
        let budget: Int64 = 1_000
        // Mostly small items, some near the budget, a few bigger than the whole budget.
        let items = (0..<80).map { index in
            let roll = Int.random(in: 0..<20, using: &random)
            let cost: Int64 =
                roll == 0
                ? 1_500
                : roll < 4 ? Int64.random(in: 500...1_000, using: &random) : Int64.random(in: 1...300, using: &random)
            return Item(index: index, cost: cost, micros: UInt32.random(in: 100...3_000, using: &random))
        }
        let meter = Meter(budget: budget)
        let scheduler = BatchScheduler(budgetBytes: budget, maxConcurrent: 6)
        var order: [Int] = []
        let statistics = await scheduler.run(items, cost: { $0.cost }) { item in
            meter.enter(item.cost)
            try? await Task.sleep(for: .microseconds(Int(item.micros)))
            meter.leave(item.cost)
            return item.index
        } onResult: { index, value in
            #expect(index == value)
            order.append(value)
        }
        #expect(order.sorted() == Array(0..<80))
        #expect(statistics.started == 80 && statistics.finished == 80)
        #expect(!meter.oversizeOverlap, "an item bigger than the budget ran next to another one")
        let withinBudget = items.filter { $0.cost <= budget }
        #expect(withinBudget.count < items.count, "the seed produced no oversize item")
        // The accounted peak counts an oversize item alone; otherwise it stays in budget.
        #expect(statistics.peakBytes <= max(budget, items.map(\.cost).max() ?? 0))
        #expect(meter.peakBytes <= max(budget, 1_500))
        #expect(meter.peakCount <= 6 && statistics.peakConcurrency <= 6)
        #expect(meter.peakCount > 1, "small items should overlap")
    }

    @Test("each result is reported when its item finishes: a quick second item before a slow first one")
    func finishOrder() async {
        let scheduler = BatchScheduler(budgetBytes: 1_000, maxConcurrent: 2)
        let secondReported = Atomic<Bool>(false)
        var order: [Int] = []
        await scheduler.run([0, 1], cost: { _ in 1 }) { index in
            // The first item ends only once the second has been reported (or after 10 s, which
            // fails the order below): a scheduler that reports in input order cannot pass.
            if index == 0 {
                for _ in 0..<1_000 where !secondReported.load(ordering: .acquiring) {
                    try? await Task.sleep(for: .milliseconds(10))
                }
            }
            return index
        } onResult: { index, _ in
            order.append(index)
            if index == 1 { secondReported.store(true, ordering: .releasing) }
        }
        #expect(order == [1, 0])
    }

    @Test("an item bigger than the whole budget still runs")
    func hugeItem() async {
        let scheduler = BatchScheduler(budgetBytes: 100, maxConcurrent: 4)
        let results = await scheduler.results([10, 5_000, 10], cost: { Int64($0) }) { $0 * 2 }
        #expect(results == [20, 10_000, 20])
    }

    @Test("--jobs caps concurrency even when memory allows more")
    func jobs() async {
        let meter = Meter(budget: .max)
        let scheduler = BatchScheduler(budgetBytes: 1 << 40, maxConcurrent: 2)
        let statistics = await scheduler.run(Array(0..<20), cost: { _ in 1 }) { _ in
            meter.enter(1)
            try? await Task.sleep(for: .milliseconds(2))
            meter.leave(1)
        }
        #expect(meter.peakCount == 2)
        #expect(statistics.peakConcurrency == 2)
    }

    @Test("cancellation stops admissions and cancels running items")
    func cancellation() async {
        let scheduler = BatchScheduler(budgetBytes: 1_000, maxConcurrent: 2)
        let cancelledBodies = Atomic<Int>(0)
        let startedBodies = Atomic<Int>(0)
        let task = Task {
            await scheduler.run(Array(0..<100), cost: { _ in 10 }) { _ in
                startedBodies.add(1, ordering: .relaxed)
                do { try await Task.sleep(for: .seconds(30)) } catch { cancelledBodies.add(1, ordering: .relaxed) }
            }
        }
        // Cancel once both slots are taken, however long a loaded machine takes to fill them (a
        // fixed 100 ms wait saw none started on a fresh machine's full run).
        while startedBodies.load(ordering: .relaxed) < 2 { try? await Task.sleep(for: .milliseconds(5)) }
        task.cancel()
        let statistics = await task.value
        #expect(statistics.started == 2)
        #expect(statistics.finished == 2)
        #expect(cancelledBodies.load(ordering: .relaxed) == 2)
    }

    @Test("default budget: half of MemAvailable, capped by the cgroup, at least 256 MiB")
    func defaultBudget() {
        let meminfo = "MemTotal:       16000000 kB\nMemFree:         1000000 kB\nMemAvailable:    8000000 kB\n"
        #expect(BatchScheduler.defaultBudget(meminfo: meminfo, cgroupMax: nil, cgroupCurrent: nil) == 4_096_000_000)
        #expect(
            BatchScheduler.defaultBudget(meminfo: meminfo, cgroupMax: "max\n", cgroupCurrent: "100\n") == 4_096_000_000)
        #expect(
            BatchScheduler.defaultBudget(meminfo: meminfo, cgroupMax: "2000000000\n", cgroupCurrent: "1000000000\n")
                == 500_000_000)
        #expect(
            BatchScheduler.defaultBudget(meminfo: "MemAvailable: 1000 kB\n", cgroupMax: nil, cgroupCurrent: nil) == 256
                << 20)
        #expect(BatchScheduler.defaultBudget() >= 256 << 20)
    }

    @Test("bitmap cost: 48 MP RGBA is about 190 MB; overflow saturates")
    func bitmapBytes() {
        #expect(BatchScheduler.bitmapBytes(width: 8_000, height: 6_000) == 192_000_000)
        #expect(BatchScheduler.bitmapBytes(width: 4_032, height: 3_024, bytesPerPixel: 3, count: 2) == 73_156_608)
        #expect(BatchScheduler.bitmapBytes(width: .max, height: .max) == .max)
    }
}
