import ConvertCore
import FoundationEssentials
import Glibc

/// How the work that needs the video engine runs. `offconvert-media` links the engine and
/// installs one runner for every ``MediaWork`` at start; `offconvert-photo` installs none, and
/// there the work turns this process into `offconvert-media` (exec) with the same command line.
package enum MediaRunners {
    /// Runs one piece of engine work; returns the exit code.
    package typealias Runner = @Sendable (MediaWork, ParsedArguments, Console) async throws -> Int32

    /// The executable with the video engine, installed next to `offconvert` and `offconvert-photo`.
    static let executableName = "offconvert-media"

    private static let installed = PthreadLocked<Runner?>(nil)

    /// Installs the runner of all engine work (once, before the command line runs). It switches
    /// over ``MediaWork``, so every case has its work by construction.
    package static func install(_ runner: @escaping Runner) {
        installed.withLock { $0 = runner }
    }

    /// Runs `work` with the engine: here when the runner is installed, otherwise by becoming
    /// `offconvert-media`, which returns only if that fails.
    package static func run(_ work: MediaWork, _ arguments: ParsedArguments, console: Console) async throws -> Int32 {
        if let runner = installed.withLock({ $0 }) {
            return try await runner(work, arguments, console)
        }
        return handOff(console: console)
    }

    /// Replaces this process with `offconvert-media` running this process's own command line
    /// (exec): the same PID, terminal, open files and environment, so a script, a signal or
    /// `kill` sees one program. Returns only when the exec fails, with the exit code to leave with.
    static func handOff(console: Console) -> Int32 {
        let own = ownExecutablePath()
        // The engine without a runner would exec itself forever; it cannot happen with the runner
        // installed at start, and is an error rather than a loop if it ever does.
        guard PathText.lastComponent(own) != executableName else {
            console.err("Error: \(executableName) was started without its video engine runner. Reinstall offconvert.")
            return ExitCode.failure
        }
        let path = PathText.join(PathText.parent(own), executableName)
        // The arguments' own bytes: a file name that is not UTF-8 must reach the engine unchanged.
        var argv: [UnsafeMutablePointer<CChar>?] = ([path] + PathEncoding.arguments.dropFirst()).map {
            PathEncoding.withCString($0) { strdup($0) }
        }
        argv.append(nil)
        // The engine starts with the signal dispositions of a fresh process.
        signal(SIGINT, SIG_DFL)
        signal(SIGTERM, SIG_DFL)
        PathEncoding.withCString(path) { _ = execv($0, argv) }
        let reason = String(cString: strerror(errno))
        for argument in argv { free(argument) }
        console.err(
            "Error: This command needs offconvert's video engine, \(path), which could not be started (\(reason)). "
                + "Reinstall offconvert: its three executables belong in the same folder "
                + "(with the Debian packages, install offconvert-video).")
        return ExitCode.failure
    }

    /// This executable's own path (through symlinks), so the engine is found beside it wherever
    /// it was installed and however it was called.
    private static func ownExecutablePath() -> String {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let length = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard length > 0 else { return PathEncoding.arguments[0] }
        return PathEncoding.decode(buffer[0..<length].map { UInt8(bitPattern: $0) })
    }
}
