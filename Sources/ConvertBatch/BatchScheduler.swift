import ConvertCore
import FoundationEssentials
import Glibc

/// Runs a batch's items concurrently, admitted by the memory they will need rather than by count.
///
/// Each item declares its peak cost in bytes (the decoded bitmaps alive at once, see
/// ``bitmapBytes(width:height:bytesPerPixel:count:)``); the scheduler starts items in input order
/// while the sum of the costs in flight stays within ``budgetBytes`` and at most
/// ``maxConcurrent`` run at once. An item that alone exceeds the budget runs when nothing else
/// does, so it is delayed, never refused.
///
/// Admission is strictly first-in, first-out: a large item at the head waits for room instead
/// of letting smaller ones overtake it forever, so nothing starves, and because every admitted
/// item eventually finishes and frees its cost, the head is always admitted eventually (no
/// deadlock). Each result is delivered as its item finishes, so a log shows every file when it is
/// done, not when every earlier one is.
///
/// Cancelling the task that calls ``run(_:cost:body:onResult:)`` stops admissions and cancels
/// the items in flight (their bodies see `Task.isCancelled` and should throw or return a
/// cancelled result); `run` then returns once they have ended.
package struct BatchScheduler: Sendable {
    /// The most bytes of declared cost in flight at once.
    package let budgetBytes: Int64
    /// The most items in flight at once (`--jobs`).
    package let maxConcurrent: Int

    /// What a run did, for summaries and tests.
    package struct Statistics: Sendable, Equatable {
        /// Items that were started (a prefix of the input when the run was cancelled).
        package var started: Int
        /// Items whose result was delivered.
        package var finished: Int
        /// The largest sum of declared costs that was in flight at once.
        var peakBytes: Int64
        /// The most items that were in flight at once.
        var peakConcurrency: Int
    }

    /// Creates a scheduler.
    /// - Parameters:
    ///   - budgetBytes: Memory budget; ``defaultBudget()`` by default.
    ///   - maxConcurrent: Parallelism (`--jobs N`); the number of active cores by default.
    package init(
        budgetBytes: Int64 = BatchScheduler.defaultBudget(),
        maxConcurrent: Int = ProcessInfo.processInfo.activeProcessorCount
    ) {
        precondition(budgetBytes > 0, "a memory budget must be positive")
        precondition(maxConcurrent > 0, "at least one item must be able to run")
        self.budgetBytes = budgetBytes
        self.maxConcurrent = maxConcurrent
    }

    /// Runs `body` for every item, at most `maxConcurrent` at once and within the budget, and
    /// calls `onResult` with each item's index and result as the item finishes.
    ///
    /// - Parameters:
    ///   - items: The batch, in the order items are started.
    ///   - cost: An item's peak memory in bytes (negative counts as zero).
    ///   - body: The work for one item. It runs in a child task; make it return failures as
    ///     values (e.g. `Result<JobResult, ConvertError>`) so one bad file does not stop the batch.
    ///   - onResult: Called on the caller's task with each item's index and result, in the order
    ///     the items finish.
    /// - Returns: What ran; after a cancellation `started` tells how many items never began.
    @discardableResult
    package func run<Item: Sendable, Output: Sendable>(
        _ items: [Item], cost: (Item) -> Int64, body: @escaping @Sendable (Item) async -> Output,
        onResult: (Int, Output) async -> Void = { _, _ in }
    ) async -> Statistics {
        let costs = items.map { max(0, cost($0)) }
        var statistics = Statistics(started: 0, finished: 0, peakBytes: 0, peakConcurrency: 0)
        await withTaskGroup(of: (Int, Output).self) { group in
            var inFlight = 0
            var inFlightBytes: Int64 = 0
            while true {
                while statistics.started < items.count, !Task.isCancelled, inFlight < maxConcurrent,
                    inFlight == 0 || inFlightBytes + costs[statistics.started] <= budgetBytes
                {
                    let index = statistics.started
                    let item = items[index]
                    statistics.started += 1
                    inFlight += 1
                    inFlightBytes += costs[index]
                    statistics.peakBytes = max(statistics.peakBytes, inFlightBytes)
                    statistics.peakConcurrency = max(statistics.peakConcurrency, inFlight)
                    group.addTask { (index, await body(item)) }
                }
                guard let (index, output) = await group.next() else { break }
                inFlight -= 1
                inFlightBytes -= costs[index]
                await onResult(index, output)
                statistics.finished += 1
            }
        }
        return statistics
    }

    /// Runs the batch and returns every started item's result in input order.
    package func results<Item: Sendable, Output: Sendable>(
        _ items: [Item], cost: (Item) -> Int64, body: @escaping @Sendable (Item) async -> Output
    ) async -> [Output] {
        var outputs: [(index: Int, output: Output)] = []
        await run(items, cost: cost, body: body) { index, output in outputs.append((index, output)) }
        return outputs.sorted { $0.index < $1.index }.map(\.output)
    }

    /// Bytes of `count` decoded bitmaps of `width` x `height` pixels, for an item's declared
    /// cost (a 48 MP RGBA photo is about 190 MB). Saturates instead of overflowing.
    package static func bitmapBytes(width: Int, height: Int, bytesPerPixel: Int = 4, count: Int = 1) -> Int64 {
        let parts = [width, height, bytesPerPixel, count].map { Int64(max(0, $0)) }
        return parts.reduce(Int64(1)) { product, part in
            let (result, overflow) = product.multipliedReportingOverflow(by: part)
            return overflow ? .max : result
        }
    }

    /// Half the memory available now (`MemAvailable` in `/proc/meminfo`, lowered to the room
    /// left under the cgroup's `memory.max` when one is set), and at least 256 MiB. Half,
    /// because the codecs' own buffers and the files' page cache need room beyond the bitmaps.
    package static func defaultBudget() -> Int64 {
        defaultBudget(
            meminfo: try? String(contentsOfFile: "/proc/meminfo", encoding: .utf8),
            cgroupMax: try? String(contentsOfFile: "/sys/fs/cgroup/memory.max", encoding: .utf8),
            cgroupCurrent: try? String(contentsOfFile: "/sys/fs/cgroup/memory.current", encoding: .utf8))
    }

    fileprivate static let minimumBudget: Int64 = 256 << 20
    /// Used when nothing can be read (no /proc): a modest machine's worth.
    fileprivate static let fallbackAvailable: Int64 = 2 << 30

    package static func defaultBudget(meminfo: String?, cgroupMax: String?, cgroupCurrent: String?) -> Int64 {
        var available = meminfo.flatMap(memAvailable) ?? fallbackAvailable
        if let limit = cgroupMax.flatMap({ Int64($0.trimmingWhitespaceAndNewlines()) }),
            let used = cgroupCurrent.flatMap({ Int64($0.trimmingWhitespaceAndNewlines()) })
        {
            available = min(available, max(0, limit - used))
        }
        return max(minimumBudget, available / 2)
    }

    /// The `MemAvailable:` line of /proc/meminfo, in bytes.
    private static func memAvailable(_ text: String) -> Int64? {
        for line in text.split(separator: "\n") where line.hasPrefix("MemAvailable:") {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            guard fields.count >= 2, let kibibytes = Int64(fields[1]) else { return nil }
            return kibibytes * 1024
        }
        return nil
    }
}
