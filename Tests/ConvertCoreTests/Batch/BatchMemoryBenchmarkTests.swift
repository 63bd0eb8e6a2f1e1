import Foundation
import Testing

@testable import ConvertBatch
@testable import ConvertCore

/// Real memory, not just accounting: items allocate and touch exactly their declared cost, and
/// peak RSS (VmHWM, reset through /proc/self/clear_refs) must stay within the budget plus a
/// small allowance. Measured in a child process (this test binary re-run with a filter), so
/// tests running in parallel here cannot disturb the numbers.
@Suite("Batch memory benchmark", .enabled(if: FileManager.default.isWritableFile(atPath: "/proc/self/clear_refs")))
struct BatchMemoryBenchmarkTests {
    static let resultKey = "OFFCONVERT_TEST_MEMORY_RESULT"
    static let budget: Int64 = 400_000_000
    static let slack: Int64 = 96 << 20
    static let twelve = BatchScheduler.bitmapBytes(width: 4_032, height: 3_024) * 3 / 2
    static let fortyEight = BatchScheduler.bitmapBytes(width: 8_064, height: 6_048) * 3 / 2
    static let huge = BatchScheduler.bitmapBytes(width: 16_384, height: 12_288)

    struct Measurement: Codable {
        var photoPeak: Int64
        var photoAccounted: Int64
        var photoConcurrency: Int
        var photoSeconds: Double
        var hugePeak: Int64
        var hugeFinished: Int
    }

    @Test("photo-sized items on 2 jobs stay within a 400 MB budget; a 201 MP item runs alone")
    func peakRSS() async throws {
        let result = FileManager.default.temporaryDirectory.appendingPathComponent(
            "offconvert-memory-\(UUID().uuidString.prefix(8)).json")
        defer { try? FileManager.default.removeItem(at: result) }
        try await ChildTestRun.run(filter: "BatchMemoryChild", environment: [Self.resultKey: result.path])
        let measured = try JSONDecoder().decode(Measurement.self, from: Data(contentsOf: result))
        #expect(measured.photoAccounted <= Self.budget)
        #expect(measured.photoPeak <= Self.budget + Self.slack, "peak RSS above baseline: \(measured.photoPeak)")
        #expect(measured.photoConcurrency == 2, "two 12 MP items fit the budget and should run together")
        #expect(measured.hugeFinished == 3)
        #expect(measured.hugePeak <= Self.huge + Self.slack, "a huge item ran next to another: \(measured.hugePeak)")
        print(
            "batch memory benchmark: budget \(Self.budget / 1_000_000) MB; 16 photos (4 x 48 MP, 12 x 12 MP) peak RSS"
                + " +\(measured.photoPeak / 1_000_000) MB (accounted \(measured.photoAccounted / 1_000_000) MB) in"
                + " \(String(format: "%.2f", measured.photoSeconds)) s; 201 MP item alone peak RSS"
                + " +\(measured.hugePeak / 1_000_000) MB (declared \(Self.huge / 1_000_000) MB)")
    }
}

/// The measuring side of ``BatchMemoryBenchmarkTests``; skipped in a normal run.
@Suite("Batch memory child")
struct BatchMemoryChild {
    private func status(_ key: String) -> Int64 {
        let text = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
        for line in text.split(separator: "\n") where line.hasPrefix(key + ":") {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            if fields.count >= 2, let kibibytes = Int64(fields[1]) { return kibibytes * 1024 }
        }
        return 0
    }

    private func resetPeak() { try? "5".write(toFile: "/proc/self/clear_refs", atomically: false, encoding: .utf8) }

    /// Allocates `bytes`, touches every page so it is resident, holds it briefly, frees it.
    @Sendable private static func hold(_ bytes: Int64) async {
        guard let buffer = malloc(Int(bytes)) else { return }
        memset(buffer, 1, Int(bytes))
        try? await Task.sleep(for: .milliseconds(15))
        free(buffer)
    }

    @Test(.enabled(if: ProcessInfo.processInfo.environment[BatchMemoryBenchmarkTests.resultKey] != nil))
    func measure() async throws {
        let output = try #require(ProcessInfo.processInfo.environment[BatchMemoryBenchmarkTests.resultKey])
        typealias B = BatchMemoryBenchmarkTests
        let photos = (0..<16).map { $0 % 4 == 0 ? B.fortyEight : B.twelve }
        let scheduler = BatchScheduler(budgetBytes: B.budget, maxConcurrent: 2)
        let baseline = status("VmRSS")
        resetPeak()
        let started = Date()
        let statistics = await scheduler.run(photos, cost: { $0 }, body: Self.hold)
        let photoPeak = status("VmHWM") - baseline
        let photoSeconds = Date().timeIntervalSince(started)
        resetPeak()
        let hugeStatistics = await scheduler.run([B.twelve, B.huge, B.twelve], cost: { $0 }, body: Self.hold)
        let measurement = B.Measurement(
            photoPeak: photoPeak, photoAccounted: statistics.peakBytes, photoConcurrency: statistics.peakConcurrency,
            photoSeconds: photoSeconds, hugePeak: status("VmHWM") - baseline, hugeFinished: hugeStatistics.finished)
        try JSONEncoder().encode(measurement).write(to: URL(fileURLWithPath: output))
    }
}
