import ConvertCore
import Foundation
import Synchronization

/// One item of a batch as the command's conversion sees it.
struct BatchItem: Sendable {
    /// Position in the batch (after `--shard`).
    var index: Int
    /// The input path as given.
    var input: String
    /// Where the output must go: a fresh, safe name reserved for this item. Hand it to the
    /// engine, which writes it through a staged temporary file.
    var destination: String
    /// The item's declared peak memory.
    var cost: Int64
    /// `--overwrite`: pass it to the engine so its staged output may replace an existing file
    /// at ``destination`` (the namer already made sure that file is not an input).
    var overwrite: Bool
}

/// What a command tells ``BatchRunner`` about its conversion.
struct BatchWork: Sendable {
    /// The command's name, e.g. `heic-to-jpg`.
    var command: String
    /// The command's options that shape its outputs (e.g. `["quality=85"]`), so the resume
    /// journal only resumes a run of the very same command.
    var identity: [String]
    /// The output file extension for an input, without the dot (`"jpg"`).
    var outputExtension: @Sendable (_ input: String) -> String
    /// Added to each output's name before the extension (`" (no location)"`); empty by default.
    var outputSuffix = ""
    /// The input's declared peak memory in bytes (see `BatchScheduler.bitmapBytes`); read the
    /// header only, this runs for every input before any work.
    var cost: @Sendable (_ input: String) -> Int64
    /// The expected output size, for the free-space check; the input's size by default.
    var estimatedOutputBytes: @Sendable (_ input: String, _ inputBytes: Int64) -> Int64 = { _, bytes in bytes }
    /// Converts one item: typically `try await Engine.convert(request(item)).result(onProgress: progress)`.
    var convert: @Sendable (_ item: BatchItem, _ progress: @escaping @Sendable (JobProgress) -> Void) async throws(ConvertError) -> JobResult
}

/// Runs a command over many files: naming, stale cleanup, free-space check, the allowance, the
/// memory-budget scheduler, Ctrl-C handling, resume, `--json` lines, the summary and the exit
/// code. A command parses ``BatchOptions`` and calls ``run(_:options:console:allowance:stateDirectory:)``.
enum BatchRunner {
    /// Runs the batch and returns the exit code: 0 all succeeded (or were already done), 1 some
    /// failed or the batch could not start, 130 interrupted.
    static func run(
        _ work: BatchWork, options: BatchOptions, console: Console, allowance: AllowanceStore = AllowanceStore(),
        stateDirectory: String? = nil
    ) async -> Int32 {
        await run(work, options: options, printer: BatchPrinter(console: console, json: options.json),
            allowance: allowance, stateDirectory: stateDirectory)
    }

    /// ``run(_:options:console:allowance:stateDirectory:)`` printing through `printer`.
    static func run(
        _ work: BatchWork, options: BatchOptions, printer: BatchPrinter, allowance: AllowanceStore, stateDirectory: String?
    ) async -> Int32 {
        do {
            return try await runChecked(work, options: options, printer: printer, allowance: allowance, stateDirectory: stateDirectory)
        } catch {
            printer.commandFailed(error)
            return ExitCode.failure
        }
    }

    private static func runChecked(
        _ work: BatchWork, options: BatchOptions, printer: BatchPrinter, allowance: AllowanceStore, stateDirectory: String?
    ) async throws(ConvertError) -> Int32 {
        let namer = try OutputNamer(outputDirectory: options.outputDirectory, overwrite: options.overwrite, inputs: options.inputs)
        let scheduler = BatchScheduler(budgetBytes: options.memoryBudget, maxConcurrent: options.jobs)
        if options.dryRun {
            for (index, input) in options.inputs.enumerated() {
                let destination = try namer.destination(for: input, pathExtension: work.outputExtension(input), suffix: work.outputSuffix)
                printer.planned(index: index, input: input, output: destination, memory: work.cost(input))
            }
            return ExitCode.success
        }
        namer.removeStaleTemporaries(for: options.inputs)
        let journal = try BatchJournal(
            identity: [work.command] + work.identity + [namer.outputDirectory ?? "", options.overwrite ? "overwrite" : ""]
                + options.inputs.map(absolute),
            stateDirectory: stateDirectory, resume: options.resume)

        var pending: [BatchItem] = []
        var skipped = 0
        var needed: [String: Int64] = [:]
        for (index, input) in options.inputs.enumerated() {
            if let outputs = journal.completedOutputs(index: index, input: input) {
                skipped += 1
                printer.skipped(index: index, input: input, output: outputs.first?.path, reason: "already converted")
                continue
            }
            let destination = try namer.destination(for: input, pathExtension: work.outputExtension(input), suffix: work.outputSuffix)
            pending.append(BatchItem(
                index: index, input: input, destination: destination, cost: work.cost(input), overwrite: options.overwrite))
            var info = stat()
            let inputBytes = stat(input, &info) == 0 ? Int64(info.st_size) : 0
            needed[(destination as NSString).deletingLastPathComponent, default: 0] += work.estimatedOutputBytes(input, inputBytes)
        }
        for (folder, bytes) in needed.sorted(by: { $0.key < $1.key }) { try FreeSpace.check(needed: bytes, in: folder) }
        guard !pending.isEmpty else {
            journal.end(allSucceeded: true)
            printer.summary(done: 0, failed: 0, skipped: skipped, unfinished: 0, interrupted: false)
            return ExitCode.success
        }

        let items = pending
        let (counts, interrupted) = await SignalHandling.run { () async -> Result<(done: Int, failed: Int), ConvertError> in
            do {
                return .success(try await allowance.withAllowance { reservation in
                    var done = 0, failed = 0
                    await scheduler.run(items, cost: \.cost) { item in
                        printer.started(item)
                        do throws(ConvertError) {
                            try journal.recordStarted(index: item.index, input: item.input, destination: item.destination)
                        } catch {
                            printer.journalFailed(error)
                        }
                        do throws(ConvertError) {
                            let result = try await work.convert(item) { progress in printer.progress(item, progress) }
                            return Result<JobResult, ConvertError>.success(result)
                        } catch {
                            return .failure(error)
                        }
                    } onResult: { position, outcome in
                        let item = items[position]
                        switch outcome {
                        case .success(let result):
                            if !result.outputs.isEmpty { reservation.outputPlaced() }
                            done += 1
                            printer.finished(item, result)
                            do throws(ConvertError) {
                                try journal.recordFinished(index: item.index, input: item.input, outputs: result.outputs)
                            } catch {
                                printer.journalFailed(error)
                            }
                        case .failure(let error) where error.category == .cancelled:
                            break
                        case .failure(let error):
                            failed += 1
                            printer.failed(item, error)
                        }
                    }
                    return (done, failed)
                })
            } catch {
                return .failure(ConvertError.wrap(error))
            }
        }
        let (done, failed) = try counts.get()
        let unfinished = items.count - done - failed
        journal.end(allSucceeded: !interrupted && failed == 0 && unfinished == 0)
        printer.summary(done: done, failed: failed, skipped: skipped, unfinished: unfinished, interrupted: interrupted)
        if interrupted { return ExitCode.interrupted }
        return failed > 0 || unfinished > 0 ? ExitCode.failure : ExitCode.success
    }

