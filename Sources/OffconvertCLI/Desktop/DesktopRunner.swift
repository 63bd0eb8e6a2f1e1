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
        let outcome: Outcome
        do {
            outcome = try await ChildCommand.run(
                launcher, [action.command, "--"] + files, environment: environment, forward: true)
        } catch {
            notify(
                action, body: "offconvert could not start \(launcher): \(error)", failed: true, environment: environment
            )
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
        if outcome.status != ExitCode.success,
            let first = errors.first(where: { $0.hasPrefix(Messages.text(.errorPrefix)) })
        {
            lines.append(first)
        }
        if lines.isEmpty {
            lines.append(outcome.status == ExitCode.success ? "Done." : "Failed (exit \(outcome.status)).")
        }
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
        guard let tool = executable(named: "notify-send", environment: environment), hasSessionBus(environment) else {
            return
        }
        let arguments = [
            tool, "--app-name=offconvert", "--icon=\(failed ? "dialog-error" : action.icon)",
            "--urgency=\(failed ? "critical" : "normal")", "offconvert: \(action.label)", body,
        ]
        // posix_spawn, not Process: this child is waited for here alone, with a bound.
        var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup(PathEncoding.displayed($0)) }
        argv.append(nil)
        defer { for argument in argv { free(argument) } }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        for descriptor: Int32 in [0, 1, 2] {
            posix_spawn_file_actions_addopen(
                &actions, descriptor, "/dev/null", descriptor == 0 ? O_RDONLY : O_WRONLY, 0)
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
}
