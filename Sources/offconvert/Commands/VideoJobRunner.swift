import ConvertCore
import Foundation
import Synchronization

/// Runs one video job per input file for the video commands, showing progress on stderr when it
/// is a terminal, printing each output path on stdout and each failure on stderr. A failed file
/// does not stop the others; the exit code says whether any failed.
enum VideoJobRunner {
    ///
    /// With `json`, each file's outcome is one JSON object per line on stdout instead (input,
    /// outputs, notes, a privacy line saying whether location metadata was removed or kept, or the
    /// error's category, key and message).
    static func run(
        _ inputs: [String], console: Console, json: Bool = false, makeJob: (String) -> ConversionJob
    ) async -> Int32 {
        let interrupts = InterruptWatcher()
        defer { interrupts.stop() }
        var failed = false
        for input in inputs {
            if interrupts.wasInterrupted { return ExitCode.interrupted }
            let name = (input as NSString).lastPathComponent.terminalSafe
            let job = makeJob(input)
            interrupts.watch(job)
            do {
                let result = try await job.result { progress in
                    guard console.stderrIsTTY else { return }
                    let percent = Int((progress.fraction * 100).rounded(.down))
                    console.errRaw("\r\u{1B}[K\(name): \(progress.stage) \(percent)%")
                }
                if console.stderrIsTTY { console.errRaw("\r\u{1B}[K") }
                if json {
                    console.out(jsonLine(input: input, result: result, error: nil))
                    continue
                }
                for output in result.outputs {
                    console.out(output.path.terminalSafe)
                }
                if !result.notes.isEmpty {
                    console.err("\(name): \(result.notes.joined(separator: "; ").terminalSafe)")
                }
            } catch {
                if console.stderrIsTTY { console.errRaw("\r\u{1B}[K") }
                if json { console.out(jsonLine(input: input, result: nil, error: error)) }
                console.err("\(console.red("Error:")) \(error.message.terminalSafe)")
                failed = true
                if error.category == .cancelled { return ExitCode.interrupted }
            }
        }
        return failed ? ExitCode.failure : ExitCode.success
    }

    /// One file's outcome as a single line of JSON.
    static func jsonLine(input: String, result: JobResult?, error: ConvertError?) -> String {
        var object: [String: Any] = ["input": input]
        if let result {
            object["status"] = "ok"
            object["outputs"] = result.outputs.map { ["path": $0.path, "bytes": $0.byteCount] as [String: Any] }
            object["notes"] = result.notes
            let location = result.notes.contains("location removed") ? "removed"
                : result.notes.contains("location kept") ? "kept" : "none found"
            object["privacy"] = ["location": location]
        }
        if let error {
            object["status"] = "failed"
            object["error"] = ["category": error.category.identifier, "key": error.key, "message": error.message]
        }
        guard let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])
        else { return "{}" }
        return String(decoding: data, as: UTF8.self)
    }

    /// The `--json` flag every video command has.
    static let jsonOption = OptionSpec.flag("json", help: "Print one JSON object per file on stdout (outputs, notes, privacy, errors).")

    /// The output location from `--output-dir` and `--overwrite`.
    static func location(_ arguments: ParsedArguments) -> OutputLocation {
        OutputLocation(directory: arguments.value("output-dir"), overwrite: arguments.flag("overwrite"))
    }

    /// The options every video command shares.
    static let outputOptions: [OptionSpec] = [
        jsonOption,
        .option("output-dir", short: "o", value: "dir", help: "Write outputs into this folder instead of next to each input."),
        .flag("overwrite", help: "Replace an existing output file (never the input). Without it, 'clip (2).mp4' is used."),
        BatchOptions.maxPixelsSpec,
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

/// Turns SIGINT and SIGTERM into cancelling the running job, so the engine stops and removes its
/// half-written output instead of the process dying with a `.partial` file left behind.
final class InterruptWatcher {
    /// What the signal handlers share with the command: the running job and whether an interrupt came.
    private final class State: Sendable {
        let value = Mutex<(job: ConversionJob?, interrupted: Bool)>((nil, false))
    }

    private let state = State()
    private var sources: [any DispatchSourceSignal] = []

    init() {
        for number in [SIGINT, SIGTERM] {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { [state] in
                let job: ConversionJob? = state.value.withLock { value in
                    value.interrupted = true
                    return value.job
                }
                job?.cancel()
            }
            source.resume()
            sources.append(source)
        }
    }

    /// Makes `job` the one an interrupt cancels.
    func watch(_ job: ConversionJob) {
        state.value.withLock { $0.job = job }
    }

    /// Whether an interrupt arrived.
    var wasInterrupted: Bool { state.value.withLock { $0.interrupted } }

    /// Restores the default signal handling.
    func stop() {
        for source in sources { source.cancel() }
        sources.removeAll()
        signal(SIGINT, SIG_DFL)
        signal(SIGTERM, SIG_DFL)
    }
}
