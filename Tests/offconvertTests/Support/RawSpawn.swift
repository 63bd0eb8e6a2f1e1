import Foundation

/// Starts a program with arguments given as raw bytes, as a file manager does: a file name that
/// is not UTF-8 cannot go through `Process` (its arguments are Swift strings).
enum RawSpawn {
    struct Outcome: Sendable {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    /// Runs `argv` (argv[0] a path) in `directory` with `environment` (the whole environment),
    /// waiting on a thread of its own.
    static func run(_ argv: [[UInt8]], environment: [String: String], directory: String) async -> Outcome {
        await withCheckedContinuation { continuation in
            Thread.detachNewThread {
                continuation.resume(returning: runBlocking(argv, environment: environment, directory: directory))
            }
        }
    }

    private static func runBlocking(_ argv: [[UInt8]], environment: [String: String], directory: String) -> Outcome {
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("raw-out-\(UUID().uuidString)").path
        let err = FileManager.default.temporaryDirectory.appendingPathComponent("raw-err-\(UUID().uuidString)").path
        defer {
            unlink(out)
            unlink(err)
        }
        // env -C changes into the folder first: posix_spawn has no portable working-directory action.
        let full = [Array("/usr/bin/env".utf8), Array("-C".utf8), Array(directory.utf8)] + argv
        var cArgs: [UnsafeMutablePointer<CChar>?] = full.map { bytes in
            let pointer = UnsafeMutablePointer<CChar>.allocate(capacity: bytes.count + 1)
            for (index, byte) in bytes.enumerated() { pointer[index] = CChar(bitPattern: byte) }
            pointer[bytes.count] = 0
            return pointer
        }
        cArgs.append(nil)
        var cEnv: [UnsafeMutablePointer<CChar>?] = environment.map { strdup("\($0.key)=\($0.value)") }
        cEnv.append(nil)
        defer {
            for argument in cArgs { argument?.deallocate() }
            for variable in cEnv { free(variable) }
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, out, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, err, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        var pid: pid_t = 0
        guard posix_spawn(&pid, "/usr/bin/env", &actions, nil, cArgs, cEnv) == 0 else {
            return Outcome(status: -1, stdout: "", stderr: "posix_spawn failed")
        }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        let code = (status & 0x7F) == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
        return Outcome(
            status: code, stdout: (try? String(contentsOfFile: out, encoding: .utf8)) ?? "",
            stderr: (try? String(contentsOfFile: err, encoding: .utf8)) ?? "")
    }
}
