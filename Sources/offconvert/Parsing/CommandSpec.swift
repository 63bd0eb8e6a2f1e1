/// The description of one subcommand: what `--help` prints and what the parser accepts.
struct CommandSpec: Sendable {
    /// The subcommand's name, e.g. `heic-to-jpg`.
    var name: String
    /// One line saying what it is for.
    var abstract: String
    /// Longer help text shown after OVERVIEW, or empty.
    var discussion: String = ""
    /// Positional arguments, in order.
    var arguments: [ArgumentSpec] = []
    /// Options and flags, in the order --help lists them. `-h/--help` is added by the parser.
    var options: [OptionSpec] = []
    /// A few example invocations (without the leading `offconvert`).
    var examples: [String] = []
}

/// A positional argument.
struct ArgumentSpec: Sendable {
    /// The name shown in USAGE, e.g. `FILES`.
    var name: String
    /// What it is.
    var help: String
    /// Whether it takes one or more values (`FILES...`).
    var repeating: Bool = false
    /// Whether at least one value is required.
    var required: Bool = true
}

/// An option (`--quality 85`) or a flag (`--json`).
struct OptionSpec: Sendable {
    /// The long name without dashes, e.g. `quality`.
    var long: String
    /// The short name, e.g. `q` for `-q`.
    var short: Character? = nil
    /// The value's name in help (`<n>`); nil makes this a flag that takes no value.
    var valueName: String? = nil
    /// What it does.
    var help: String
    /// The default shown as `(default: …)`.
    var defaultValue: String? = nil

    /// A flag (no value).
    static func flag(_ long: String, short: Character? = nil, help: String) -> OptionSpec {
        OptionSpec(long: long, short: short, valueName: nil, help: help)
    }

    /// An option that takes a value.
    static func option(
        _ long: String, short: Character? = nil, value: String, help: String, default defaultValue: String? = nil
    ) -> OptionSpec {
        OptionSpec(long: long, short: short, valueName: value, help: help, defaultValue: defaultValue)
    }
}

/// A command-line mistake: printed with the usage line, exits 64 (EX_USAGE).
struct UsageError: Error, Sendable {
    var message: String
}
