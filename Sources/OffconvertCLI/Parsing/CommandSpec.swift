/// The description of one subcommand: what `--help` prints and what the parser accepts.
package struct CommandSpec: Sendable {
    /// The subcommand's name, e.g. `heic-to-jpg`.
    package var name: String
    /// One line saying what it is for.
    var abstract: String
    /// Longer help text shown after OVERVIEW, or empty.
    var discussion: String = ""
    /// Positional arguments, in order.
    package var arguments: [ArgumentSpec] = []
    /// Options and flags, in the order --help lists them. `-h/--help` is added by the parser.
    package var options: [OptionSpec] = []
    /// A few example invocations (without the leading `offconvert`).
    var examples: [String] = []
}

/// A positional argument.
package struct ArgumentSpec: Sendable {
    /// The name shown in USAGE, e.g. `FILES`.
    package var name: String
    /// What it is.
    package var help: String
    /// Whether it takes one or more values (`FILES...`).
    package var repeating: Bool = false
    /// Whether at least one value is required.
    package var required: Bool = true
}

/// An option (`--quality 85`) or a flag (`--json`).
package struct OptionSpec: Sendable {
    /// The long name without dashes, e.g. `quality`.
    package var long: String
    /// The short name, e.g. `q` for `-q`.
    package var short: Character? = nil
    /// The value's name in help (`<n>`); nil makes this a flag that takes no value.
    var valueName: String? = nil
    /// What it does.
    package var help: String
    /// The default shown as `(default: …)`.
    var defaultValue: String? = nil

    /// The same option with other help text: for a command whose help says more about it.
    func helping(_ text: String) -> OptionSpec {
        var copy = self
        copy.help = text
        return copy
    }

    /// A flag (no value).
    package static func flag(_ long: String, short: Character? = nil, help: String) -> OptionSpec {
        OptionSpec(long: long, short: short, valueName: nil, help: help)
    }

    /// An option that takes a value.
    package static func option(
        _ long: String, short: Character? = nil, value: String, help: String, default defaultValue: String? = nil
    ) -> OptionSpec {
        OptionSpec(long: long, short: short, valueName: value, help: help, defaultValue: defaultValue)
    }
}

/// A command-line mistake: printed with the usage line, exits 64 (EX_USAGE).
package struct UsageError: Error, Sendable {
    package var message: String

    package init(message: String) { self.message = message }
}
