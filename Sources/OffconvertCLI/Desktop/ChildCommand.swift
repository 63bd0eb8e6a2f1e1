import ConvertCore
import FoundationEssentials

#if canImport(Glibc)
    import Glibc
#endif

/// Runs another offconvert command line as a child process and collects what it printed: the
/// file-manager wrapper and the folder watcher do their conversions this way, so each is
/// exactly the command a user would type, with its own engine, journal and allowance.
///
/// The child is started with `posix_spawn`, not Foundation's `Process`: `Process` opens a socket
/// for its run-loop wake-ups, and a command of ours opens none (the no-network tests check it).
enum ChildCommand {
    /// Runs `tool` with `arguments` (each its own argv element); with `forward`, its output is
    /// also copied to this process's as it arrives. Both pipes are drained on threads of their
    /// own, so neither can fill and stall it. Cancelling the task sends the child SIGTERM (it
    /// then removes its partial files and exits 130) and still waits for it.
    static func run(
        _ tool: String, _ arguments: [String], environment: [String: String] = ProcessInfo.processInfo.environment,
        forward: Bool = false
    ) async throws -> DesktopRunner.Outcome {
        let out = try makePipe()
        let err = try makePipe()
        let pid = try spawn(tool, arguments, environment: environment, stdout: out.write, stderr: err.write)
        close(out.write)
        close(err.write)
        let (outText, errText, status) = await withTaskCancellationHandler {
            async let stdout = drain(out.read, to: forward ? STDOUT_FILENO : nil)
            async let stderr = drain(err.read, to: forward ? STDERR_FILENO : nil)
            let texts = await (stdout, stderr)
            let status = (try? await runBlocking(on: .short) { _ in exitStatus(of: pid) }) ?? 1
            return (texts.0, texts.1, status)
        } onCancel: {
            kill(pid, SIGTERM)
        }
        return DesktopRunner.Outcome(status: status, stdout: outText, stderr: errText)
    }

    /// A pipe whose ends are closed in every child started later (each child gets its own).
    /// (Glibc does not export pipe2 to Swift; children are started one at a time here, so the
    /// moment between pipe and fcntl is not raced by another spawn of ours.)
    private static func makePipe() throws -> (read: Int32, write: Int32) {
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else { throw ConvertError.fileSystem(errno, action: "start", path: "a pipe") }
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        return (ends[0], ends[1])
    }

    /// Starts `tool` with standard input from /dev/null and its output on the two descriptors.
    private static func spawn(
        _ tool: String, _ arguments: [String], environment: [String: String], stdout: Int32, stderr: Int32
    ) throws -> pid_t {
        // Arguments are paths: their bytes (`PathEncoding`) reach the child, not their display form.
        var argv: [UnsafeMutablePointer<CChar>?] =
            ([tool] + arguments).map { PathEncoding.withCString($0) { strdup($0) } } + [nil]
        var envp: [UnsafeMutablePointer<CChar>?] = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { for string in argv + envp { free(string) } }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, stdout, STDOUT_FILENO)
        posix_spawn_file_actions_adddup2(&actions, stderr, STDERR_FILENO)
        var pid: pid_t = 0
        let status = PathEncoding.withCString(tool) { posix_spawn(&pid, $0, &actions, nil, &argv, &envp) }
        guard status == 0 else { throw ConvertError.fileSystem(status, action: "start", path: tool) }
        return pid
    }

    /// Waits for `pid` and returns its exit status the way a shell reports it (128 + signal).
    private static func exitStatus(of pid: pid_t) -> Int32 {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 {
            guard errno == EINTR else { return 1 }
        }
        let signal = status & 0x7F
        return signal == 0 ? (status >> 8) & 0xFF : 128 + signal
    }

    /// Everything read from `descriptor` until its end (then closed), copied to `forward` as it
    /// arrives.
    private static func drain(_ descriptor: Int32, to forward: Int32?) async -> String {
        await withCheckedContinuation { continuation in
            DetachedThread.start(name: "offc-child") {
                var collected: [UInt8] = []
                var buffer = [UInt8](repeating: 0, count: 64 << 10)
                while true {
                    let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
                    if count < 0, errno == EINTR { continue }
                    if count <= 0 { break }
                    collected.append(contentsOf: buffer[0..<count])
                    if let forward { buffer.withUnsafeBytes { _ = write(forward, $0.baseAddress, count) } }
                }
                close(descriptor)
                continuation.resume(returning: String(decoding: collected, as: UTF8.self))
            }
        }
    }
}
