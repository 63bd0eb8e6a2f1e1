import ConvertCore
import Foundation
import Testing

@testable import ConvertAllowance

extension CLIRunner {
    /// Starts `offconvert` with `arguments` and the allowance and journals in `stateHome`, output
    /// discarded, and returns the running process with a stream that ends when it exits (so a
    /// test can kill it at the moment it chooses, then wait without blocking a thread).
    static func launch(_ arguments: [String], stateHome: String) throws -> (process: Process, exited: AsyncStream<Void>)
    {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        var environment = CLIRunner.childEnvironment
        environment["NO_COLOR"] = "1"
        environment["XDG_STATE_HOME"] = stateHome
        process.environment = environment
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        let exited = AsyncStream<Void>.makeStream()
        process.terminationHandler = { _ in exited.continuation.finish() }
        try process.run()
        return (process, exited.stream)
    }
}

/// `kill -9` in the middle of a real conversion (real codecs, the built binary), then the very
/// same command again: the second run completes the batch, every output exactly once (no
/// `name (2).jpg`), each one whole, no hidden temporaries or x264 statistics left, and the
/// allowance charged once per run that placed an output (a command over many files is one
/// conversion) with no reservation left behind by the dead process.
@Suite("Hostile: kill -9 with real codecs, then the same command", .serialized)
struct KillResumeTests {
    static func names(in folder: URL) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []).sorted()
    }

    static func kill(_ process: Process, when condition: @escaping @Sendable () -> Bool, delay: useconds_t = 0) async
        -> Bool
    {
        await CLIRunner.signal(process, SIGKILL, when: condition, delay: delay)
    }

    /// Whether FFmpeg decodes all of `path` without a single error.
    static func decodesCleanly(_ path: String) async throws -> Bool {
        let outcome = try await CLIRunner.run(
            ["-nostdin", "-v", "error", "-xerror", "-i", path, "-f", "null", "-"],
            executable: URL(fileURLWithPath: "/usr/bin/ffmpeg"))
        return outcome.status == 0 && outcome.stderr.isEmpty
    }

    @Test("heic-to-jpg over 12 photos killed after 2 outputs: the rerun completes with each output once")
    func photoBatch() async throws {
        let work = FileManager.default.temporaryDirectory.appendingPathComponent(
            "offconvert-kill-heic-\(UUID().uuidString.prefix(8))")
        let inputs = work.appendingPathComponent("in")
        let out = work.appendingPathComponent("out")
        let state = work.appendingPathComponent("state")
        try FileManager.default.createDirectory(at: inputs, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: work) }
        // 1080x1920: about a tenth of a second each in a debug build, so the kill lands mid-batch.
        let source = CLIRunner.media.appendingPathComponent("photos/sample_still_photo.heic")
        var paths: [String] = []
        for index in 0..<12 {
            let input = inputs.appendingPathComponent(String(format: "p%02d.heic", index))
            try FileManager.default.copyItem(at: source, to: input)
            paths.append(input.path)
        }
        let expected = (0..<12).map { String(format: "p%02d.jpg", $0) }
        let arguments = ["heic-to-jpg"] + paths + ["--output-dir", out.path, "--jobs", "1", "--json"]
        @Sendable func placed() -> [String] { Self.names(in: out).filter { !$0.hasPrefix(".") } }

        let (process, exited) = try CLIRunner.launch(arguments, stateHome: state.path)
        let killedRunning = await Self.kill(process, when: { placed().count >= 2 })
        for await _ in exited {}
        let before = placed()
        #expect(
            killedRunning && process.terminationReason == .uncaughtSignal, "the first run must be killed, not finish")
        #expect(before.count >= 2 && before.count < 12, "killed mid-batch: \(before)")
        #expect(Set(before).isSubset(of: expected))

        let rerun = try await CLIRunner.run(arguments, environment: ["XDG_STATE_HOME": state.path])
        #expect(rerun.status == 0, "\(rerun.stderr)")
        #expect(Self.names(in: out) == expected, "every output once, nothing hidden: \(Self.names(in: out))")
        let lines = rerun.stdout.split(separator: "\n").map(String.init)
        #expect(
            lines.filter { $0.contains(#""event":"skipped""#) }.count == before.count, "finished items are not redone")
        #expect(lines.filter { $0.contains(#""event":"finished""#) }.count == 12 - before.count)
        for name in expected {
            let path = out.appendingPathComponent(name).path
            #expect(try await Self.decodesCleanly(path), "\(name) is not a whole JPEG")
        }
        let allowance = try AllowanceStore(
            environment: ["XDG_STATE_HOME": state.path], timeZone: CLIRunner.childTimeZone
        ).status()
        #expect(allowance.used == 1, "the batch is charged once, its resume included")
        #expect(allowance.reserved == 0, "the killed run's reservation is freed, not charged twice")
    }

    @Test(
        "a slow first photo, fast ones after, interrupted once fast outputs are in place: charged once, the rerun free",
        arguments: [SIGKILL, SIGINT])
    func slowFirstInput(_ signal: Int32) async throws {
        let work = FileManager.default.temporaryDirectory.appendingPathComponent(
            "offconvert-kill-slow-\(UUID().uuidString.prefix(8))")
        let inputs = work.appendingPathComponent("in")
        let out = work.appendingPathComponent("out")
        let state = work.appendingPathComponent("state")
        try FileManager.default.createDirectory(at: inputs, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: work) }
        // A 12 MP photo to PNG takes seconds (zlib over 36 MB of pixels); the tiny ones beside it
        // milliseconds, so two of them are in place while the big one is still decoding, however
        // loaded the machine. (2 MP ones left too little gap on a loaded machine: the big PNG was
        // in place by the time a SIGINT's grace ended. JPEG XL made the gap wider but cost a
        // minute of CPU a run.)
        let big = inputs.appendingPathComponent("big.heic")
        try FileManager.default.copyItem(at: CLIRunner.media.appendingPathComponent("photos/IMG_3853.HEIC"), to: big)
        var paths = [big.path]
        for index in 1...5 {
            let input = inputs.appendingPathComponent("s\(index).heic")
            try FileManager.default.copyItem(
                at: CLIRunner.media.appendingPathComponent("photos/zPug_3.heic"), to: input)
            paths.append(input.path)
        }
        let arguments = ["convert"] + paths + ["--to", "png", "--output-dir", out.path, "--jobs", "2", "--json"]
        @Sendable func placed() -> [String] { Self.names(in: out).filter { !$0.hasPrefix(".") } }
        let environment = ["XDG_STATE_HOME": state.path]

        let (process, exited) = try CLIRunner.launch(arguments, stateHome: state.path)
        // Interrupted once one small output is in place: each placing waits for a durable journal
        // line and, the first, for the allowance's charge, and on a CI machine busy with other
        // suites' disk syncs two of them could outlast the big photo.
        let signalled = await CLIRunner.signal(process, signal, when: { placed().count >= 1 })
        for await _ in exited {}
        let before = placed()
        #expect(signalled, "the first run must be interrupted, not finish")
        #expect(!before.contains("big.png") && !before.isEmpty, "interrupted while the big photo ran: \(before)")
        let store = AllowanceStore(environment: environment, timeZone: CLIRunner.childTimeZone)
        #expect(try store.status().used == 1, "outputs in place: the batch is charged, whichever input finished first")

        let rerun = try await CLIRunner.run(arguments, environment: environment)
        #expect(rerun.status == 0, "\(rerun.stderr)")
        #expect(Self.names(in: out) == ["big.png", "s1.png", "s2.png", "s3.png", "s4.png", "s5.png"])
        let status = try store.status()
        #expect(status.used == 1, "finishing the interrupted batch is free")
        #expect(status.reserved == 0)
    }

    @Test(
        "a damaged journal: the rerun says so once, keeps the outputs in place and charges nothing more",
        arguments: ["truncated", "garbled"])
    func damagedJournal(_ damage: String) async throws {
        let work = FileManager.default.temporaryDirectory.appendingPathComponent(
            "offconvert-damaged-journal-\(UUID().uuidString.prefix(8))")
        let out = work.appendingPathComponent("out")
        let state = work.appendingPathComponent("state")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: work) }
        let photo = CLIRunner.media.appendingPathComponent("photos/sample_still_photo.heic")
        var paths: [String] = []
        for name in ["a", "b", "c"] {
            let input = work.appendingPathComponent(name + ".heic")
            try FileManager.default.copyItem(at: photo, to: input)
            paths.append(input.path)
        }
        // The second photo is cut short: the first run fails it and converts the others.
        try Data(try Data(contentsOf: photo).prefix(4000)).write(to: URL(fileURLWithPath: paths[1]))
        let arguments = ["heic-to-jpg"] + paths + ["--output-dir", out.path, "--json"]
        let environment = ["XDG_STATE_HOME": state.path]
        #expect(try await CLIRunner.run(arguments, environment: environment).status == 1)
        #expect(Self.names(in: out) == ["a.jpg", "c.jpg"])

        let batches = state.appendingPathComponent("offconvert/batches")
        let journal = try #require(Self.names(in: batches).first { $0.hasSuffix(".journal") })
        let journalURL = batches.appendingPathComponent(journal)
        let bytes = try Data(contentsOf: journalURL)
        let damaged =
            damage == "truncated"
            ? bytes.prefix(bytes.count / 3) : Data(bytes.map { $0 == UInt8(ascii: "\"") ? UInt8(ascii: "'") : $0 })
        try damaged.write(to: journalURL)

        try FileManager.default.removeItem(atPath: paths[1])
        try FileManager.default.copyItem(at: photo, to: URL(fileURLWithPath: paths[1]))
        let rerun = try await CLIRunner.run(arguments, environment: environment)
        #expect(rerun.status == 0, "\(rerun.stderr)")
        let lines = rerun.stdout.split(separator: "\n").map(String.init)
        #expect(lines.filter { $0.contains(#""reason":"journal.damaged""#) }.count == 1, "\(rerun.stdout)")
        #expect(lines.filter { $0.contains(#""event":"skipped""#) }.count == 2)
        #expect(Self.names(in: out) == ["a.jpg", "b.jpg", "c.jpg"], "no copies beside the outputs in place")
        let status = try AllowanceStore(environment: environment, timeZone: CLIRunner.childTimeZone).status()
        #expect(status.used == 1, "finishing the batch is free, its journal damaged or not")
    }

    /// (signal, microseconds after the staged output appears): each signal once in the first
    /// 0.4 s of the encode and once in the next 0.4 s, at moments drawn once and written down so
    /// that a failure repeats.
    static let compressSignals: [(Int32, useconds_t)] = [
        (SIGINT, 137_000), (SIGINT, 563_000), (SIGTERM, 21_000), (SIGTERM, 702_000), (SIGKILL, 288_000),
        (SIGKILL, 459_000),
    ]

    @Test(
        "compress interrupted by SIGINT, SIGTERM or SIGKILL at seeded moments: the folder holds only whole outputs (a kill -9's staged file is removed by the next start), and the rerun succeeds",
        arguments: 0..<compressSignals.count)
    func videoCompress(_ index: Int) async throws {
        let (signal, delay) = Self.compressSignals[index]
        let work = FileManager.default.temporaryDirectory.appendingPathComponent(
            "offconvert-kill-compress-\(UUID().uuidString.prefix(8))")
        let out = work.appendingPathComponent("out")
        let state = work.appendingPathComponent("state")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: work) }
        // 60 s at 160x90 with AAC: its encode lasts a few seconds in a debug build.
        let input = CLIRunner.media.appendingPathComponent("generated/video-long.mp4").path
        let arguments = ["compress", input, "--target", "1MB", "--output-dir", out.path, "--json"]

        let (process, exited) = try CLIRunner.launch(arguments, stateHome: state.path)
        let signalled = await CLIRunner.signal(
            process, signal, when: { Self.names(in: out).contains { $0.hasSuffix(".partial") } }, delay: delay)
        for await _ in exited {}
        let left = Self.names(in: out)
        if signal == SIGKILL {
            // Only the staged output of the dead run, or the whole output if it finished first.
            #expect(left.allSatisfy { $0 == "video-long.mp4" || $0.hasSuffix(".partial") }, "\(left)")
        } else {
            // An interrupted run removes its staged output before it exits: nothing but whole outputs.
            #expect(left.allSatisfy { !$0.hasPrefix(".") }, "signal \(signal) after \(delay) µs left \(left)")
            if signalled && process.terminationStatus == 0 { #expect(left == ["video-long.mp4"]) }
        }
        #expect(signalled || left == ["video-long.mp4"], "the run ended before the signal without its output: \(left)")

        let rerun = try await CLIRunner.run(arguments, environment: ["XDG_STATE_HOME": state.path])
        #expect(rerun.status == 0, "\(rerun.stderr)")
        #expect(Self.names(in: out) == ["video-long.mp4"], "one output and no working file: \(Self.names(in: out))")
        let output = out.appendingPathComponent("video-long.mp4").path
        let size = (try FileManager.default.attributesOfItem(atPath: output)[.size] as? NSNumber)?.int64Value ?? .max
        #expect(size <= 1_000_000)
        #expect(try await Self.decodesCleanly(output))
        let allowance = try AllowanceStore(
            environment: ["XDG_STATE_HOME": state.path], timeZone: CLIRunner.childTimeZone
        ).status()
        #expect(allowance.reserved == 0, "no reservation left by the interrupted run")
    }
}
