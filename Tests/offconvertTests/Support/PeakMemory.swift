import Foundation

/// Runs `offconvert` as a child of its own and reads the child's peak resident memory from
/// `wait4`'s resource usage: the number is that one process's (the launcher execs the engine in
/// the same process), so tests running in parallel cannot disturb it, and no clock is involved.
enum PeakMemory {
    /// How one run ended and the most memory it held, in kilobytes.
    struct Outcome: Sendable {
        var status: Int32
        var maxResidentKilobytes: Int
    }

    /// Runs the built `offconvert` with `arguments` in `directory`, output discarded, its own
    /// state folder. Waited for on a thread of its own (wait4 blocks).
    static func run(_ arguments: [String], in directory: URL) async throws -> Outcome {
        let state = directory.appendingPathComponent(".state-\(UUID().uuidString.prefix(8))").path
        // The shell changes folder and execs: same process, so its usage is offconvert's.
        let quoted = ([CLIRunner.executable.path] + arguments).map { "'" + $0.replacingOccurrences(of: "'", with: "'\\''") + "'" }
        let argv = ["/bin/sh", "-c", "cd \"$0\" && exec " + quoted.joined(separator: " "), directory.path]
        var environment = ProcessInfo.processInfo.environment
        environment["XDG_STATE_HOME"] = state
        environment["NO_COLOR"] = "1"
        let envp = environment.map { "\($0.key)=\($0.value)" }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        for descriptor: Int32 in [0, 1, 2] {
            posix_spawn_file_actions_addopen(&actions, descriptor, "/dev/null", descriptor == 0 ? O_RDONLY : O_WRONLY, 0)
        }
        var pid: pid_t = 0
        let spawned = withCStrings(argv) { argvPointers in
            withCStrings(envp) { envPointers in
                posix_spawn(&pid, argv[0], &actions, nil, argvPointers, envPointers)
            }
        }
        guard spawned == 0 else { throw POSIXError(POSIXErrorCode(rawValue: spawned) ?? .EIO) }
        let child = pid
        return await withCheckedContinuation { continuation in
            Thread.detachNewThread {
                var status: Int32 = 0
                var usage = rusage()
                while wait4(child, &status, 0, &usage) < 0 && errno == EINTR {}
                let exit = (status & 0x7F) == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
                continuation.resume(returning: Outcome(status: exit, maxResidentKilobytes: Int(usage.ru_maxrss)))
            }
        }
    }

    private static func withCStrings<R>(_ strings: [String], _ body: ([UnsafeMutablePointer<CChar>?]) -> R) -> R {
        let pointers = strings.map { strdup($0) } + [nil]
        defer { pointers.forEach { free($0) } }
        return body(pointers)
    }
}
