import ConvertCore
import Foundation

/// Runs one video job per input file for the video commands, showing progress on stderr when it
/// is a terminal, printing each output path on stdout and each failure on stderr. A failed file
/// does not stop the others; the exit code says whether any failed.
enum VideoJobRunner {
    static func run(
        _ inputs: [String], console: Console, makeJob: (String) -> ConversionJob
    ) async -> Int32 {
        var failed = false
        for input in inputs {
            let name = (input as NSString).lastPathComponent.terminalSafe
            let job = makeJob(input)
            do {
                let result = try await job.result { progress in
                    guard console.stderrIsTTY else { return }
                    let percent = Int((progress.fraction * 100).rounded(.down))
                    console.errRaw("\r\u{1B}[K\(name): \(progress.stage) \(percent)%")
                }
                if console.stderrIsTTY { console.errRaw("\r\u{1B}[K") }
                for output in result.outputs {
                    console.out(output.path.terminalSafe)
                }
                if !result.notes.isEmpty {
                    console.err("\(name): \(result.notes.joined(separator: "; ").terminalSafe)")
                }
            } catch {
                if console.stderrIsTTY { console.errRaw("\r\u{1B}[K") }
                console.err("\(console.red("Error:")) \(error.message.terminalSafe)")
                failed = true
                if error.category == .cancelled { return ExitCode.interrupted }
            }
        }
        return failed ? ExitCode.failure : ExitCode.success
    }

    /// The output location from `--output-dir` and `--overwrite`.
    static func location(_ arguments: ParsedArguments) -> OutputLocation {
        OutputLocation(directory: arguments.value("output-dir"), overwrite: arguments.flag("overwrite"))
    }

    /// The options every video command shares.
    static let outputOptions: [OptionSpec] = [
        .option("output-dir", short: "o", value: "dir", help: "Write outputs into this folder instead of next to each input."),
        .flag("overwrite", help: "Replace an existing output file (never the input). Without it, 'clip (2).mp4' is used."),
    ]

    /// A number of seconds from an option, or nil when absent.
    static func seconds(_ arguments: ParsedArguments, _ long: String) throws(UsageError) -> Double? {
        guard let text = arguments.value(long) else { return nil }
        guard let value = Double(text), value.isFinite, value >= 0 else {
            throw UsageError(message: "The value '\(text.terminalSafe)' is invalid for '--\(long)': expected seconds, such as 1.5.")
        }
        return value
    }
}
