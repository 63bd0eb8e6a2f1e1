import Foundation
import Testing

@testable import ConvertAllowance
@testable import ConvertCore

@Suite("Allowance store")
struct AllowanceStoreTests {
    private struct Boom: Error {}

    private func spend(_ store: AllowanceStore) throws {
        let reservation = try store.reserve()
        try reservation.commit()
    }

    @Test("three a day, then a clear allowance error before any work; resets at local midnight")
    func rollOver() throws {
        let folder = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let clock = TestClock(AllowanceFixtures.paris(2026, 3, 10, 23, 58))
        let store = AllowanceFixtures.store(folder, clock: clock)
        for _ in 0..<3 { try spend(store) }
        let error = expectConvertError(.allowanceExhausted) { try store.reserve() }
        #expect(error?.category == .allowance)
        // The library names no command; the CLI adds its own way out (MessagesTests).
        #expect(error?.message.contains("licence") == true && error?.message.contains("offconvert") == false)
        #expect(error?.message.contains("2026-03-11 00:00") == true)
        var status = try store.status()
        #expect(status.remaining == 0 && status.used == 3)
        #expect(status.resetsAt == AllowanceFixtures.paris(2026, 3, 11, 0, 0))

        clock.set(AllowanceFixtures.paris(2026, 3, 10, 23, 59, 59))
        expectConvertError(.allowanceExhausted) { try store.reserve() }
        clock.set(AllowanceFixtures.paris(2026, 3, 11, 0, 0, 1))
        status = try store.status()
        #expect(status.remaining == 3 && status.used == 0)
        try spend(store)
        #expect(try store.status().remaining == 2)
    }

    @Test("the day ends where it began: another TZ (UTC+14, UTC-12) neither restarts it nor moves its end")
    func timeZoneChanges() throws {
        let folder = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let directory = folder.appendingPathComponent("state").path
        // 2026-03-10 12:00 UTC: already 2026-03-11 02:00 in Kiritimati, still 00:00 on the 10th at UTC-12.
        let clock = TestClock(Date(timeIntervalSince1970: 1_773_144_000))
        func store(_ zone: String) -> AllowanceStore {
            AllowanceStore(directory: directory, clock: { clock.now }, timeZone: TimeZone(identifier: zone)!)
        }
        let utc = store("UTC")
        for _ in 0..<3 { try spend(utc) }
        let midnightUTC = Date(timeIntervalSince1970: 1_773_187_200)
        #expect(try utc.status().resetsAt == midnightUTC)
        for zone in ["Pacific/Kiritimati", "Etc/GMT+12", "UTC"] {
            let status = try store(zone).status()
            #expect(status.remaining == 0 && status.used == 3, "\(zone)")
            #expect(status.resetsAt == midnightUTC, "\(zone)")
            expectConvertError(.allowanceExhausted) { try store(zone).reserve() }
        }
        // Back and forth changes nothing until the instant itself, in any zone.
        clock.set(midnightUTC.addingTimeInterval(-1))
        expectConvertError(.allowanceExhausted) { try store("Pacific/Kiritimati").reserve() }
        clock.set(midnightUTC)
        let next = try store("Etc/GMT+12").status()
        #expect(next.remaining == 3 && next.used == 0)
    }

    @Test("a day that begins in a zone further west still lasts until a midnight 22 hours or more after the last end")
    func shortDays() throws {
        let folder = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let directory = folder.appendingPathComponent("state").path
        let clock = TestClock(Date(timeIntervalSince1970: 1_773_144_000))
        func store(_ zone: String) -> AllowanceStore {
            AllowanceStore(directory: directory, clock: { clock.now }, timeZone: TimeZone(identifier: zone)!)
        }
        for _ in 0..<3 { try spend(store("UTC")) }
        // 2026-03-11 00:00 UTC, the end of that day, is 23:00 in UTC-1: its midnight is an hour away,
        // but the new day lasts until the next one, 25 hours later.
        let midnightUTC = Date(timeIntervalSince1970: 1_773_187_200)
        clock.set(midnightUTC)
        let west = store("Etc/GMT+1")
        for _ in 0..<3 { try spend(west) }
        #expect(try west.status().resetsAt == midnightUTC.addingTimeInterval(25 * 3_600))
        clock.set(midnightUTC.addingTimeInterval(2 * 3_600))
        expectConvertError(.allowanceExhausted) { try west.reserve() }
    }

