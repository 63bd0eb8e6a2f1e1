import Foundation
import Testing

@testable import ConvertCore

@Suite("Allowance: replay, charge before placing, refund")
struct AllowanceReplayTests {
    @Test("an older copy of the record put back is found out by its witness and fails closed")
    func replay() throws {
        let folder = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let clock = TestClock(AllowanceFixtures.paris(2026, 8, 3, 10, 0))
        let store = AllowanceFixtures.store(folder, clock: clock)
        try store.reserve().release()
        #expect(try store.status().remaining == 3)
        let record = folder.appendingPathComponent("state/allowance")
        let saved = try Data(contentsOf: record)
        for _ in 0..<3 { try store.reserve().commit() }
        expectConvertError(.allowanceExhausted) { try store.reserve() }
        try saved.write(to: record)
        let status = try store.status()
        #expect(status.isDamaged && status.remaining == 0)
        expectConvertError(.allowanceDamaged) { try store.reserve() }
        // Deleting the witness as well does not help: a version-2 record needs one.
        try FileManager.default.removeItem(at: folder.appendingPathComponent(".state-witness"))
        try saved.write(to: record)
        #expect(try store.status().isDamaged)
        // The next day starts normally.
        clock.set(AllowanceFixtures.paris(2026, 8, 4, 0, 0, 1))
        #expect(try store.status().remaining == 3)
        #expect(try store.status().isDamaged == false)
    }

    @Test("removing the state folder while its witness stays is a reset, and fails closed")
    func reset() throws {
        let folder = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = AllowanceFixtures.store(folder, clock: TestClock(AllowanceFixtures.paris(2026, 8, 3, 10, 0)))
        try store.reserve().commit()
        try FileManager.default.removeItem(at: folder.appendingPathComponent("state"))
        #expect(try store.status().isDamaged)
    }

    @Test("a charge taken before placing remembers the batch; one placed nothing is refunded")
    func chargeBeforePlacing() throws {
        let folder = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = AllowanceFixtures.store(folder, clock: TestClock(AllowanceFixtures.paris(2026, 8, 3, 10, 0)))
        let placed = try store.reserve()
        try placed.chargeBeforePlacing(batch: "a:0")
        #expect(try store.status().used == 1)
        try placed.chargeBeforePlacing(batch: "a:0")
        placed.outputMoved()
        try placed.finish()
        #expect(try store.status().used == 1)
        #expect(try store.hasCharged(batch: "a:0"))
        #expect(try store.hasCharged(batch: "a:1") == false)

        let failed = try store.reserve()
        try failed.chargeBeforePlacing(batch: "b:0")
        #expect(try store.status().used == 2)
        try failed.finish()
        let status = try store.status()
        #expect(status.used == 1 && status.reserved == 0)
        #expect(try store.hasCharged(batch: "b:0") == false)
    }

    @Test("asking whether a batch was charged writes nothing, even an hour later when the clock's mark moved")
    func questionWritesNothing() throws {
        let folder = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let clock = TestClock(AllowanceFixtures.paris(2026, 8, 3, 10, 0))
        let store = AllowanceFixtures.store(folder, clock: clock)
        let reservation = try store.reserve()
        try reservation.chargeBeforePlacing(batch: "a:0")
        reservation.outputMoved()
        try reservation.finish()
        let record = folder.appendingPathComponent("state/allowance").path
        let witness = folder.appendingPathComponent(".state-witness/allowance").path
        func identity(_ path: String) throws -> [FileAttributeKey: Any] {
            try FileManager.default.attributesOfItem(atPath: path).filter {
                [.systemFileNumber, .modificationDate, .size].contains($0.key)
            }
        }
        let before = (try identity(record), try identity(witness), try Data(contentsOf: URL(fileURLWithPath: record)))
        clock.advance(3600)
        #expect(try store.hasCharged(batch: "a:0"))
        #expect(try store.hasCharged(batch: "b:0") == false)
        let after = (try identity(record), try identity(witness), try Data(contentsOf: URL(fileURLWithPath: record)))
        // Replaced files get a new inode: the same inode, time and bytes mean untouched.
        #expect(NSDictionary(dictionary: before.0).isEqual(to: after.0))
        #expect(NSDictionary(dictionary: before.1).isEqual(to: after.1))
        #expect(before.2 == after.2)
        // The next change writes the mark the question saw, never an earlier one.
        try store.reserve().release()
        #expect(try Data(contentsOf: URL(fileURLWithPath: record)) != before.2)
    }
}
