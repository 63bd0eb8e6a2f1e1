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
        // Foundation reaps the child itself, so its exit is learnt from the termination handler,
        // never from a waitpid of ours (which would race it and lose the status).
        let exited = AsyncStream<Void>.makeStream()
        process.terminationHandler = { _ in exited.continuation.finish() }
        try process.run()
        let pid = process.processIdentifier
        let (outText, errText) = await withTaskCancellationHandler {
            async let stdout = drain(out.fileHandleForReading, to: forward ? FileHandle.standardOutput : nil)
            async let stderr = drain(err.fileHandleForReading, to: forward ? FileHandle.standardError : nil)
            let texts = await (stdout, stderr)
            for await _ in exited.stream {}
            return texts
        } onCancel: {
            kill(pid, SIGTERM)
        }
        process.waitUntilExit()
        let status = process.terminationReason == .uncaughtSignal ? 128 + process.terminationStatus : process.terminationStatus
        return DesktopRunner.Outcome(status: status, stdout: outText, stderr: errText)
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