    @Test("a batch is one conversion; failure and cancellation cost nothing")
    func chargingRules() async throws {
        let folder = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let clock = TestClock(AllowanceFixtures.paris(2026, 5, 1, 12, 0))
        let store = AllowanceFixtures.store(folder, clock: clock)

        let placed = try await store.withAllowance { reservation in
            let reserved = try store.status().reserved
            #expect(reserved == 1)
            for _ in 0..<5 { await reservation.outputPlaced() }
            // Charged at the first output, so a kill -9 now would not make the batch free.
            let charged = try store.status()
            #expect(charged.used == 1 && charged.reserved == 0)
            return 5
        }
        #expect(placed == 5)
        #expect(try store.status().used == 1)

        // withAllowance throws ConvertError only: another error from the body arrives as
        // `internal`, naming it, and cancellation as `cancelled`.
        let boom = await expectConvertError(.internalError) {
            try await store.withAllowance { _ in throw Boom() }
        }
        #expect(boom?.underlyingDescription?.contains("Boom") == true)
        let task = Task {
            try await store.withAllowance { _ in
                try await Task.sleep(for: .seconds(30))
            }
        }
        try await Task.sleep(for: .milliseconds(100))
        task.cancel()
        await expectConvertError(.cancelled) { try await task.value }
        var status = try store.status()
        #expect(status.used == 1 && status.reserved == 0 && status.remaining == 2)

        // A batch cancelled after placing an output is charged: the user has that file.
        await expectConvertError(.internalError) {
            try await store.withAllowance { reservation in
                await reservation.outputPlaced()
                throw Boom()
            }
        }
        status = try store.status()
        #expect(status.used == 2 && status.reserved == 0)

        // A reservation dropped without commit or release gives its slot back, on a blocking
        // thread (the release syncs the disk; the drop may happen on the cooperative pool).
        do { _ = try store.reserve() }
        var polls = 0
        while try store.status().reserved != 0, polls < 500 {
            polls += 1
            try await Task.sleep(for: .milliseconds(10))
        }
        #expect(try store.status().reserved == 0)
    }

    @Test("moving the clock back never gives the allowance back")
    func clockRollback() throws {
        let folder = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let clock = TestClock(AllowanceFixtures.paris(2026, 6, 2, 9, 0))
        let store = AllowanceFixtures.store(folder, clock: clock)
        for _ in 0..<3 { try spend(store) }
        clock.set(AllowanceFixtures.paris(2026, 6, 1, 9, 0))
        expectConvertError(.allowanceExhausted) { try store.reserve() }
        #expect(try store.status().resetsAt == AllowanceFixtures.paris(2026, 6, 3, 0, 0))
        // Rolling forward and back again: the future day is spent, not returned.
        clock.set(AllowanceFixtures.paris(2026, 6, 3, 9, 0))
        for _ in 0..<3 { try spend(store) }
        clock.set(AllowanceFixtures.paris(2026, 6, 2, 10, 0))
        #expect(try store.status().remaining == 0)
    }