    /// `path` made absolute against the working directory, for the journal's identity.
    private static func absolute(_ path: String) -> String {
        path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
    }
}

extension ConvertError {
    /// Any error from the allowance wrapper as a `ConvertError` (it only ever throws those).
    static func wrap(_ error: any Error) -> ConvertError {
        if let error = error as? ConvertError { return error }
        return ConvertError(.internal, key: "internal", message: "An unexpected error stopped the batch.",
            underlying: String(describing: error))
    }
}

/// Prints a batch's events: `--json` lines on stdout, or text (results on stdout, failures and
/// the summary on stderr). Lines from concurrent items never interleave.
final class BatchPrinter: Sendable {
    private let json: Bool
    private let out: @Sendable (String) -> Void
    private let err: @Sendable (String) -> Void
    private let red: @Sendable (String) -> String
    private let lock = Mutex(())

    /// A printer writing to the terminal through `console`.
    convenience init(console: Console, json: Bool) {
        self.init(json: json, out: { console.out($0) }, err: { console.err($0) }, red: { console.red($0) })
    }

    /// A printer writing lines to `out` and `err` (tests capture them).
    init(
        json: Bool, out: @escaping @Sendable (String) -> Void, err: @escaping @Sendable (String) -> Void,
        red: @escaping @Sendable (String) -> String = { $0 }
    ) {
        self.json = json
        self.out = out
        self.err = err
        self.red = red
    }

    private func emit(_ line: BatchReportLine) {
        lock.withLock { _ in out(line.jsonLine()) }
    }

    private func text(_ message: String, error: Bool = false) {
        lock.withLock { _ in error ? err(message) : out(message) }
    }

    func planned(index: Int, input: String, output: String, memory: Int64) {
        if json { return emit(.planned(index: index, input: input, output: output, memoryBytes: memory)) }
        text("\(input.terminalSafe) → \(output.terminalSafe) (about \(Self.size(memory)) of memory)")
    }

    func started(_ item: BatchItem) {
        if json { emit(.started(index: item.index, input: item.input, output: item.destination)) }
    }

    func progress(_ item: BatchItem, _ progress: JobProgress) {
        if json { emit(.progress(index: item.index, input: item.input, progress)) }
    }

    func finished(_ item: BatchItem, _ result: JobResult) {
        if json { return emit(.finished(index: item.index, input: item.input, result)) }
        for output in result.outputs {
            text("\(item.input.terminalSafe) → \(output.path.terminalSafe) (\(Self.size(output.byteCount)))")
        }
    }

    func failed(_ item: BatchItem, _ error: ConvertError) {
        if json { return emit(.failed(index: item.index, input: item.input, error)) }
        text(red("Error:") + " \(item.input.terminalSafe): \(error.message.terminalSafe)", error: true)
    }

    func skipped(index: Int, input: String, output: String?, reason: String) {
        if json { return emit(.skipped(index: index, input: input, output: output, reason: reason)) }
        text("\(input.terminalSafe): \(reason)" + (output.map { " → \($0.terminalSafe)" } ?? ""))
    }

    func commandFailed(_ error: ConvertError) {
        if json { return emit(.failed(error)) }
        text(red("Error:") + " \(error.message.terminalSafe)", error: true)
    }

    func journalFailed(_ error: ConvertError) {
        // The output is in place; only resuming after a crash would redo this item.
        text("Warning: could not record progress for resuming (\(error.message.terminalSafe)).", error: true)
    }

    func summary(done: Int, failed: Int, skipped: Int, unfinished: Int, interrupted: Bool) {
        if json {
            return emit(.summary(done: done, failed: failed, skipped: skipped, unfinished: unfinished, interrupted: interrupted))
        }
        var parts = ["\(done) converted"]
        if failed > 0 { parts.append("\(failed) failed") }
        if skipped > 0 { parts.append("\(skipped) already done") }
        if unfinished > 0 { parts.append("\(unfinished) not converted") }
        text((interrupted ? "Interrupted: " : "") + parts.joined(separator: ", ") + ".", error: true)
    }

    /// "1.2 MB" (decimal units, as `--memory-budget` reads them).
    static func size(_ bytes: Int64) -> String {
        ByteCountFormatter.string(fromByteCount: bytes, countStyle: .decimal)
    }
}
