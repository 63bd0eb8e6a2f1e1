import ConvertCore
import Foundation
import Synchronization
import Testing

@testable import ConvertAllowance
@testable import OffconvertCLI

/// Lines a batch printed.
private final class Capture: Sendable {
    let out = Mutex<[String]>([])
    let err = Mutex<[String]>([])

    func printer(json: Bool) -> BatchPrinter {
        BatchPrinter(
            json: json, out: { line in self.out.withLock { $0.append(line) } },
            err: { line in self.err.withLock { $0.append(line) } })
    }

    /// stdout parsed as JSON lines.
    func events() throws -> [[String: Any]] {
        try out.withLock { $0 }.map { line in
            try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        }
    }

    func events(_ name: String) throws -> [[String: Any]] { try events().filter { $0["event"] as? String == name } }
}

/// A stand-in conversion: uppercases the input into the destination; an input saying "bad" fails,
/// one saying "slow" waits (cancellably) for 30 s.
private let upcase = BatchWork(
    command: "test-upcase", identity: ["v1"], outputExtension: { _ in "txt" }, cost: { _ in 50_000_000 },
    convert: { item, progress throws(ConvertError) in
        progress(JobProgress(stage: .encoding, fraction: 0.5))
        let text = (try? String(contentsOfFile: item.input, encoding: .utf8)) ?? ""
        if text == "slow" {
            do { try await Task.sleep(for: .seconds(30)) } catch { throw ConvertError.cancelled(path: item.input) }
        }
        if text == "bad" {
            throw ConvertError(code: .inputTruncated, message: "The file is cut short.", path: item.input)
        }
        let data = Data(text.uppercased().utf8)
        guard FileManager.default.createFile(atPath: item.destination, contents: data) else {
            throw ConvertError(code: .deviceIo, message: "Could not write.", path: item.destination)
        }
        return JobResult(
            inputPath: item.input, outputs: [OutputFile(path: item.destination, byteCount: Int64(data.count))])
    })

/// Like `upcase`, but slow (so a batch can be killed mid-way) and writing through a temporary
/// named like a staged output, moved into place when complete.
private func stagedUpcase(delay: Duration) -> BatchWork {
    BatchWork(
        command: "test-staged-upcase", identity: ["v1"], outputExtension: { _ in "txt" }, cost: { _ in 1 },
        convert: { item, _ throws(ConvertError) in
            let folder = (item.destination as NSString).deletingLastPathComponent
            let name = (item.destination as NSString).lastPathComponent
            let temporary = folder + "/." + name + ".offconvert-test00.partial"
            let text = (try? String(contentsOfFile: item.input, encoding: .utf8)) ?? ""
            let data = Data(text.uppercased().utf8)
            // A plain write: FileManager.createFile would add its own hidden temporary.
            do { try data.write(to: URL(fileURLWithPath: temporary)) } catch {
                throw ConvertError(code: .deviceIo, message: "Could not write.", path: item.destination)
            }
            do { try await Task.sleep(for: delay) } catch {
                unlink(temporary)
                throw ConvertError.cancelled(path: item.input)
            }
            guard link(temporary, item.destination) == 0 else {
                throw ConvertError(code: .outputExists, message: "Taken.", path: item.destination)
            }
            unlink(temporary)
            return JobResult(
                inputPath: item.input, outputs: [OutputFile(path: item.destination, byteCount: Int64(data.count))])
        })
}

/// Environment of the child batch ``BatchKillChild`` runs.
private enum KillChildEnvironment {
    static let folder = "OFFCONVERT_TEST_BATCH_FOLDER"
}

/// The inputs, output folder and state folder of a kill test in `folder`.
private func killTestOptions(_ folder: URL) -> (BatchOptions, AllowanceStore, String) {
    let inputs = ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? [])
        .filter { $0.hasSuffix(".src") }.sorted().map { folder.appendingPathComponent($0).path }
    let state = folder.appendingPathComponent("state").path
    let options = BatchOptions(
        inputs: inputs, outputDirectory: folder.appendingPathComponent("out").path, jobs: 1, memoryBudget: 1 << 30,
        json: true)
    return (options, AllowanceStore(directory: state), state)
}

