import FoundationEssentials

/// The arguments of one subcommand after parsing: positionals, option values and flags.
package struct ParsedArguments: Sendable {
    /// Positional values in order (everything after `--` included).
    package var positionals: [String] = []
    /// Option values by long name, in the order given (an option may repeat).
    package var values: [String: [String]] = [:]
    /// Flags that were given, by long name.
    package var flags: Set<String> = []
    /// Whether `-h`/`--help` was given.
    var wantsHelp = false
}

/// Parses `--name value`, `--name=value`, `-n value`, flags, bundled short flags (`-qv`) and `--`.
package enum ArgumentParser {
    package static func parse(_ arguments: [String], for spec: CommandSpec) throws(UsageError) -> ParsedArguments {
        var result = ParsedArguments()
        var index = 0
        var onlyPositionals = false
        func option(long: String) -> OptionSpec? { spec.options.first { $0.long == long } }
        func option(short: Character) -> OptionSpec? { spec.options.first { $0.short == short } }

        func take(_ option: OptionSpec, inline: String?, shown: String) throws(UsageError) {
            guard option.valueName != nil else {
                if inline != nil { throw UsageError(message: "The flag '\(shown)' does not take a value.") }
                result.flags.insert(option.long)
                return
            }
            if let inline {
                result.values[option.long, default: []].append(inline)
                return
            }
            index += 1
            // A dash followed by a digit is a (negative) value, not an option: "--target -5MB" is
            // then refused for what it says, not as a missing value.
            let next = index < arguments.count ? arguments[index] : ""
            let looksNumeric = next.dropFirst().first.map { $0.isNumber || $0 == "." } ?? false
            guard index < arguments.count, !(next.hasPrefix("-") && next.count > 1 && !looksNumeric) else {
                throw UsageError(message: "Missing value for '\(shown) \(option.valueName ?? "<value>")'.")
            }
            result.values[option.long, default: []].append(arguments[index])
        }

        while index < arguments.count {
            let argument = arguments[index]
            if onlyPositionals || argument == "-" || !argument.hasPrefix("-") {
                result.positionals.append(argument)
            } else if argument == "--" {
                onlyPositionals = true
            } else if argument.hasPrefix("--") {
                let body = argument.dropFirst(2)
                let name: String
                let inline: String?
                if let equals = body.firstIndex(of: "=") {
                    name = String(body[..<equals])
                    inline = String(body[body.index(after: equals)...])
                } else {
                    name = String(body)
                    inline = nil
                }
                if name == "help" {
                    result.wantsHelp = true
                } else if let found = option(long: name) {
                    try take(found, inline: inline, shown: "--\(name)")
                } else {
                    var message = "Unknown option '--\(name)'."
                    let names = spec.options.map(\.long) + ["help"]
                    if let guess = Suggestion.closest(to: name, in: names) { message += " Did you mean '--\(guess)'?" }
                    throw UsageError(message: message)
                }
            } else {
                // One or more short options: -q, -qv, -o value, -ovalue.
                var characters = Array(argument.dropFirst())
                while !characters.isEmpty {
                    let short = characters.removeFirst()
                    if short == "h" {
                        result.wantsHelp = true
                        continue
                    }
                    guard let found = option(short: short) else {
                        throw UsageError(message: "Unknown option '-\(short)'.")
                    }
                    if found.valueName != nil && !characters.isEmpty {
                        try take(found, inline: String(characters), shown: "-\(short)")
                        characters.removeAll()
                    } else {
                        try take(found, inline: nil, shown: "-\(short)")
                    }
                }
            }
            index += 1
        }
        if !result.wantsHelp {
            try checkPositionals(result.positionals, spec)
        }
        return result
    }

    private static func checkPositionals(_ positionals: [String], _ spec: CommandSpec) throws(UsageError) {
        let required = spec.arguments.filter(\.required)
        if positionals.count < required.count {
            let missing = required[positionals.count]
            throw UsageError(message: "Missing expected argument '<\(missing.name.lowercased())>'.")
        }
        let repeating = spec.arguments.contains(where: \.repeating)
        if !repeating && positionals.count > spec.arguments.count {
            throw UsageError(message: "Unexpected argument '\(positionals[spec.arguments.count])'.")
        }
    }
}

/// "Did you mean" suggestions by edit distance.
package enum Suggestion {
    /// The candidate closest to `word`, if it is close enough to be a plausible typo.
    package static func closest(to word: String, in candidates: [String]) -> String? {
        // `heic2jpg`, `HEIC_to_JPG` and `heictojpg` all mean `heic-to-jpg`.
        if let spelled = candidates.first(where: { folded($0) == folded(word) }) { return spelled }
        let scored = candidates.map { ($0, distance(word, $0)) }.min { $0.1 < $1.1 }
        guard let (best, score) = scored else { return nil }
        let limit = max(2, word.count / 3)
        return score <= limit ? best : nil
    }

    /// `word` lowercased without separators, `2` read as "to".
    private static func folded(_ word: String) -> String {
        word.lowercased().filter { $0 != "-" && $0 != "_" && $0 != " " }.replacing("2", with: "to")
    }

    /// Levenshtein distance.
    package static func distance(_ a: String, _ b: String) -> Int {
        let a = Array(a)
        let b = Array(b)
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
            }
            swap(&previous, &current)
        }
        return previous[b.count]
    }
}

/// Parses sizes with explicit units: MB = 10^6 bytes, MiB = 2^20 bytes, and so on.
package enum ByteCountParser {
    package static func parse(_ text: String) -> Int64? {
        let trimmed = text.trimmingWhitespace()
        let digits = trimmed.prefix { $0.isNumber || $0 == "." }
        guard !digits.isEmpty, let number = Double(digits), number > 0 else { return nil }
        let unit = trimmed.dropFirst(digits.count).trimmingWhitespace().lowercased()
        let multipliers: [String: Double] = [
            "": 1, "b": 1,
            "k": 1e3, "kb": 1e3, "kib": 1024,
            "m": 1e6, "mb": 1e6, "mib": 1_048_576,
            "g": 1e9, "gb": 1e9, "gib": 1_073_741_824,
        ]
        guard let multiplier = multipliers[unit] else { return nil }
        let bytes = (number * multiplier).rounded(.down)
        guard bytes >= 1, bytes < 9e18 else { return nil }
        return Int64(bytes)
    }
}
