import Foundation
import Synchronization
import Testing

@testable import ConvertAllowance
@testable import ConvertCore

/// The admission limit of conversion jobs (``JobAdmission``, public as ``ConversionLimits``):
/// each test has an admission of its own, so other suites' jobs never count against it.
@Suite("Job admission")
struct JobAdmissionTests {
    @Test("no more bodies run at once than the limit, and the limit is reached")
    func limitHolds() async throws {
        let admission = JobAdmission(limit: 3, maximum: 8)
        let tally = Tally()
        let entered = DispatchSemaphore(value: 0)
        let gate = DispatchSemaphore(value: 0)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<30 {
                group.addTask {
                    try await admission.run(onWait: { tally.queued.wrappingAdd(1, ordering: .relaxed) }) {
                        tally.peak.max(tally.running.wrappingAdd(1, ordering: .relaxed).newValue)
                        entered.signal()
                        await gate.waitOffPool()
                        tally.running.wrappingSubtract(1, ordering: .relaxed)
                    }
                }
            }
            for _ in 0..<3 { await entered.waitOffPool() }
            #expect(admission.running == 3)
            for _ in 0..<30 { gate.signal() }
            try await group.waitForAll()
        }
        let peak = tally.peak.load(ordering: .relaxed)
        let queued = tally.queued.load(ordering: .relaxed)
        #expect(peak == 3)
        #expect(queued >= 1)
        #expect(admission.running == 0 && admission.waiting == 0)
    }

    @Test("waiting jobs are admitted in the order they arrived")
    func firstInFirstOut() async throws {
        let admission = JobAdmission(limit: 1, maximum: 4)
        let tally = Tally()
        let gate = DispatchSemaphore(value: 0)
        let entered = DispatchSemaphore(value: 0)
        let holder = Task {
            try await admission.run(onWait: {}) {
                entered.signal()
                await gate.waitOffPool()
            }
        }
        await entered.waitOffPool()
        var waiters: [Task<Void, any Error>] = []
        for index in 0..<8 {
            let queued = DispatchSemaphore(value: 0)
            waiters.append(
                Task {
                    try await admission.run(onWait: { queued.signal() }) { tally.order.withLock { $0.append(index) } }
                })
            // The next job starts only once this one is in the queue: arrival order is known.
            await queued.waitOffPool()
        }
        #expect(admission.waiting == 8)
        gate.signal()
        try await holder.value
        for waiter in waiters { try await waiter.value }
        let order = tally.order.withLock { $0 }
        #expect(order == Array(0..<8))
    }

    @Test("raising the limit admits waiting jobs; it is clamped to 1...maximum")
    func changingTheLimit() async throws {
        let admission = JobAdmission(limit: 1, maximum: 3)
        admission.setLimit(0)
        #expect(admission.limit == 1)
        admission.setLimit(99)
        #expect(admission.limit == 3)
        admission.setLimit(1)
        let gate = DispatchSemaphore(value: 0)
        let entered = DispatchSemaphore(value: 0)
        let queued = DispatchSemaphore(value: 0)
        let first = Task {
            try await admission.run(onWait: {}) {
                entered.signal()
                await gate.waitOffPool()
            }
        }
        await entered.waitOffPool()
        let second = Task {
            try await admission.run(onWait: { queued.signal() }) {
                entered.signal()
                await gate.waitOffPool()
            }
        }
        await queued.waitOffPool()
        admission.setLimit(2)
        await entered.waitOffPool()
        #expect(admission.running == 2)
        gate.signal()
        gate.signal()
        try await first.value
        try await second.value
    }

    @Test(
        "a job cancelled while it waits for admission ends cancelled at once, never runs its body and charges nothing")
    func cancelledWhileWaiting() async throws {
        let admission = JobAdmission(limit: 1, maximum: 2)
        let folder = try Fixtures.temporaryDirectory("admission-cancel")
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = AllowanceStore(
            directory: folder.path, clock: { Date(timeIntervalSince1970: 1_800_000_000) }, dailyLimit: 5)
        let gate = DispatchSemaphore(value: 0)
        let entered = DispatchSemaphore(value: 0)
        let holder = ConversionJob.start(path: "holder", admission: admission) { _ in
            entered.signal()
            await gate.waitOffPool()
            return JobResult(inputPath: "holder", outputs: [])
        }
        await entered.waitOffPool()

        let tally = Tally()
        let waiting = ConversionJob.start(path: "waiting", admission: admission) { _ in
            tally.bodyRan.store(true, ordering: .relaxed)
            return JobResult(inputPath: "waiting", outputs: [OutputFile(path: "never", byteCount: 1)])
        }
        // Follow the waiting job under an allowance reservation, as the CLI does; cancel it once
        // it says it is queued.
        let consumer = Task { () -> (events: [JobEvent], charged: Bool) in
            var events: [JobEvent] = []
            let charged: Bool =
                (try? await store.withAllowance { reservation in
                    for await event in waiting.events {
                        events.append(event)
                        if event == .progress(JobProgress(stage: .queued, fraction: 0)) { waiting.cancel() }
                        if case .finished = event { await reservation.outputPlaced() }
                    }
                    return true
                }) ?? false
            return (events, charged)
        }
        let (events, charged) = await consumer.value
        #expect(charged)
        #expect(events.first == .progress(JobProgress(stage: .queued, fraction: 0)))
        #expect(events.filter(\.isTerminal).count == 1)
        if case .failed(let error) = events.last {
            #expect(error.category == .cancelled)
        } else {
            Issue.record("the last event is \(String(describing: events.last)), not a cancellation")
        }
        let ranWhileWaiting = tally.bodyRan.load(ordering: .relaxed)
        #expect(!ranWhileWaiting)
        #expect(admission.waiting == 0 && admission.running == 1)
        let allowance = try store.status()
        #expect(allowance.used == 0 && allowance.reserved == 0)

        gate.signal()
        _ = try await holder.result()
        #expect(admission.running == 0)
        let ranLater = tally.bodyRan.load(ordering: .relaxed)
        #expect(!ranLater)
    }

    @Test("ConversionLimits reads and sets the shared admission, clamped to the codec pool")
    func publicLimits() {
        let original = ConversionLimits.concurrentConversions
        defer { ConversionLimits.concurrentConversions = original }
        #expect(original == ConversionLimits.codecThreads)
        ConversionLimits.concurrentConversions = 1
        #expect(JobAdmission.shared.limit == 1)
        ConversionLimits.concurrentConversions = 1000
        #expect(ConversionLimits.concurrentConversions == ConversionLimits.codecThreads)
    }
}

/// What the tests count from many tasks at once, in an object the tasks share (a noncopyable
/// `Atomic` or `Mutex` local cannot be captured by a task's closure).
private final class Tally: Sendable {
    let running = Atomic<Int>(0)
    let peak = Atomic<Int>(0)
    let queued = Atomic<Int>(0)
    let bodyRan = Atomic<Bool>(false)
    let order = Mutex<[Int]>([])
}