/// The batch a kill test's child runs until it is killed; skipped in a normal run.
@Suite("Batch kill child")
struct BatchKillChild {
    @Test(.enabled(if: ProcessInfo.processInfo.environment[KillChildEnvironment.folder] != nil))
    func entry() async throws {
        let folder = URL(
            fileURLWithPath: try #require(ProcessInfo.processInfo.environment[KillChildEnvironment.folder]))
        let (options, allowance, state) = killTestOptions(folder)
        _ = await BatchRunner.run(
            stagedUpcase(delay: .milliseconds(150)), options: options, printer: Capture().printer(json: true),
            allowance: allowance, stateDirectory: state)
    }
}

/// Returns once SIGINT and SIGTERM reach ``SignalHandling/run(_:)``'s work (libdispatch arms
/// its signal sources asynchronously).
private func waitUntilArmed() async {
    while !SignalHandling.isArmed { try? await Task.sleep(for: .milliseconds(2)) }
}

/// Every test that sends a signal to this process, or runs a batch that a signal must not
/// cancel, is in this one serialized suite.
@Suite("Batch runner and signals", .serialized)
struct BatchRunnerTests {
    @Test("SIGINT and SIGTERM cancel the running work and are reported", arguments: [SIGINT, SIGTERM])
    func signalCancels(_ number: Int32) async {
        let (value, interrupted) = await SignalHandling.run { () async -> String in
            // The run is registered before its work starts; once the sources are armed, signal
            // this very process.
            await waitUntilArmed()
            kill(getpid(), number)
            do {
                try await Task.sleep(for: .seconds(30))
                return "finished"
            } catch {
                return "cancelled"
            }
        }
        #expect(value == "cancelled")
        #expect(interrupted)
    }

    @Test("without a signal the work runs to the end")
    func noSignal() async {
        let (value, interrupted) = await SignalHandling.run { 42 }
        #expect(value == 42)
        #expect(!interrupted)
    }

    private struct Setup {
        let folder: URL
        let out: URL
        let state: String
        let inputs: [String]
        let allowance: AllowanceStore

        func options(json: Bool = true) -> BatchOptions {
            BatchOptions(inputs: inputs, outputDirectory: out.path, jobs: 2, memoryBudget: 1 << 30, json: json)
        }
    }

    private func setup(_ contents: [String], limit: Int = 3) throws -> Setup {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "offconvert-batch-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        var inputs: [String] = []
        for (index, text) in contents.enumerated() {
            let url = folder.appendingPathComponent("in\(index).src")
            try Data(text.utf8).write(to: url)
            inputs.append(url.path)
        }
        let state = folder.appendingPathComponent("state").path
        return Setup(
            folder: folder, out: folder.appendingPathComponent("out"), state: state, inputs: inputs,
            allowance: AllowanceStore(directory: state, dailyLimit: limit))
    }

