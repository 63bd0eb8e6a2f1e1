import Foundation
import Synchronization
import Testing

@testable import ConvertBatch
@testable import ConvertCore

/// Issue #53: the CLI's photo commands run through ``PhotoBatch`` as its first user, bringing
/// their own journal, positions, estimates and checks (``PhotoBatchHost``); the queue under it
/// is the one every batch runs on (``BatchQueue``).
@Suite("PhotoBatch hosted by the CLI, and the queue under every batch")
struct PhotoBatchHostTests {
    private final class Log: Sendable {
        let progressed = Mutex<Set<Int>>([])
        let checked = Mutex<[Int]>([])
        let converted = Mutex<[Int]>([])
    }

    @Test("a hosted batch: a refused check converts nothing, lines go under the host's indices, progress by position")
    func hosted() async throws {
        let folder = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let state = folder.appendingPathComponent("state").path
        let inputs = try PhotoBatchTests.inputs(3, in: folder)
        let outputs = (0..<3).map { folder.appendingPathComponent("out \($0).jpg").path }
        let identity = ["heic-to-jpg", "quality=85"] + inputs
        let requests = (0..<3).map {
            PhotoRequest(inputPath: inputs[$0], format: .jpeg, outputPath: outputs[$0])
        }
        let log = Log()
        var results: [Int: Result<JobResult, ConvertError>] = [:]
        do {
            let journal = try BatchJournal(identity: identity, stateDirectory: state)
            defer { journal.release() }
            var host = PhotoBatchHost(journal: journal, indices: [4, 5, 6], total: 7, costs: [1, 1, 1]) {
                position throws(ConvertError) in
                log.checked.withLock { $0.append(position) }
                if position == 1 { throw ConvertError(code: .deviceFull, message: "No room for the output.") }
            }
            host.progress = { position, _ in
                _ = log.progressed.withLock { $0.insert(position) }
            }
            await PhotoBatch(requests, memoryBudget: 1 << 30, concurrency: 2).run(host: host) { position, outcome in
                results[position] = outcome
            }
        }
        #expect(Set(log.checked.withLock { $0 }) == [0, 1, 2])
        #expect(log.progressed.withLock { $0 } == [0, 2], "only the photos that converted report progress")
        #expect(results.count == 3)
        #expect((try? results[0]?.get().outputs.map(\.path)) == [outputs[0]])
        #expect((try? results[2]?.get().outputs.map(\.path)) == [outputs[2]])
        guard case .failure(let refused) = results[1] else {
            Issue.record("position 1 was not refused")
            return
        }
        #expect(refused.code == .deviceFull)
        #expect(!FileManager.default.fileExists(atPath: outputs[1]))

        // The host's journal holds the photos under the host's own indices.
        let again = try BatchJournal(identity: identity, stateDirectory: state)
        #expect(again.completedOutputs(index: 4, input: inputs[0])?.map(\.path) == [outputs[0]])
        #expect(again.completedOutputs(index: 6, input: inputs[2])?.map(\.path) == [outputs[2]])
        #expect(again.completedOutputs(index: 5, input: inputs[1]) == nil)
        #expect(again.completedOutputs(index: 0, input: inputs[0]) == nil)
    }

    @Test("the queue: a failed check never converts, a failed conversion gets no finished line, results by position")
    func queue() async throws {
        let folder = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let state = folder.appendingPathComponent("state").path
        let inputs = try (0..<3).map { index in
            let path = folder.appendingPathComponent("in \(index).txt").path
            try Data("input \(index)".utf8).write(to: URL(fileURLWithPath: path))
            return path
        }
        let identity = ["queue-test"] + inputs
        let log = Log()
        var ended: [Int] = []
        var failures: [Int: ConvertError.Code] = [:]
        do {
            let journal = try BatchJournal(identity: identity, stateDirectory: state)
            defer { journal.release() }
            var work = BatchQueue.Work { position throws(ConvertError) in
                log.converted.withLock { $0.append(position) }
                if position == 2 { throw ConvertError(code: .inputCorrupt, message: "Damaged.") }
                let output = inputs[position] + ".out"
                try? Data("out".utf8).write(to: URL(fileURLWithPath: output))
                return JobResult(inputPath: inputs[position], outputs: [OutputFile(path: output, byteCount: 3)])
            }
            work.check = { position throws(ConvertError) in
                if position == 1 { throw ConvertError(code: .inputMissing, message: "Gone.") }
            }
            let jobs = inputs.indices.map {
                BatchQueue.Job(index: $0 + 10, input: inputs[$0], destination: inputs[$0] + ".out", cost: 1)
            }
            await BatchQueue(memoryBudget: 1 << 20, concurrency: 1, journal: journal).run(jobs, work: work) {
                position, outcome in
                ended.append(position)
                if case .failure(let error) = outcome { failures[position] = error.code }
            }
        }
        #expect(ended == [0, 1, 2], "one at a time, in order")
        #expect(log.converted.withLock { $0 } == [0, 2], "the refused check converted nothing")
        #expect(failures == [1: .inputMissing, 2: .inputCorrupt])
        let again = try BatchJournal(identity: identity, stateDirectory: state)
        #expect(again.completedOutputs(index: 10, input: inputs[0])?.map(\.path) == [inputs[0] + ".out"])
        #expect(again.completedOutputs(index: 12, input: inputs[2]) == nil)
    }
}
