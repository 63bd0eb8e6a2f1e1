import Foundation
import Synchronization

/// How the commands that need the video engine run. `offconvert-media` links the engine and
/// installs a runner for each of them at start; `offconvert-photo` installs none, and a command
/// without a runner turns this process into `offconvert-media` (exec) with the same command line.
package enum MediaRunners {
    /// Runs one command's work with the engine; returns the exit code.
    package typealias Runner = @Sendable (ParsedArguments, Console) async throws -> Int32

    /// The executable with the video engine, installed next to `offconvert` and `offconvert-photo`.
    package static let executableName = "offconvert-media"

    private static let installed = Mutex<[String: Runner]>([:])

    /// Installs the runners, by command name (once, before the command line runs).
    package static func install(_ runners: [String: Runner]) {
        installed.withLock { $0 = runners }
    }

    /// Runs the command `name` with the engine: here when its runner is installed, otherwise by
    /// becoming `offconvert-media`, which returns only if that fails.
    package static func run(_ name: String, _ arguments: ParsedArguments, console: Console) async throws -> Int32 {
        if let runner = installed.withLock({ $0[name] }) {
            return try await runner(arguments, console)
        }
        return handOff(console: console)
    }

    /// Replaces this process with `offconvert-media` running this process's own command line
    /// (exec): the same PID, terminal, open files and environment, so a script, a signal or
    /// `kill` sees one program. Returns only when the exec fails, with the exit code to leave with.
    package static func handOff(console: Console) -> Int32 {
        let path = URL(fileURLWithPath: ownExecutablePath()).deletingLastPathComponent()
            .appendingPathComponent(executableName).path
        var argv: [UnsafeMutablePointer<CChar>?] = ([path] + CommandLine.arguments.dropFirst()).map { strdup($0) }
        argv.append(nil)
        // The engine starts with the signal dispositions of a fresh process.
        signal(SIGINT, SIG_DFL)
        signal(SIGTERM, SIG_DFL)
        execv(path, argv)
        let reason = String(cString: strerror(errno))
        argv.forEach { free($0) }
        console.err(
            "Error: This command needs offconvert's video engine, \(path), which could not be started (\(reason)). "
                + "Reinstall offconvert: its three executables belong in the same folder.")
        return ExitCode.failure
    }

    /// This executable's own path (through symlinks), so the engine is found beside it wherever
    /// it was installed and however it was called.
    private static func ownExecutablePath() -> String {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let length = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard length > 0 else { return CommandLine.arguments[0] }
        return String(decoding: buffer[0..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
