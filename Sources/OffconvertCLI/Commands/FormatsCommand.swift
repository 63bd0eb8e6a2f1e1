import ConvertCore
import FoundationEssentials

/// `offconvert formats`: the catalogue of inputs, the outputs they can become, and the options
/// each output takes.
package enum FormatsCommand: Command {
    /// `--json`.
    package static let json = Flag("json", help: "Print the catalogue as one JSON object.")

    package static let spec = CommandSpec(
        name: "formats",
        abstract: "List every input format, what it can become, and the options for each output.",
        discussion: """
            Every command checks its request against this list before any work: a pair that is not \
            listed, an option that does not apply to the output, or a value out of range is a usage \
            error (exit 64) naming what is valid. Options every converting command takes (--output-dir, \
            --jobs, --json, ...) are not repeated here.
            """,
        options: [json.spec],
        examples: ["formats", "formats --json"])

    /// The `--json` shape.
    package struct Report: Encodable {
        package struct Option: Encodable {
            package var name: String
            package var value: String?
            var defaultValue: String?
            package var help: String
        }

        package struct Output: Encodable {
            package var format: String
            package var command: String
            package var options: [Option]
        }

        package struct Group: Encodable {
            package var kind: String
            package var inputs: [String]
            package var outputs: [Output]
        }

        var groups: [Group]
        var sharedOptions: [String]
    }

    package static func report() -> Report {
        func group(_ kind: MediaKind, inputs: [String]) -> Report.Group {
            Report.Group(
                kind: kind.rawValue, inputs: inputs,
                outputs: Catalogue.outputs.filter { $0.inputKind == kind }.map { output in
                    Report.Output(
                        format: output.target, command: output.invocation,
                        options: output.options.map {
                            Report.Option(
                                name: "--" + $0.long, value: $0.valueName, defaultValue: $0.defaultValue, help: $0.help)
                        })
                })
        }
        return Report(
            groups: [group(.photo, inputs: Catalogue.photoInputs), group(.video, inputs: Catalogue.videoInputs)],
            sharedOptions: BatchOptions.specs.map { "--" + $0.long })
    }

    package static func run(_ arguments: ParsedArguments, console: Console) async throws -> Int32 {
        let report = report()
        if arguments.has(json) {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            console.out(String(decoding: try encoder.encode(report), as: UTF8.self))
            return ExitCode.success
        }
        var lines: [String] = []
        for group in report.groups {
            lines.append(group.kind == MediaKind.photo.rawValue ? "PHOTOS" : "VIDEOS")
            lines.append("  Inputs (recognised by content): \(group.inputs.joined(separator: ", "))")
            lines.append("  Outputs:")
            for output in group.outputs {
                let format = String(output.format.prefix(5))
                let padded = format + String(repeating: " ", count: 5 - format.count)
                lines.append("    \(padded) offconvert \(output.command)")
                let options = output.options.map { option in
                    var text = option.name + (option.value.map { " <\($0)>" } ?? "")
                    if let value = option.defaultValue { text += " (default: \(value))" }
                    return text
                }
                lines.append("          options: " + (options.isEmpty ? "none" : options.joined(separator: ", ")))
            }
            lines.append("")
        }
        lines.append("Every converting command also takes: \(report.sharedOptions.joined(separator: ", ")).")
        console.out(lines.joined(separator: "\n"))
        return ExitCode.success
    }
}