    private func outputs(_ setup: Setup) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: setup.out.path)) ?? []).sorted()
    }

    @Test("every item converted, each reported once as a JSON line when it finishes; the batch costs one conversion")
    func success() async throws {
        let s = try setup(["a", "b", "c", "d", "e"])
        defer { try? FileManager.default.removeItem(at: s.folder) }
        let capture = Capture()
        let code = await BatchRunner.run(
            upcase, options: s.options(), printer: capture.printer(json: true), allowance: s.allowance,
            stateDirectory: s.state)
        #expect(code == 0)
        #expect(outputs(s) == ["in0.txt", "in1.txt", "in2.txt", "in3.txt", "in4.txt"])
        #expect(try String(contentsOf: s.out.appendingPathComponent("in3.txt"), encoding: .utf8) == "D")
        let finished = try capture.events("finished")
        #expect(finished.compactMap { $0["index"] as? Int }.sorted() == [0, 1, 2, 3, 4])
        #expect(finished.allSatisfy { $0["bytes"] as? Int == 1 })
        #expect(try capture.events("started").count == 5)
        #expect(try capture.events("progress").first?["stage"] as? String == "encode")
        let summary = try #require(try capture.events().last)
        #expect(
            summary["event"] as? String == "summary" && summary["done"] as? Int == 5
                && summary["interrupted"] as? Bool == false)
        #expect(capture.err.withLock { $0 }.isEmpty)
        #expect(try s.allowance.status().used == 1)
    }

    @Test("a failing item fails alone (exit 1); the re-run retries only it and skips the rest")
    func failureAndResume() async throws {
        let s = try setup(["a", "bad", "c"])
        defer { try? FileManager.default.removeItem(at: s.folder) }
        let first = Capture()
        #expect(
            await BatchRunner.run(
                upcase, options: s.options(), printer: first.printer(json: true), allowance: s.allowance,
                stateDirectory: s.state) == 1)
        let failed = try #require(try first.events("failed").first)
        #expect(failed["index"] as? Int == 1)
        #expect((failed["error"] as? [String: Any])?["key"] as? String == "input.truncated")
        #expect((failed["error"] as? [String: Any])?["category"] as? String == "input")
        #expect(outputs(s) == ["in0.txt", "in2.txt"])

        try Data("b".utf8).write(to: URL(fileURLWithPath: s.inputs[1]))
        let second = Capture()
        #expect(
            await BatchRunner.run(
                upcase, options: s.options(), printer: second.printer(json: true), allowance: s.allowance,
                stateDirectory: s.state) == 0)
        #expect(try second.events("skipped").map { $0["index"] as? Int } == [0, 2])
        #expect(try second.events("finished").map { $0["index"] as? Int } == [1])
        // No duplicates such as "in0 (2).txt".
        #expect(outputs(s) == ["in0.txt", "in1.txt", "in2.txt"])
        // Finishing the batch is the same conversion: charged once, by the first run.
        #expect(try s.allowance.status().used == 1)

        // Everything done: a third run finds every output and converts nothing, for free.
        let third = Capture()
        #expect(
            await BatchRunner.run(
                upcase, options: s.options(), printer: third.printer(json: true), allowance: s.allowance,
                stateDirectory: s.state) == 0)
        #expect(try third.events("skipped").count == 3)
        #expect(outputs(s) == ["in0.txt", "in1.txt", "in2.txt"])
        #expect(try s.allowance.status().used == 1)

        // --no-resume starts over (new names beside the old outputs) and is a new conversion.
        var fresh = s.options()
        fresh.resume = false
        let fourth = Capture()
        #expect(
            await BatchRunner.run(
                upcase, options: fresh, printer: fourth.printer(json: true), allowance: s.allowance,
                stateDirectory: s.state) == 0)
        #expect(outputs(s).contains("in0 (2).txt"))
        #expect(try s.allowance.status().used == 2)
    }

    @Test("an interrupted batch whose journal was deleted is a new conversion when run again")
    func deletedJournalIsCharged() async throws {
        let s = try setup(["a", "bad", "c"])
        defer { try? FileManager.default.removeItem(at: s.folder) }
        #expect(
            await BatchRunner.run(
                upcase, options: s.options(), printer: Capture().printer(json: true), allowance: s.allowance,
                stateDirectory: s.state) == 1)
        #expect(try s.allowance.status().used == 1)
        // Deleting the record of the run (journal and mirror) must not make its rest free.
        try FileManager.default.removeItem(atPath: s.state + "/batches")
        try Data("b".utf8).write(to: URL(fileURLWithPath: s.inputs[1]))
        #expect(
            await BatchRunner.run(
                upcase, options: s.options(), printer: Capture().printer(json: true), allowance: s.allowance,
                stateDirectory: s.state) == 0)
        #expect(try s.allowance.status().used == 2)
        // With the journal kept, finishing an interrupted run stays free.
        try Data("bad".utf8).write(to: URL(fileURLWithPath: s.inputs[1]))
        var fresh = s.options()
        fresh.resume = false
        #expect(
            await BatchRunner.run(
                upcase, options: fresh, printer: Capture().printer(json: true), allowance: s.allowance,
                stateDirectory: s.state) == 1)
        #expect(try s.allowance.status().used == 3)
        try Data("b".utf8).write(to: URL(fileURLWithPath: s.inputs[1]))
        #expect(
            await BatchRunner.run(
                upcase, options: s.options(), printer: Capture().printer(json: true), allowance: s.allowance,
                stateDirectory: s.state) == 0)
        #expect(try s.allowance.status().used == 3)
    }

    @Test("SIGINT mid-batch: running items cancelled, nothing partial left, summary printed, exit 130, not charged")
    func interrupted() async throws {
        let s = try setup(["slow", "slow", "slow", "slow"])
        defer { try? FileManager.default.removeItem(at: s.folder) }
        let capture = Capture()
        // Signalled once a conversion has started (so the batch is inside its signal-handled
        // run) and the signal sources are armed.
        let converting = Atomic<Bool>(false)
        var work = upcase
        work.convert = { item, progress throws(ConvertError) in
            converting.store(true, ordering: .releasing)
            return try await upcase.convert(item, progress)
        }
        let signaller = Task {
            while !converting.load(ordering: .acquiring) { try await Task.sleep(for: .milliseconds(2)) }
            await waitUntilArmed()
            kill(getpid(), SIGINT)
        }
        let code = await BatchRunner.run(
            work, options: s.options(json: false), printer: capture.printer(json: false), allowance: s.allowance,
            stateDirectory: s.state)
        _ = try? await signaller.value
        #expect(code == 130)
        #expect(outputs(s).isEmpty)
        #expect(capture.err.withLock { $0 }.last?.hasPrefix("Interrupted: 0 done, 4 not converted, ") == true)
        let status = try s.allowance.status()
        #expect(status.used == 0 && status.reserved == 0)
    }

    @Test("kill -9 mid-batch, then the same command: finishes the rest, no duplicates, no leftovers")
    func killedAndResumed() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "offconvert-kill-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        for index in 0..<8 { try Data("item \(index)".utf8).write(to: folder.appendingPathComponent("in\(index).src")) }
        let out = folder.appendingPathComponent("out")
        func placed() -> [String] {
            ((try? FileManager.default.contentsOfDirectory(atPath: out.path)) ?? []).filter { !$0.hasPrefix(".") }
                .sorted()
        }

        let child = Process()
        child.executableURL = URL(
            fileURLWithPath: try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
        child.arguments = ["--testing-library", "swift-testing", "--filter", "BatchKillChild"]
        var environment = CLIRunner.childEnvironment
        environment[KillChildEnvironment.folder] = folder.path
        child.environment = environment
        child.standardOutput = FileHandle.nullDevice
        child.standardError = FileHandle.nullDevice
        try child.run()
        let deadline = Date().addingTimeInterval(120)
        while placed().count < 3 && child.isRunning && Date() < deadline { usleep(5_000) }
        kill(child.processIdentifier, SIGKILL)
        child.waitUntilExit()
        let before = placed()
        #expect(before.count >= 3 && before.count < 8, "the child should be killed mid-batch, it placed \(before)")

        let (options, allowance, state) = killTestOptions(folder)
        let capture = Capture()
        let code = await BatchRunner.run(
            stagedUpcase(delay: .zero), options: options, printer: capture.printer(json: true), allowance: allowance,
            stateDirectory: state)
        #expect(code == 0)
        #expect(placed() == (0..<8).map { "in\($0).txt" })
        let hidden = try FileManager.default.contentsOfDirectory(atPath: out.path).filter { $0.hasPrefix(".") }
        #expect(hidden.isEmpty)
        #expect(try capture.events("skipped").count == before.count)
        #expect(try capture.events("finished").count == 8 - before.count)
        #expect(try String(contentsOf: out.appendingPathComponent("in7.txt"), encoding: .utf8) == "ITEM 7")
        // The killed run placed outputs, so it was charged; finishing it is not charged again,
        // and its reservation was not left behind.
        let status = try allowance.status()
        #expect(status.used == 1 && status.reserved == 0)
    }

    @Test("no allowance left: stops before any work with a distinct allowance error and exit 77")
    func exhausted() async throws {
        let s = try setup(["a"], limit: 0)
        defer { try? FileManager.default.removeItem(at: s.folder) }
        let capture = Capture()
        #expect(
            await BatchRunner.run(
                upcase, options: s.options(), printer: capture.printer(json: true), allowance: s.allowance,
                stateDirectory: s.state) == 77)
        let failed = try #require(try capture.events("failed").first)
        #expect(failed["index"] as? Int == 0 && failed["input"] as? String == s.inputs[0])
        #expect(try capture.events().last?["event"] as? String == "summary")
        #expect((failed["error"] as? [String: Any])?["category"] as? String == "allowance")
        #expect((failed["error"] as? [String: Any])?["key"] as? String == "allowance.exhausted")
        #expect(try capture.events("started").isEmpty)
        #expect(outputs(s).isEmpty)
    }

    @Test("--dry-run prints the plan and writes nothing")
    func dryRun() async throws {
        let s = try setup(["a", "b"])
        defer { try? FileManager.default.removeItem(at: s.folder) }
        var options = s.options(json: false)
        options.dryRun = true
        let capture = Capture()
        #expect(
            await BatchRunner.run(
                upcase, options: options, printer: capture.printer(json: false), allowance: s.allowance,
                stateDirectory: s.state) == 0)
        let lines = capture.out.withLock { $0 }
        #expect(lines.count == 2)
        #expect(lines.first?.hasSuffix("in0.txt (about 50.0 MB of memory)") == true)
        #expect(outputs(s).isEmpty)
        #expect(try s.allowance.status().used == 0)
    }
}

