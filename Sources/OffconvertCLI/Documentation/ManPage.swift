/// Generates `offconvert.1` (roff, man(7) macros) from the command specs, so the manual never
/// drifts from `--help`.
package enum ManPage {
    package static func render(commands: [CommandSpec], version: String) -> String {
        var lines = [
            ".TH OFFCONVERT 1 \"\" \"offconvert \(version)\" \"User Commands\"",
            ".SH NAME",
            "offconvert \\- convert and shrink photos and videos offline",
            ".SH SYNOPSIS",
            ".B offconvert",
            ".I command",
            "[\\fIoptions\\fR] [\\fIfiles\\fR...]",
            ".SH DESCRIPTION",
            escape(
                "offconvert converts and shrinks photos and videos on this machine. Nothing is uploaded and no network connection is ever opened. Location data is removed from files made for sharing unless asked otherwise."
            ),
            ".SH COMMANDS",
        ]
        for spec in commands {
            lines.append(".SS \(escape(Help.usageLine(spec)))")
            lines.append(escape(spec.abstract))
            if !spec.discussion.isEmpty {
                lines += [".PP", escape(spec.discussion)]
            }
            for argument in spec.arguments {
                lines += [".TP", "\\fI\(escape(argument.name.lowercased()))\\fR", escape(argument.help)]
            }
            for option in spec.options {
                var names = "\\fB\\-\\-\(escape(option.long))\\fR"
                if let short = option.short { names = "\\fB\\-\(short)\\fR, " + names }
                if let value = option.valueName { names += " \\fI\(escape(value))\\fR" }
                var help = option.help
                if let defaultValue = option.defaultValue { help += " (default: \(defaultValue))" }
                lines += [".TP", names, escape(help)]
            }
            for example in spec.examples {
                lines += [".PP", ".nf", escape("offconvert \(example)"), ".fi"]
            }
        }
        lines += [
            ".SH EXIT STATUS",
            ".TP", "0", "Everything succeeded.",
            ".TP", "1", "At least one file failed; the others were still converted.",
            ".TP", "64", "The command line was wrong.",
            ".TP", "77", escape("Nothing was converted: today's free conversions are used up."),
            ".TP", "130", "Interrupted; partial files were removed.",
            ".SH ENVIRONMENT",
            ".TP", ".B NO_COLOR", "When set to a non-empty value, no colour is used.",
            ".TP", ".B XDG_STATE_HOME", escape("Where the allowance state lives (default ~/.local/state)."),
        ]
        return lines.joined(separator: "\n") + "\n"
    }

    /// Escapes text for roff: backslashes, and a dot or quote that would start a request at the
    /// start of any of its lines (a discussion's later line read as a request is dropped by `man`).
    package static func escape(_ text: String) -> String {
        let escaped = text.replacing("\\", with: "\\e").replacing("-", with: "\\-")
        return escaped.split(separator: "\n", omittingEmptySubsequences: false)
            .map { $0.hasPrefix(".") || $0.hasPrefix("'") ? "\\&" + $0 : String($0) }
            .joined(separator: "\n")
    }
}
