import ConvertCore
import FoundationEssentials
import Glibc

/// `offconvert desktop run ACTION -- FILES...`: what a file-manager menu entry runs. It runs the
/// action's command on the files (results next to them, as the command always does), passes its
/// output through, and at the end shows a desktop notification with the summary line and, on
/// failure, the first error: through `notify-send` (libnotify-bin) when it is installed, and
/// nothing otherwise. `info`'s text goes to the notification too.
package enum DesktopRunner {
    /// What one run of the action's command printed and how it exited.
    struct Outcome: Sendable {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    /// Runs `action` on `files` with the `offconvert` beside this executable; returns its exit code.
    package static func run(
        _ action: DesktopAction, files: [String], environment: [String: String] = ProcessInfo.processInfo.environment
    ) async -> Int32 {
        guard !files.isEmpty else {
            notify(action, body: "Nothing was selected.", failed: true, environment: environment)
            return ExitCode.usage
        }
        let launcher = DesktopInstaller.launcherPath()
        let (paths, links) = reachable(rawSelection() ?? files.map { Array($0.utf8) })
        defer { for link in links { unlink(link) } }
        let outcome: Outcome
        do {
            outcome = try await ChildCommand.run(launcher, [action.command, "--"] + paths, environment: environment, forward: true)
        } catch {
            notify(action, body: "offconvert could not start \(launcher): \(error)", failed: true, environment: environment)
            return ExitCode.failure
        }
        let failed = outcome.status != ExitCode.success
        notify(action, body: body(action, outcome), failed: failed, environment: environment)
        return outcome.status
    }

    /// The notification's text: the summary line (for info, what it printed), then on failure
    /// the first error.
    static func body(_ action: DesktopAction, _ outcome: Outcome) -> String {
        let errors = outcome.stderr.split(separator: "\n").map(String.init)
        var lines: [String] = []
        if action.showsOutput {
            lines += outcome.stdout.split(separator: "\n", omittingEmptySubsequences: false).prefix(40).map(String.init)
        } else if let summary = errors.last(where: isSummary) {
            lines.append(summary)
        }
        if outcome.status != ExitCode.success, let first = errors.first(where: { $0.hasPrefix(Messages.text(.errorPrefix)) }) {
            lines.append(first)
        }
        if lines.isEmpty { lines.append(outcome.status == ExitCode.success ? "Done." : "Failed (exit \(outcome.status)).") }
        return lines.joined(separator: "\n")
    }

    /// Whether `line` is a batch's summary ("2 done, 1 failed, ..." or "Interrupted: 1 done, ...").
    static func isSummary(_ line: String) -> Bool {
        let done = " " + Messages.text(.summaryDone, "").trimmingWhitespace()
        guard let range = line.firstRange(of: done) else { return false }
        let count = line[..<range.lowerBound].split(separator: " ").last ?? ""
        return !count.isEmpty && count.allSatisfy(\.isNumber)
    }

    /// Shows `body` as a notification when `notify-send` is on the PATH and there is a session
    /// bus to show it on; otherwise does nothing. Without a bus notify-send may try to start one
    /// and wait forever, so it is not run then, and one that has not finished within a few
    /// seconds is ended: the files are written already, the menu action must not linger.
    static func notify(_ action: DesktopAction, body: String, failed: Bool, environment: [String: String]) {
        guard let tool = executable(named: "notify-send", environment: environment), hasSessionBus(environment) else { return }
        let arguments = [
            tool, "--app-name=offconvert", "--icon=\(failed ? "dialog-error" : action.icon)",
            "--urgency=\(failed ? "critical" : "normal")", "offconvert: \(action.label)", body,
        ]
        // posix_spawn, not Process: this child is waited for here alone, with a bound.
        var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) }
        argv.append(nil)
        defer { argv.forEach { free($0) } }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        for descriptor: Int32 in [0, 1, 2] {
            posix_spawn_file_actions_addopen(&actions, descriptor, "/dev/null", descriptor == 0 ? O_RDONLY : O_WRONLY, 0)
        }
        var pid: pid_t = 0
        // A notification that cannot be shown must not fail the action.
        guard posix_spawn(&pid, tool, &actions, nil, argv, environ) == 0 else { return }
        var status: Int32 = 0
        for _ in 0..<100 {
            if waitpid(pid, &status, WNOHANG) != 0 { return }
            usleep(50_000)
        }
        // SIGKILL: it inherits this process's ignored SIGTERM (see SignalHandling).
        kill(pid, SIGKILL)
        waitpid(pid, &status, 0)
    }

    /// Whether the session has a D-Bus bus: `DBUS_SESSION_BUS_ADDRESS`, or the socket systemd
    /// puts at `$XDG_RUNTIME_DIR/bus`.
    static func hasSessionBus(_ environment: [String: String]) -> Bool {
        if let address = environment["DBUS_SESSION_BUS_ADDRESS"], !address.isEmpty { return true }
        guard let runtime = environment["XDG_RUNTIME_DIR"], !runtime.isEmpty else { return false }
        return access(runtime + "/bus", F_OK) == 0
    }

    /// The first executable `name` on `environment`'s PATH.
    static func executable(named name: String, environment: [String: String]) -> String? {
        let path = environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
        for folder in path.split(separator: ":") where !folder.isEmpty {
            let candidate = "\(folder)/\(name)"
            if access(candidate, X_OK) == 0 { return candidate }
        }
        return nil
    }

    /// The selection as the bytes this process was given after `desktop run ACTION --`, read
    /// from /proc/self/cmdline: Swift's `CommandLine.arguments` replaces bytes that are not
    /// UTF-8 (a name written on another system), which would name a file that does not exist.
    static func rawSelection() -> [[UInt8]]? {
        guard let data = FileManager.default.contents(atPath: "/proc/self/cmdline") else { return nil }
        let arguments = data.split(separator: 0, omittingEmptySubsequences: false).map { Array($0) }
        guard let run = arguments.indices.first(where: { arguments[$0] == Array("desktop".utf8) && arguments.indices.contains($0 + 1)
                && arguments[$0 + 1] == Array("run".utf8) }),
            let separator = arguments[(run + 2)...].firstIndex(of: Array("--".utf8))
        else { return nil }
        // The kernel's copy ends with a NUL, which leaves one empty piece at the end.
        return Array(arguments[(separator + 1)...].dropLast(arguments.last?.isEmpty == true ? 1 : 0))
    }

    /// Paths the commands can open for `selection`: a UTF-8 path as it is; a name with bytes
    /// that are not UTF-8 through a symlink beside it whose name has U+FFFD in their place (so
    /// the output, named after it, lands next to the file too). Returns the links to remove.
    /// A folder whose own name is not UTF-8 is passed as it is and fails as not found.
    static func reachable(_ selection: [[UInt8]]) -> (paths: [String], links: [String]) {
        var paths: [String] = []
        var links: [String] = []
        for bytes in selection {
            if let path = String(validating: bytes, as: UTF8.self) {
                paths.append(path)
                continue
            }
            let slash = bytes.lastIndex(of: UInt8(ascii: "/"))
            let folder = slash.map { Array(bytes[...$0]) } ?? []
            let name = slash.map { Array(bytes[($0 + 1)...]) } ?? bytes
            guard let folderText = String(validating: folder, as: UTF8.self) else {
                paths.append(String(decoding: bytes, as: UTF8.self))
                continue
            }
            let readable = String(decoding: name, as: UTF8.self)
            var link = folderText + readable
            var number = 2
            while access(link, F_OK) == 0 || isLink(link) {
                link = folderText + PathText.deletingExtension(readable) + " (\(number))." + PathText.fileExtension(readable)
                number += 1
            }
            // The link's target is the raw name, relative: it resolves in the same folder.
            let made = (name + [0]).withUnsafeBufferPointer { target -> Bool in
                guard let base = target.baseAddress else { return false }
                return base.withMemoryRebound(to: CChar.self, capacity: target.count) { symlink($0, link) == 0 }
            }
            if made {
                links.append(link)
                paths.append(link)
            } else {
                paths.append(String(decoding: bytes, as: UTF8.self))
            }
        }
        return (paths, links)
    }

    private static func isLink(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0
    }
}
