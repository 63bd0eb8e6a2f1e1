import Foundation
import Testing

@testable import ConvertCore

/// ``WriteBehind``: a staged output flushed to the disk step by step while it is written, so the
/// commit's sync has only the last step left; a small output is never flushed before its commit.
@Suite("Staged output flushed while it is written")
struct WriteBehindTests {
    /// Writes `megabytes` MiB into `staged`'s temporary file a MiB at a time, asking `writeBehind`
    /// after each; `slowly`: waiting for each flush it starts, as a writer slower than the disk.
    static func write(
        _ megabytes: Int, to staged: StagedOutput, polling writeBehind: WriteBehind, slowly: Bool = false
    ) throws {
        let handle = try #require(FileHandle(forWritingAtPath: staged.temporaryPath))
        let chunk = Data(repeating: 0x5A, count: 1 << 20)
        for _ in 0..<megabytes {
            handle.write(chunk)
            writeBehind.poll()
            if slowly { writeBehind.finish() }
        }
        try handle.close()
    }

    @Test("a 100 MiB output is flushed a 32 MiB step at a time while it grows, then committed whole")
    func flushesAsItGrows() throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let staged = try StagedOutput(destination: directory.appendingPathComponent("big.bin").path)
        let writeBehind = try #require(WriteBehind(path: staged.temporaryPath))
        try Self.write(100, to: staged, polling: writeBehind, slowly: true)
        writeBehind.finish()
        // At 32, 64 and 96 MiB.
        #expect(writeBehind.flushes == 3)
        let file = try staged.commit(gate: nil)
        #expect(file.byteCount == 100 << 20)
    }

    @Test("a writer faster than the disk never has two flushes running: the next waits for a step past the last")
    func oneAtATime() throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let staged = try StagedOutput(destination: directory.appendingPathComponent("fast.bin").path)
        let writeBehind = try #require(WriteBehind(path: staged.temporaryPath))
        try Self.write(100, to: staged, polling: writeBehind)
        writeBehind.finish()
        #expect((1...3).contains(writeBehind.flushes), "\(writeBehind.flushes) flushes")
        #expect(try staged.commit(gate: nil).byteCount == 100 << 20)
    }

    @Test("a 20 MiB output is left to the commit's sync")
    func smallIsLeftAlone() throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let staged = try StagedOutput(destination: directory.appendingPathComponent("small.bin").path)
        let writeBehind = try #require(WriteBehind(path: staged.temporaryPath))
        try Self.write(20, to: staged, polling: writeBehind)
        writeBehind.finish()
        #expect(writeBehind.flushes == 0)
        #expect(try staged.commit(gate: nil).byteCount == 20 << 20)
    }
}
