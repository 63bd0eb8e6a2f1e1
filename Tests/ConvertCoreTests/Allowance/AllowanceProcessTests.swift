import Foundation
import Testing

@testable import ConvertAllowance
@testable import ConvertCore

/// Races and crashes between real processes. The children are this test binary re-run with a
/// filter selecting ``AllowanceChildProcess/entry()``, which only runs when the environment
/// names a child role.
@Suite("Allowance across processes", .serialized)
struct AllowanceProcessTests {
    /// Starts a child in `role` on the store in `state`, reporting into `results`.
    private func child(_ role: String, state: URL, results: URL) throws -> Process {
        let process = try ChildTestRun.process(
            filter: "AllowanceChildProcess",
            environment: [
                AllowanceChildProcess.roleKey: role, AllowanceChildProcess.stateKey: state.path,
                AllowanceChildProcess.resultsKey: results.path,
            ])
        try process.run()
        return process
    }

    private func files(in folder: URL, suffix: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []).filter { $0.hasSuffix(suffix) }
    }

    private func wait(until condition: () -> Bool, seconds: Double = 120) {
        let deadline = Date().addingTimeInterval(seconds)
        while !condition() && Date() < deadline { usleep(20_000) }
    }

    @Test("ten processes started at once with one conversion left: exactly one succeeds")
    func race() throws {
        let folder = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let state = folder.appendingPathComponent("state")
        let results = folder.appendingPathComponent("results")
        try FileManager.default.createDirectory(at: results, withIntermediateDirectories: true)
        let store = AllowanceStore(directory: state.path)
        for _ in 0..<2 { try store.reserve().commit() }

        let children = try (0..<10).map { _ in try child("race", state: state, results: results) }
        // All children wait at the start line so their reservations really overlap.
        wait { files(in: results, suffix: ".ready").count == 10 }
        #expect(files(in: results, suffix: ".ready").count == 10)
        _ = FileManager.default.createFile(atPath: results.appendingPathComponent("go").path, contents: nil)
        for process in children { process.waitUntilExit() }

        #expect(files(in: results, suffix: ".won").count == 1)
        #expect(files(in: results, suffix: ".denied").count == 9)
        #expect(files(in: results, suffix: ".error").isEmpty)
        let status = try store.status()
        #expect(status.used == 3 && status.reserved == 0 && status.remaining == 0)
    }

    @Test("a reservation held by a killed process is released on the next run, never charged")
    func killedHolder() throws {
        let folder = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let state = folder.appendingPathComponent("state")
        let results = folder.appendingPathComponent("results")
        try FileManager.default.createDirectory(at: results, withIntermediateDirectories: true)
        let store = AllowanceStore(directory: state.path)

        let holder = try child("hold", state: state, results: results)
        wait { !files(in: results, suffix: ".reserved").isEmpty || !holder.isRunning }
        #expect(files(in: results, suffix: ".reserved").count == 1)
        var status = try store.status()
        #expect(status.reserved == 1 && status.remaining == 2)

        kill(holder.processIdentifier, SIGKILL)
        holder.waitUntilExit()
        status = try store.status()
        #expect(status.reserved == 0 && status.used == 0 && status.remaining == 3)
    }
}

/// The child side of ``AllowanceProcessTests``; skipped in a normal test run.
@Suite("Allowance child process")
struct AllowanceChildProcess {
    static let roleKey = "OFFCONVERT_TEST_ALLOWANCE_ROLE"
    static let stateKey = "OFFCONVERT_TEST_ALLOWANCE_STATE"
    static let resultsKey = "OFFCONVERT_TEST_ALLOWANCE_RESULTS"

    @Test(.enabled(if: ProcessInfo.processInfo.environment[roleKey] != nil))
    func entry() throws {
        let environment = ProcessInfo.processInfo.environment
        let state = try #require(environment[Self.stateKey])
        let results = URL(fileURLWithPath: try #require(environment[Self.resultsKey]))
        let store = AllowanceStore(directory: state)
        func report(_ suffix: String, _ text: String = "") {
            let name = "\(getpid())\(suffix)"
            _ = FileManager.default.createFile(
                atPath: results.appendingPathComponent(name).path, contents: Data(text.utf8))
        }
        switch environment[Self.roleKey] {
        case "race":
            report(".ready")
            let go = results.appendingPathComponent("go").path
            let deadline = Date().addingTimeInterval(120)
            while !FileManager.default.fileExists(atPath: go) && Date() < deadline { usleep(1_000) }
            do {
                let reservation = try store.reserve()
                // Simulate the work of putting an output in place before charging.
                usleep(50_000)
                try reservation.commit()
                report(".won")
            } catch  where error.category == .allowance {
                report(".denied")
            } catch {
                report(".error", String(describing: error))
            }
        case "hold":
            let reservation = try store.reserve()
            report(".reserved")
            // Killed by the parent long before this ends.
            sleep(120)
            try reservation.release()
        default:
            Issue.record("unknown child role")
        }
    }
}
