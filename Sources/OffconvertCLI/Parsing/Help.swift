/// Renders help in swift-argument-parser's layout: OVERVIEW, USAGE, ARGUMENTS, OPTIONS, EXAMPLES.
package enum Help {
    static func usageLine(_ spec: CommandSpec) -> String {
        var parts = ["offconvert", spec.name]
        for argument in spec.arguments {
            var text = "<\(argument.name.lowercased())>" + (argument.repeating ? " ..." : "")
            if !argument.required { text = "[\(text)]" }
            parts.append(text)
        }
        if !spec.options.isEmpty { parts.append("[<options>]") }
        return parts.joined(separator: " ")
    }

    package static func render(_ spec: CommandSpec) -> String {
        var lines = ["OVERVIEW: \(spec.abstract)"]
        if !spec.discussion.isEmpty { lines += ["", spec.discussion] }
        lines += ["", "USAGE: \(usageLine(spec))"]
        if !spec.arguments.isEmpty {
            lines += ["", "ARGUMENTS:"]
            for argument in spec.arguments {
                lines.append(row("<\(argument.name.lowercased())>", argument.help))
            }
        }
        lines += ["", "OPTIONS:"]
        for option in spec.options {
            var names = "--\(option.long)"
            if let short = option.short { names = "-\(short), " + names }
            if let value = option.valueName { names += " <\(value)>" }
            var help = option.help
            if let defaultValue = option.defaultValue { help += " (default: \(defaultValue))" }
            lines.append(row(names, help))
        }
        lines.append(row("-h, --help", "Show help information."))
        if !spec.examples.isEmpty {
            lines += ["", "EXAMPLES:"]
            lines += spec.examples.map { "  offconvert \($0)" }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// One two-column row: names padded to 26 columns, long help wrapped under the second column.
    package static func row(_ names: String, _ help: String) -> String {
        let indent = 26
        let width = 100
        var words = help.split(separator: " ").map(String.init)
        var lines: [String] = []
        var current = ""
        while !words.isEmpty {
            let word = words.removeFirst()
            if current.isEmpty {
                current = word
            } else if current.count + 1 + word.count <= width - indent {
                current += " " + word
            } else {
                lines.append(current)
                current = word
            }
        }
        if !current.isEmpty { lines.append(current) }
        let padding = String(repeating: " ", count: indent)
        var head = "  " + names
        if head.count >= indent {
            return ([head] + lines.map { padding + $0 }).joined(separator: "\n")
        }
        head += String(repeating: " ", count: indent - head.count)
        guard let first = lines.first else { return head }
        return ([head + first] + lines.dropFirst().map { padding + $0 }).joined(separator: "\n")
    }
}
