/// An option that takes a value, declared once with its type: the spec `--help` and the parser
/// use, and how its text becomes a value. Commands read it by value
/// (`try arguments.value(Self.quality)`), never by name.
package struct Option<Value: Sendable>: Sendable {
    /// What `--help` shows and the parser accepts.
    package let spec: OptionSpec
    private let convert: @Sendable (String) throws(UsageError) -> Value

    /// An option whose text `convert` turns into a value or refuses with a usage error.
    package init(spec: OptionSpec, convert: @escaping @Sendable (String) throws(UsageError) -> Value) {
        precondition(spec.valueName != nil, "an option with a value needs a value name")
        self.spec = spec
        self.convert = convert
    }

    /// The long name, without dashes.
    package var long: String { spec.long }

    /// The value of `text` as given for this option.
    package func value(of text: String) throws(UsageError) -> Value { try convert(text) }

    /// The usage error for `text`, which is not what this option takes.
    package func invalid(_ text: String, expected: String) -> UsageError {
        UsageError(message: "The value '\(text.terminalSafe)' is invalid for '--\(long)': \(expected).")
    }
}

/// A flag (`--json`), declared once.
package struct Flag: Sendable {
    /// What `--help` shows and the parser accepts.
    package let spec: OptionSpec

    /// A flag named `long`.
    package init(_ long: String, short: Character? = nil, help: String) {
        spec = .flag(long, short: short, help: help)
    }
}

extension Option where Value == String {
    /// An option whose value is its text.
    package static func text(
        _ long: String, short: Character? = nil, value: String, help: String,
        default shown: String? = nil
    ) -> Option {
        Option(spec: .option(long, short: short, value: value, help: help, default: shown)) { $0 }
    }
}

extension Option where Value == Int {
    /// A whole number in `range`.
    package static func integer(
        _ long: String, short: Character? = nil, value: String = "n", in range: ClosedRange<Int>,
        help: String, default shown: String? = nil
    ) -> Option {
        let spec = OptionSpec.option(long, short: short, value: value, help: help, default: shown)
        return Option(spec: spec) { text throws(UsageError) in
            guard let number = Int(text), range.contains(number) else {
                throw UsageError(
                    message: "The value '\(text.terminalSafe)' is invalid for '--\(long)': "
                        + "expected a whole number from \(range.lowerBound) to \(range.upperBound).")
            }
            return number
        }
    }
}

extension Option where Value == Int64 {
    /// A byte count with an explicit unit (`25MB`, `8MiB`, `500KB`) or plain bytes.
    package static func byteCount(
        _ long: String, short: Character? = nil, value: String = "size", help: String,
        default shown: String? = nil
    ) -> Option {
        Option(spec: .option(long, short: short, value: value, help: help, default: shown)) { text throws(UsageError) in
            guard let bytes = ByteCountParser.parse(text) else {
                throw UsageError(
                    message: "The value '\(text.terminalSafe)' is invalid for '--\(long)': "
                        + "expected a size such as 25MB (10^6 bytes), 8MiB (2^20 bytes) or 500KB.")
            }
            return bytes
        }
    }
}

extension Option {
    /// One of `names`, in any letter case; a near miss gets a guess.
    package static func choice(
        _ long: String, short: Character? = nil, value: String? = nil, names: [(String, Value)],
        help: String, default shown: String? = nil
    ) -> Option {
        let spelled = names.map(\.0)
        let spec = OptionSpec.option(
            long, short: short, value: value ?? spelled.joined(separator: "|"), help: help, default: shown)
        return Option(spec: spec) { text throws(UsageError) in
            let lowered = text.lowercased()
            guard let picked = names.first(where: { $0.0 == lowered }) else {
                var message =
                    "The value '\(text.terminalSafe)' is invalid for '--\(long)': expected one of \(spelled.joined(separator: ", "))."
                if let guess = Suggestion.closest(to: lowered, in: spelled) { message += " Did you mean '\(guess)'?" }
                throw UsageError(message: message)
            }
            return picked.1
        }
    }
}

extension Option where Value: RawRepresentable & CaseIterable, Value.RawValue == String {
    /// One of `cases` (by default all of `Value`'s) by its raw name.
    package static func choice(
        _ long: String, short: Character? = nil, value: String? = nil, among cases: [Value] = Array(Value.allCases),
        help: String, default shown: Value? = nil
    ) -> Option {
        choice(
            long, short: short, value: value, names: cases.map { ($0.rawValue, $0) }, help: help,
            default: shown?.rawValue)
    }
}

extension ParsedArguments {
    /// The value given for `option` (the last one, when repeated), nil when absent.
    package func value<Value>(_ option: Option<Value>) throws(UsageError) -> Value? {
        guard let text = values[option.long]?.last else { return nil }
        return try option.value(of: text)
    }

    /// The value given for `option`, `defaultValue` when absent.
    package func value<Value>(_ option: Option<Value>, default defaultValue: Value) throws(UsageError) -> Value {
        try value(option) ?? defaultValue
    }

    /// The text given for `option`, as typed (for messages that quote it), nil when absent.
    package func text<Value>(_ option: Option<Value>) -> String? { values[option.long]?.last }

    /// Whether `option` was given, whatever its value.
    package func has<Value>(_ option: Option<Value>) -> Bool { values[option.long] != nil }

    /// Whether `flag` was given.
    package func has(_ flag: Flag) -> Bool { flags.contains(flag.spec.long) }
}
