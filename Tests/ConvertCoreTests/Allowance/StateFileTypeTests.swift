import Foundation
import Synchronization
import Testing

@testable import ConvertAllowance
@testable import ConvertBatch
@testable import ConvertCore

/// State files that are not regular files: a FIFO named `allowance` made every conversion wait
/// for a writer forever (and SIGTERM did not end the wait). Each is refused with `state.not-a-file`.
@Suite("Allowance: state files must be regular files")
struct StateFileTypeTests {
    /// Runs `body` on a thread of its own while a watcher checks, through /proc, whether that
    /// thread sleeps inside open(2). If it does, it is waiting for a writer on the FIFO: the
    /// watcher opens the FIFO for writing, which releases it, and reports that it had to. A
    /// regression so fails the test instead of hanging it, and no clock is involved. (A reader
    /// that opens without blocking and closes at once is never seen asleep in open, so the
    /// watcher never opens the FIFO for it.)
    static func releasingReaders<T: Sendable>(of fifo: String, _ body: @escaping @Sendable () -> T) async -> (T, Bool) {
        let done = Atomic(false)
        let released = Atomic(false)
        let thread = Atomic<Int32>(0)
        let watcher = Thread {
            while !done.load(ordering: .acquiring) {
                let id = thread.load(ordering: .acquiring)
                if id != 0, sleepsInOpen(id) {
                    let fd = open(fifo, O_WRONLY | O_NONBLOCK)
                    if fd >= 0 {
                        released.store(true, ordering: .releasing)
                        close(fd)
                    }
                }
                usleep(2_000)
            }
        }
        watcher.start()
        let result = await withCheckedContinuation { continuation in
            Thread.detachNewThread {
                // "/proc/thread-self" links to "PID/task/TID".
                let link = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/thread-self")) ?? ""
                thread.store(Int32(link.split(separator: "/").last ?? "") ?? 0, ordering: .releasing)
                continuation.resume(returning: body())
            }
        }
        done.store(true, ordering: .releasing)
        return (result, released.load(ordering: .acquiring))
    }

    /// Whether thread `id` of this process is asleep (state S) in open or openat.
    static func sleepsInOpen(_ id: Int32) -> Bool {
        guard let stat = try? String(contentsOfFile: "/proc/self/task/\(id)/stat", encoding: .utf8),
            let call = try? String(contentsOfFile: "/proc/self/task/\(id)/syscall", encoding: .utf8)
        else { return false }
        let state = stat.split(separator: ")").last?.split(separator: " ").first
        let number = call.split(separator: " ").first
        return state == "S" && (number == "257" || number == "2")
    }

    static func stateFolder() throws -> URL {
        let base = try Fixtures.temporaryDirectory()
        let folder = base.appendingPathComponent("offconvert")
        _ = try StateDirectory(path: folder.path)
        return folder
    }

    @Test(
        "a FIFO as the allowance, secret, licence or lock file is refused, never waited on",
        arguments: [
            "allowance", "secret", "license", "lock",
        ])
    func fifo(name: String) async throws {
        let folder = try Self.stateFolder()
        defer { try? FileManager.default.removeItem(at: folder.deletingLastPathComponent()) }
        let fifo = folder.appendingPathComponent(name).path
        #expect(mkfifo(fifo, 0o600) == 0)
        let path = folder.path
        let (outcome, released) = await Self.releasingReaders(of: fifo) { () -> String in
            do {
                _ = try AllowanceStore(directory: path).status()
                return "no error"
            } catch {
                return (error as? ConvertError).map { $0.key + ": " + $0.message } ?? "\(error)"
            }
        }
        #expect(!released, "a reader blocked on the FIFO")
        #expect(outcome.hasPrefix("state.not-a-file: "), "\(outcome)")
        #expect(outcome.contains("FIFO"))
    }

    @Test("a symbolic link planted as the allowance file is refused, the file it points to untouched")
    func symbolicLink() throws {
        let folder = try Self.stateFolder()
        defer { try? FileManager.default.removeItem(at: folder.deletingLastPathComponent()) }
        let elsewhere = folder.deletingLastPathComponent().appendingPathComponent("elsewhere")
        try Data("keep".utf8).write(to: elsewhere)
        try FileManager.default.createSymbolicLink(
            atPath: folder.appendingPathComponent("allowance").path, withDestinationPath: elsewhere.path)
        do {
            _ = try AllowanceStore(directory: folder.path).status()
            Issue.record("read through the link")
        } catch {
            #expect(error.code == .stateNotAFile, "\(error.key): \(error.message)")
        }
        #expect(try Data(contentsOf: elsewhere) == Data("keep".utf8))
    }

    @Test("a FIFO as a batch journal is refused")
    func journalFIFO() async throws {
        let base = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: base) }
        let identity = ["test", UUID().uuidString]
        // The journal's name is derived from the identity: find it by opening it once.
        let first = try BatchJournal(identity: identity, stateDirectory: base.path)
        first.release()
        let journal = try #require(try FileManager.default.contentsOfDirectory(atPath: base.path + "/batches").first)
        let path = base.path + "/batches/" + journal
        try FileManager.default.removeItem(atPath: path)
        #expect(mkfifo(path, 0o600) == 0)
        let state = base.path
        let (outcome, released) = await Self.releasingReaders(of: path) { () -> String in
            do {
                _ = try BatchJournal(identity: identity, stateDirectory: state)
                return "no error"
            } catch {
                return (error as? ConvertError)?.key ?? "\(error)"
            }
        }
        #expect(!released)
        #expect(outcome == "state.not-a-file")
    }
}