@Suite("Batch options")
struct BatchOptionsTests {
    private func parse(_ arguments: [String], stdin: String = "") throws -> BatchOptions {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent(
            "offconvert-stdin-\(UUID().uuidString.prefix(8))")
        try Data(stdin.utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let handle = try FileHandle(forReadingFrom: file)
        defer { try? handle.close() }
        return try parse(arguments, standardInput: handle.fileDescriptor)
    }

    private func parse(_ arguments: [String], standardInput: Int32) throws -> BatchOptions {
        let spec = CommandSpec(
            name: "test", abstract: "",
            arguments: [ArgumentSpec(name: "FILES", help: "", repeating: true, required: false)],
            options: BatchOptions.specs)
        return try BatchOptions.parse(try ArgumentParser.parse(arguments, for: spec), standardInput: standardInput)
    }

    /// The message of the usage error `body` throws, or nil (and a failed expectation).
    private func usageMessage(_ body: () throws -> BatchOptions) -> String? {
        do {
            _ = try body()
            Issue.record("expected a usage error")
        } catch let error as UsageError {
            return error.message
        } catch {
            Issue.record("expected a usage error, got \(error)")
        }
        return nil
    }

    /// A list file holding `bytes`, removed by the caller.
    private func listFile(_ bytes: [UInt8]) throws -> URL {
        let list = FileManager.default.temporaryDirectory.appendingPathComponent(
            "offconvert-list-\(UUID().uuidString.prefix(8))")
        try Data(bytes).write(to: list)
        return list
    }

    @Test("a list is bounded: a NUL byte, a line past PATH_MAX, too many lines, a folder fail at once")
    func listBounds() throws {
        let nul = usageMessage { try parse(["--from-file", "/dev/zero"]) }
        #expect(nul?.contains("The list '/dev/zero' given to '--from-file' has a NUL byte on line 1") == true)
        let zeroStdin = try FileHandle(forReadingFrom: URL(fileURLWithPath: "/dev/zero"))
        defer { try? zeroStdin.close() }
        let stdinNul = usageMessage { try parse(["-"], standardInput: zeroStdin.fileDescriptor) }
        #expect(stdinNul?.contains("standard input ('-') has a NUL byte") == true)

        let long = try listFile(Array("a.heic\n".utf8) + [UInt8](repeating: 0x61, count: PathList.maximumLineBytes + 1))
        defer { try? FileManager.default.removeItem(at: long) }
        let longMessage = usageMessage { try parse(["--from-file", long.path]) }
        #expect(longMessage?.contains("a line longer than 4096 bytes (PATH_MAX) on line 2") == true)
        let longest = try listFile([UInt8](repeating: 0x61, count: PathList.maximumLineBytes) + [0x0A])
        defer { try? FileManager.default.removeItem(at: longest) }
        #expect(try parse(["--from-file", longest.path]).inputs.first?.utf8.count == PathList.maximumLineBytes)

        let many = try listFile(Array(String(repeating: "#\n", count: PathList.maximumLines).utf8) + Array("a".utf8))
        defer { try? FileManager.default.removeItem(at: many) }
        let manyMessage = usageMessage { try parse(["--from-file", many.path]) }
        #expect(manyMessage?.contains("has more than 1000000 lines") == true)

        let folder = usageMessage { try parse(["--from-file", FileManager.default.temporaryDirectory.path]) }
        #expect(folder?.contains("is a folder") == true)
    }

    @Test("a list is bounded in size: more than 64 MiB fails while it is read")
    func listSize() throws {
        let line = Data([UInt8](repeating: 0x61, count: 4095) + [0x0A])
        let big = try listFile([])
        defer { try? FileManager.default.removeItem(at: big) }
        let handle = try FileHandle(forWritingTo: big)
        for _ in 0...(PathList.maximumBytes / line.count) { try handle.write(contentsOf: line) }
        try handle.close()
        let message = usageMessage { try parse(["--from-file", big.path]) }
        #expect(message?.contains("is larger than 64 MiB") == true)
    }

    @Test("inputs from arguments, a list file and stdin, in that order")
    func sources() throws {
        let list = FileManager.default.temporaryDirectory.appendingPathComponent(
            "offconvert-list-\(UUID().uuidString.prefix(8))")
        try Data("c.heic\n\nd.heic\n".utf8).write(to: list)
        defer { try? FileManager.default.removeItem(at: list) }
        #expect(
            try parse(["a.heic", "-", "--from-file", list.path], stdin: "b1.heic\nb2.heic\n").inputs == [
                "a.heic", "b1.heic", "b2.heic", "c.heic", "d.heic",
            ])
        #expect(throws: UsageError.self) { try parse(["-", "--from-file", "-"]) }
        #expect(throws: UsageError.self) { try parse(["--from-file", "/nonexistent/list"]) }
    }

