import Foundation

/// Runs another offconvert command line as a child process and collects what it printed: the
/// file-manager wrapper and the folder watcher do their conversions this way, so each is
/// exactly the command a user would type, with its own engine, journal and allowance.
enum ChildCommand {
    /// Runs `tool` with `arguments` (each its own argv element); with `forward`, its output is
    /// also copied to this process's as it arrives. Both pipes are drained on threads of their
    /// own, so neither can fill and stall it. Cancelling the task sends the child SIGTERM (it
    /// then removes its partial files and exits 130) and still waits for it.
    static func run(
        _ tool: String, _ arguments: [String], environment: [String: String] = ProcessInfo.processInfo.environment,
        forward: Bool = false
    ) async throws -> DesktopRunner.Outcome {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = arguments
        process.environment = environment
        let (out, err) = (Pipe(), Pipe())
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let pid = process.processIdentifier
        return await withTaskCancellationHandler {
            async let stdout = drain(out.fileHandleForReading, to: forward ? FileHandle.standardOutput : nil)
            async let stderr = drain(err.fileHandleForReading, to: forward ? FileHandle.standardError : nil)
            let (outText, errText) = await (stdout, stderr)
            let status = await exitStatus(pid)
            return DesktopRunner.Outcome(status: status, stdout: outText, stderr: errText)
        } onCancel: {
            kill(pid, SIGTERM)
        }
    }

    /// The exit code of child `pid` (128 + the signal if one ended it), waited for on a thread.
    private static func exitStatus(_ pid: pid_t) async -> Int32 {
        await withCheckedContinuation { continuation in
            Thread.detachNewThread {
                var status: Int32 = 0
                while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
                let signal = status & 0x7F
                continuation.resume(returning: signal == 0 ? (status >> 8) & 0xFF : 128 + signal)
            }
        }
    }

    /// Everything `handle` yields until its end, copied to `forward` as it arrives.
    private static func drain(_ handle: FileHandle, to forward: FileHandle?) async -> String {
        await withCheckedContinuation { continuation in
            Thread.detachNewThread {
                var collected = Data()
                while true {
                    let chunk = handle.availableData
                    if chunk.isEmpty { break }
                    collected.append(chunk)
                    forward?.write(chunk)
                }
                continuation.resume(returning: String(decoding: collected, as: UTF8.self))
            }
        }
    }
}