    @Test("state folder is 0700 and its files 0600, even under a permissive umask")
    func permissions() throws {
        let folder = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let state = folder.appendingPathComponent("state")
        try FileManager.default.createDirectory(
            at: state, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
        let old = umask(0)
        defer { umask(old) }
        let store = AllowanceFixtures.store(folder, clock: TestClock(Date()))
        try spend(store)
        func mode(_ path: String) throws -> Int {
            try #require(FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int)
        }
        #expect(try mode(state.path) == 0o700)
        let names = try FileManager.default.contentsOfDirectory(atPath: state.path).sorted()
        #expect(names == ["allowance", "lock", "secret"])
        for name in names { #expect(try mode(state.appendingPathComponent(name).path) == 0o600) }
    }

    @Test("XDG_STATE_HOME decides where the default store lives")
    func defaultLocation() {
        #expect(
            AllowanceStore(environment: ["XDG_STATE_HOME": "/x/state", "HOME": "/h"]).directory == "/x/state/offconvert"
        )
        #expect(
            AllowanceStore(environment: ["XDG_STATE_HOME": "relative", "HOME": "/h"]).directory
                == "/h/.local/state/offconvert")
        #expect(AllowanceStore(environment: ["HOME": "/h"]).directory == "/h/.local/state/offconvert")
    }

    enum Damage: String, CaseIterable, Sendable {
        case editedCounter, truncated, garbage, deletedRecord, deletedSecret
    }

    @Test("an edited, truncated or deleted store fails closed for today, then recovers", arguments: Damage.allCases)
    func tampering(_ damage: Damage) throws {
        let folder = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let clock = TestClock(AllowanceFixtures.paris(2026, 7, 14, 10, 0))
        let store = AllowanceFixtures.store(folder, clock: clock)
        for _ in 0..<3 { try spend(store) }
        let record = folder.appendingPathComponent("state/allowance")
        let secret = folder.appendingPathComponent("state/secret")
        let text = try String(contentsOf: record, encoding: .utf8)
        switch damage {
        case .editedCounter:
            try Data(text.replacingOccurrences(of: "\"used\":3", with: "\"used\":0").utf8).write(to: record)
        case .truncated:
            try Data(text.utf8.prefix(20)).write(to: record)
        case .garbage:
            try Data([0xFF, 0x00, 0x13, 0x37]).write(to: record)
        case .deletedRecord:
            try FileManager.default.removeItem(at: record)
        case .deletedSecret:
            try FileManager.default.removeItem(at: secret)
        }
        let status = try store.status()
        #expect(status.isDamaged)
        #expect(status.remaining == 0)
        let error = expectConvertError(.allowanceDamaged) { try store.reserve() }
        #expect(error?.category == .allowance)
        clock.set(AllowanceFixtures.paris(2026, 7, 15, 0, 0, 1))
        #expect(try store.status().remaining == 3)
        #expect(try store.status().isDamaged == false)
    }

    @Test("a read makes no install: status() in a fresh XDG_STATE_HOME creates no folder, secret or witness")
    func statusWritesNothing() throws {
        let home = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: home) }
        let clock = TestClock(AllowanceFixtures.paris(2026, 3, 10, 12, 0))
        let store = AllowanceStore(
            environment: ["XDG_STATE_HOME": home.path], clock: { clock.now },
            timeZone: AllowanceFixtures.paris)
        let fresh = try store.status()
        #expect(
            fresh
                == Allowance(
                    dailyLimit: 3, used: 0, reserved: 0, remaining: 3,
                    resetsAt: AllowanceFixtures.paris(2026, 3, 11, 0, 0), license: nil,
                    licenseProblem: nil, isDamaged: false))
        #expect(try FileManager.default.contentsOfDirectory(atPath: home.path) == [])
        // The first reservation makes the install, and the answer read from it is the same.
        try store.reserve().release()
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: home.path).sorted() == [
                ".offconvert-witness", "offconvert",
            ])
        #expect(try store.status() == fresh)
    }

    @Test("only an empty folder is a new install")
    func freshInstall() throws {
        let folder = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let status = try AllowanceFixtures.store(folder, clock: TestClock(Date())).status()
        #expect(status.remaining == 3 && !status.isDamaged && !status.isUnlocked)
    }
}