    @Test("--shard splits any list into disjoint shares that cover it, whatever the order")
    func shard() throws {
        let inputs = (0..<200).map { "photos/IMG_\($0).HEIC" }
        var seen: [String] = []
        for index in 1...4 {
            let share = try parse(inputs + ["--shard", "\(index)/4"]).inputs
            #expect(!share.isEmpty)
            #expect(try parse(inputs.reversed() + ["--shard", "\(index)/4"]).inputs == share.reversed())
            seen += share
        }
        #expect(seen.sorted() == inputs.sorted())
        #expect(throws: UsageError.self) { try parse(["a", "--shard", "5/4"]) }
        #expect(throws: UsageError.self) { try parse(["a", "--shard", "0/4"]) }
        #expect(throws: UsageError.self) { try parse(["a", "--shard", "x"]) }
    }

    @Test("jobs and memory budget")
    func limits() throws {
        let options = try parse(["a", "--jobs", "3", "--memory-budget", "1GB", "--overwrite", "--no-resume"])
        #expect(options.jobs == 3 && options.memoryBudget == 1_000_000_000 && options.overwrite && !options.resume)
        #expect(try parse(["a"]).jobs == ProcessInfo.processInfo.activeProcessorCount)
        #expect(throws: UsageError.self) { try parse(["a", "--jobs", "0"]) }
    }
}

