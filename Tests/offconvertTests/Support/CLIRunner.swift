import Foundation

/// Runs the built `offconvert` binary and captures what it printed.
enum CLIRunner {
    /// The package root.
    static let root: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// `TestMedia/` in the package.
    static let media = root.appendingPathComponent("TestMedia")

    /// The `offconvert` executable built next to this test bundle.
    static let executable: URL = {
        var directory = Bundle.main.bundleURL
        for _ in 0..<3 {
            let candidate = directory.appendingPathComponent("offconvert")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
            directory.deleteLastPathComponent()
        }
        return root.appendingPathComponent(".build/debug/offconvert")
    }()

    /// Hours ahead of UTC of a zone in which it was about noon when the tests started. The daily
    /// allowance counts local days, so a suite that ran across local midnight saw the count go back
    /// to zero half-way through a test; no run of the suite lasts twelve hours.
    static let noonHoursAhead: Int = {
        var now = time(nil)
        var utc = tm()
        gmtime_r(&now, &utc)
        return 12 - Int(utc.tm_hour)
    }()

    /// The zone of ``childEnvironment``, for tests that read a child's allowance in-process.
    static let childTimeZone = TimeZone(secondsFromGMT: noonHoursAhead * 3600)

    /// The environment every child process of the tests starts from: this process's, with `TZ`
    /// set to the fixed-offset zone of ``noonHoursAhead``.
    static let childEnvironment: [String: String] = {
        var environment = ProcessInfo.processInfo.environment
        // POSIX TZ offsets count hours west of UTC: "OFFCONVERT-3" is three hours ahead.
        environment["TZ"] = "OFFCONVERT\(-noonHoursAhead)"
        return environment
    }()

    /// The standard output of another tool (`ldd`, `exiftool`) run to completion, as text.
    static func toolOutput(_ tool: String, _ arguments: [String], environment: [String: String] = [:]) throws -> String
    {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = arguments
        process.environment = childEnvironment.merging(environment) { $1 }
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self)
    }

    /// Sends `signal` to `process` once `condition` holds (polled every 2 ms, then after `delay`
    /// microseconds) and returns whether the process was still running when it was signalled. The
    /// polling runs on a thread of its own: other suites sometimes hold the cooperative pool for
    /// seconds, and a poll that waited for it would let the process finish first.
    static func signal(
        _ process: Process, _ signal: Int32, when condition: @escaping @Sendable () -> Bool, delay: useconds_t = 0
    ) async -> Bool {
        // A pidfd names this process, not its number: once it has exited and been reaped, a kill
        // by PID could reach another test's process that got the number again (pid_max is 32768
        // here, and the suite forks thousands). Opened now, while the process is surely running.
        let handle = pidfdOpen(process.processIdentifier, 0)
        return await withCheckedContinuation { continuation in
            Thread.detachNewThread {
                let deadline = Date().addingTimeInterval(120)
                while process.isRunning && !condition() && Date() < deadline { usleep(2_000) }
                usleep(delay)
                let running = process.isRunning
                if handle >= 0 {
                    _ = pidfdSendSignal(handle, signal, nil, 0)
                    close(handle)
                } else if running {
                    kill(process.processIdentifier, signal)
                }
                continuation.resume(returning: running)
            }
        }
    }

    /// What one run printed and how it exited.
    struct Outcome: Sendable {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    /// A state folder of this test process's own, so tests never use (or use up) the allowance of
    /// the person running them; a test that needs its own passes `XDG_STATE_HOME` explicitly.
    static let stateHome: String = {
        let path = FileManager.default.temporaryDirectory
            .appendingPathComponent("offconvert-tests-state-\(getpid())-\(UUID().uuidString.prefix(8))").path
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }()

    /// Runs `offconvert` (or `executable`, wrapping it) with `arguments`, an environment that adds `environment`, in `directory`.
    /// The allowance lives in a fresh state folder per run unless `environment` sets `XDG_STATE_HOME`.
    ///
    /// Waits without holding a thread: tests run in parallel on the few threads of Swift's
    /// cooperative pool, and a blocked one would stall other suites' conversions.
    static func run(
        _ arguments: [String], environment: [String: String] = [:], executable: URL = executable,
        directory: URL? = nil, timeout: TimeInterval = 900
    ) async throws -> Outcome {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        var env = childEnvironment
        env["NO_COLOR"] = "1"
        env["XDG_STATE_HOME"] = stateHome + "/" + UUID().uuidString
        for (key, value) in environment { env[key] = value }
        process.environment = env
        if let directory { process.currentDirectoryURL = directory }
        let outDirectory = FileManager.default.temporaryDirectory
        let outURL = outDirectory.appendingPathComponent("offconvert-out-\(UUID().uuidString)")
        let errURL = outDirectory.appendingPathComponent("offconvert-err-\(UUID().uuidString)")
        _ = FileManager.default.createFile(atPath: outURL.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errURL.path, contents: nil)
        defer {
            try? FileManager.default.removeItem(at: outURL)
            try? FileManager.default.removeItem(at: errURL)
        }
        let outHandle = try FileHandle(forWritingTo: outURL)
        let errHandle = try FileHandle(forWritingTo: errURL)
        process.standardOutput = outHandle
        process.standardError = errHandle
        process.standardInput = FileHandle.nullDevice
        let exited = AsyncStream<Void>.makeStream()
        process.terminationHandler = { _ in exited.continuation.finish() }
        try process.run()
        let watchdog = Task {
            try await Task.sleep(for: .seconds(timeout))
            process.terminate()
        }
        for await _ in exited.stream {}
        watchdog.cancel()
        process.waitUntilExit()
        try outHandle.close()
        try errHandle.close()
        return Outcome(
            status: process.terminationStatus,
            stdout: (try? String(contentsOf: outURL, encoding: .utf8)) ?? "",
            stderr: (try? String(contentsOf: errURL, encoding: .utf8)) ?? "")
    }
}

/// glibc 2.36's `pidfd_open` (Debian 12), declared here: the Glibc module does not import
/// <sys/pidfd.h>.
@_silgen_name("pidfd_open")
private func pidfdOpen(_ pid: pid_t, _ flags: UInt32) -> Int32

/// glibc 2.36's `pidfd_send_signal`: signals the process the pidfd names, or fails with ESRCH
/// once it has exited.
@_silgen_name("pidfd_send_signal")
private func pidfdSendSignal(_ pidfd: Int32, _ signal: Int32, _ info: UnsafeMutableRawPointer?, _ flags: UInt32)
    -> Int32
