import ConvertCore
import FoundationEssentials

/// `offconvert desktop install|uninstall|run`: right-click actions in the file managers.
package enum DesktopCommand: Command {
    /// `--dry-run`.
    package static let dryRun = Flag(
        "dry-run", help: "List the files install or uninstall would write or remove; change nothing.")

    package static let spec = CommandSpec(
        name: "desktop",
        abstract: "Add offconvert's actions to the right-click menu of your file manager (or remove them).",
        discussion: """
            'desktop install' adds, for the current user only (no root), these actions to GNOME Files \
            (Nautilus, under Scripts > offconvert), Nemo, Dolphin and Thunar: \
            \(DesktopAction.all.map { "'\($0.label)' (\($0.command))" }.joined(separator: ", ")), each offered for \
            the file types it reads. Results are written next to the files, and a desktop notification \
            (notify-send, from libnotify-bin, when installed) shows the summary and the first error. \
            Files go under $XDG_DATA_HOME (default ~/.local/share: nautilus/scripts/offconvert, \
            nemo/actions, kio/servicemenus) and Thunar's actions are merged into $XDG_CONFIG_HOME/Thunar/uca.xml \
            (default ~/.config), keeping your own actions. 'desktop uninstall' removes only what install \
            added. 'desktop run ACTION FILES...' is what the menus run: \
            \(DesktopAction.all.map(\.id).joined(separator: ", ")).
            """,
        arguments: [
            ArgumentSpec(name: "SUBCOMMAND", help: "install, uninstall, or run."),
            ArgumentSpec(name: "ARGS", help: "For run: the action, then the files.", repeating: true, required: false),
        ],
        options: [dryRun.spec],
        examples: ["desktop install --dry-run", "desktop install"])

    package static func run(_ arguments: ParsedArguments, console: Console) async throws -> Int32 {
        let rest = Array(arguments.positionals.dropFirst())
        switch arguments.positionals.first ?? "" {
        case "install":
            try noArguments(rest)
            return apply(console: console, dryRun: arguments.has(dryRun), verb: "installed") {
                places throws(ThunarActions.Unreadable) in
                try DesktopInstaller.installPlan(places: places, executable: DesktopInstaller.launcherPath())
            }
        case "uninstall":
            try noArguments(rest)
            return apply(console: console, dryRun: arguments.has(dryRun), verb: "removed") {
                places throws(ThunarActions.Unreadable) in
                try DesktopInstaller.uninstallPlan(places: places)
            }
        case "run":
            guard let id = rest.first else {
                throw UsageError(message: "Missing expected argument '<action>' for 'desktop run'.")
            }
            guard let action = DesktopAction.named(id) else {
                throw UsageError(
                    message:
                        "Unknown action '\(id.terminalSafe)': expected one of \(DesktopAction.all.map(\.id).joined(separator: ", "))."
                )
            }
            return await DesktopRunner.run(action, files: Array(rest.dropFirst()))
        case let other:
            var message = "Unknown subcommand '\(other.terminalSafe)': expected install, uninstall or run."
            if let guess = Suggestion.closest(to: other, in: ["install", "uninstall", "run"]) {
                message += " Did you mean '\(guess)'?"
            }
            throw UsageError(message: message)
        }
    }

    private static func noArguments(_ rest: [String]) throws(UsageError) {
        if let first = rest.first { throw UsageError(message: "Unexpected argument '\(first.terminalSafe)'.") }
    }

    /// Plans with `plan`, then lists the changes (`--dry-run`) or makes them and says so.
    private static func apply(
        console: Console, dryRun: Bool, verb: String,
        plan: (DesktopPlaces) throws(ThunarActions.Unreadable) -> [DesktopInstaller.Change]
    ) -> Int32 {
        let places = DesktopPlaces(environment: ProcessInfo.processInfo.environment)
        let changes: [DesktopInstaller.Change]
        do {
            changes = try plan(places)
        } catch {
            console.err(
                "\(Messages.text(.errorPrefix)) \(places.thunarActions.terminalSafe) was left alone: \(error.reason), "
                    + "so it cannot be merged without risking your own Thunar actions. Fix or move it, and run this again."
            )
            return ExitCode.failure
        }
        for change in changes {
            switch change {
            case .write(let file): console.out((dryRun ? "would write " : "wrote ") + file.path.terminalSafe)
            case .remove(let path): console.out((dryRun ? "would remove " : "removed ") + path.terminalSafe)
            }
        }
        guard !dryRun else { return ExitCode.success }
        do throws(ConvertError) {
            try DesktopInstaller.apply(changes, places: places)
        } catch {
            console.err("\(Messages.text(.errorPrefix)) \(Messages.error(error).terminalSafe)")
            return ExitCode.failure
        }
        if changes.isEmpty {
            console.err("Nothing to do: no offconvert actions are installed.")
        } else {
            console.err("\(DesktopAction.all.count) actions \(verb) for GNOME Files, Nemo, Dolphin and Thunar.")
        }
        return ExitCode.success
    }
}
