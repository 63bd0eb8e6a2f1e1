import ConvertCore
import FoundationEssentials
import Glibc

/// A subcommand of `offconvert`.
package protocol Command: SendableMetatype {
    /// Its help and accepted options.
    static var spec: CommandSpec { get }
    /// Runs it with parsed arguments; returns the process exit code.
    static func run(_ arguments: ParsedArguments, console: Console) async throws -> Int32
}

/// A command whose work always needs the video engine: it runs through ``MediaRunners`` (here
/// when `offconvert-media` installed its runner, otherwise by becoming `offconvert-media`).
package protocol MediaCommand: Command {
    /// Its case of the one list of engine work.
    static var work: MediaWork { get }
}

extension MediaCommand {
    package static func run(_ arguments: ParsedArguments, console: Console) async throws -> Int32 {
        try await MediaRunners.run(work, arguments, console: console)
    }
}

package enum ExitCode {
    package static let success: Int32 = 0
    /// At least one file failed.
    package static let failure: Int32 = 1
    /// The command line was wrong (EX_USAGE).
    package static let usage: Int32 = 64
    /// Nothing was converted because today's free conversions are used up (EX_NOPERM): a script
    /// can tell "unlock or wait until tomorrow" from a file that failed.
    package static let allowanceExhausted: Int32 = 77
    /// Interrupted by SIGINT or SIGTERM.
    package static let interrupted: Int32 = 130
}

/// Parses the command line and runs a subcommand.
package enum CLI {
    package static let version = "0.1.0"

    /// This process's arguments without the program name, each file name's bytes kept
    /// (`PathEncoding`): what the executables pass to ``run(_:commands:console:)``.
    package static var processArguments: [String] { Array(PathEncoding.arguments.dropFirst()) }

    /// Runs `arguments` (without the program name) against `commands`, the ones this executable
    /// has; returns the exit code.
    package static func run(_ arguments: [String], commands: [any Command.Type], console: Console) async -> Int32 {
        guard let first = arguments.first else {
            console.out(overview(commands))
            return ExitCode.success
        }
        switch first {
        case "-h", "--help", "help":
            guard first == "help", arguments.count > 1 else {
                console.out(overview(commands))
                return ExitCode.success
            }
            guard let command = find(arguments[1], in: commands) else {
                return unknownCommand(arguments[1], commands, console)
            }
            console.out(Help.render(command.spec), terminator: false)
            return ExitCode.success
        case "--version":
            console.out("offconvert \(version)")
            return ExitCode.success
        case "--generate-manual":
            console.out(ManPage.render(commands: commands.map { $0.spec }, version: version), terminator: false)
            return ExitCode.success
        case "--generate-completion-script":
            let shell = arguments.count > 1 ? arguments[1] : ""
            guard let script = Completions.render(shell: shell, commands: commands.map { $0.spec }) else {
                console.err(
                    "Error: Missing or unknown shell '\(shell.terminalSafe)': expected one of \(Completions.shells.joined(separator: ", "))."
                )
                console.err("Usage: offconvert --generate-completion-script <shell>")
                return ExitCode.usage
            }
            console.out(script, terminator: false)
            return ExitCode.success
        default:
            break
        }
        guard let command = find(first, in: commands) else { return unknownCommand(first, commands, console) }
        let parsed: ParsedArguments
        do {
            parsed = try ArgumentParser.parse(Array(arguments.dropFirst()), for: command.spec)
        } catch {
            return usageFailure(error, command.spec, console)
        }
        if parsed.wantsHelp {
            console.out(Help.render(command.spec), terminator: false)
            return ExitCode.success
        }
        do {
            return try await command.run(parsed, console: console)
        } catch let error as UsageError {
            return usageFailure(error, command.spec, console)
        } catch let error as ConvertError {
            var message = Messages.error(error)
            if parsed.has(BatchOptions.verboseFlag), let cause = error.underlyingDescription {
                message += " (\(cause))"
            }
            console.err("\(Messages.text(.errorPrefix)) \(message.terminalSafe)")
            return ExitCode.failure
        } catch {
            console.err("Error: \(String(describing: error).terminalSafe)")
            return ExitCode.failure
        }
    }

    /// `name` is no command: says so, with the closest command's name, and exits 64.
    private static func unknownCommand(_ name: String, _ commands: [any Command.Type], _ console: Console) -> Int32 {
        var message = Messages.text(name.hasPrefix("-") ? .unknownOption : .unknownCommand, name.terminalSafe)
        if let guess = Suggestion.closest(to: name, in: commands.map { $0.spec.name }) {
            message += " " + Messages.text(.didYouMean, guess)
        }
        console.err("\(Messages.text(.errorPrefix)) \(message)")
        console.err("Usage: offconvert <command> [<options>]")
        console.err("  " + Messages.text(.seeHelp, "offconvert --help"))
        return ExitCode.usage
    }

    package static func find(_ name: String, in commands: [any Command.Type]) -> (any Command.Type)? {
        commands.first { $0.spec.name == name }
    }

    private static func usageFailure(_ error: UsageError, _ spec: CommandSpec, _ console: Console) -> Int32 {
        console.err("\(Messages.text(.errorPrefix)) \(error.message.terminalSafe)")
        console.err("Usage: \(Help.usageLine(spec))")
        console.err("  " + Messages.text(.seeHelp, "offconvert \(spec.name) --help"))
        return ExitCode.usage
    }

    static func overview(_ commands: [any Command.Type]) -> String {
        var lines = [
            "OVERVIEW: Convert and shrink photos and videos on this machine. Nothing is uploaded.",
            "",
            "USAGE: offconvert <command> [<options>]",
            "",
            "COMMANDS:",
        ]
        for command in commands {
            lines.append(Help.row(command.spec.name, command.spec.abstract))
        }
        let examples = commands.compactMap { $0.spec.examples.first }
        if !examples.isEmpty {
            lines += ["", "EXAMPLES:"]
            lines += examples.map { "  offconvert \($0)" }
        }
        lines += [
            "",
            "OPTIONS:",
            Help.row("--version", "Show the version."),
            Help.row("--generate-manual", "Print the offconvert(1) manual page (roff)."),
            Help.row("--generate-completion-script <shell>", "Print a completion script for bash, zsh or fish."),
            Help.row("-h, --help", "Show help information."),
            "",
            "EXIT CODES: 0 success (files that are not the command's kind are skipped and named), 1 some file failed,",
            "            64 usage error (including a request 'offconvert formats' does not list),",
            "            77 today's free conversions are used up, 130 interrupted.",
            "See 'offconvert help <command>' for detailed help.",
        ]
        return lines.joined(separator: "\n")
    }
}

extension Console {
    /// Writes `text` to stdout, adding a newline unless `terminator` is false.
    package func out(_ text: String, terminator: Bool) {
        if terminator { out(text) } else { errRawToStdout(text) }
    }

    private func errRawToStdout(_ text: String) {
        _ = RawFile.write(Array(text.utf8)[...], to: STDOUT_FILENO)
    }
}