@Suite("--json progress throttle")
struct ProgressThrottleTests {
    @Test("a burst of steps in one stage prints one line; a new stage, the end and elapsed time print again")
    func thinsBursts() {
        let throttle = ProgressThrottle(interval: .milliseconds(250))
        let start = ContinuousClock.now
        let burst = (1...100).map { step in
            throttle.admit(
                0, JobProgress(stage: .encoding, fraction: Double(step) / 200), now: start + .milliseconds(step))
        }
        #expect(burst.filter { $0 }.count == 1)
        #expect(
            throttle.admit(1, JobProgress(stage: .encoding, fraction: 0.1), now: start),
            "items are throttled separately")
        #expect(throttle.admit(0, JobProgress(stage: .writing, fraction: 0.6), now: start + .milliseconds(101)))
        #expect(!throttle.admit(0, JobProgress(stage: .writing, fraction: 0.7), now: start + .milliseconds(200)))
        #expect(throttle.admit(0, JobProgress(stage: .writing, fraction: 0.8), now: start + .milliseconds(400)))
        #expect(throttle.admit(0, JobProgress(stage: .writing, fraction: 1), now: start + .milliseconds(401)))
        throttle.forget(0)
        #expect(throttle.admit(0, JobProgress(stage: .writing, fraction: 1), now: start + .milliseconds(402)))
    }
}
