import ConvertCore
import Foundation
import Synchronization

/// One item of a batch as the command's conversion sees it.
package struct BatchItem: Sendable {
    /// Position in the batch (after `--shard`).
    package var index: Int
    /// The input path as given.
    package var input: String
    /// Where the output must go: a fresh, safe name reserved for this item. Hand it to the
    /// engine, which writes it through a staged temporary file.
    package var destination: String
    /// The item's declared peak memory.
    package var cost: Int64
    /// `--overwrite`: pass it to the engine so its staged output may replace an existing file
    /// at ``destination`` (the namer already made sure that file is not an input).
    package var overwrite: Bool
    /// Size of the item's input(s), for speed and the summary.
    package var inputBytes: Int64 = 0
}

/// What a command tells ``BatchRunner`` about its conversion.
package struct BatchWork: Sendable {
    /// The command's name, e.g. `heic-to-jpg`.
    package var command: String
    /// The command's options that shape its outputs (e.g. `["quality=85"]`), so the resume
    /// journal only resumes a run of the very same command.
    package var identity: [String]
    /// The output file extension for an input, without the dot (`"jpg"`).
    package var outputExtension: @Sendable (_ input: String) -> String
    /// Added to each output's name before the extension (`" (no location)"`); empty by default.
    package var outputSuffix = ""
    /// The input's declared peak memory in bytes (see `BatchScheduler.bitmapBytes`); read the
    /// header only, this runs for every input before any work.
    package var cost: @Sendable (_ input: String) async -> Int64
    /// The expected output size, for the free-space check; the input's size by default.
    package var estimatedOutputBytes: @Sendable (_ input: String, _ inputBytes: Int64) -> Int64 = { _, bytes in bytes }
    /// Set when every input goes into one output at this path (`images-to-pdf`): the batch is
    /// then one item (reported under the first input) whose conversion reads all the inputs.
    /// An existing file there is replaced only with `--overwrite`, and never when it is an input.
    package var singleOutput: String? = nil
    /// Converts one item: typically `try await Engine.convert(request(item)).result(onProgress: progress)`.
    package var convert: @Sendable (_ item: BatchItem, _ progress: @escaping @Sendable (JobProgress) -> Void) async throws(ConvertError) -> JobResult

    package init(
        command: String, identity: [String], outputExtension: @escaping @Sendable (_ input: String) -> String,
        outputSuffix: String = "", cost: @escaping @Sendable (_ input: String) async -> Int64,
        estimatedOutputBytes: @escaping @Sendable (_ input: String, _ inputBytes: Int64) -> Int64 = { _, bytes in bytes },
        singleOutput: String? = nil,
        convert: @escaping @Sendable (_ item: BatchItem, _ progress: @escaping @Sendable (JobProgress) -> Void) async throws(ConvertError) -> JobResult
    ) {
        self.command = command
        self.identity = identity
        self.outputExtension = outputExtension
        self.outputSuffix = outputSuffix
        self.cost = cost
        self.estimatedOutputBytes = estimatedOutputBytes
        self.singleOutput = singleOutput
        self.convert = convert
    }
}

/// Runs a command over many files: naming, stale cleanup, free-space check, the allowance, the
/// memory-budget scheduler, Ctrl-C handling, resume, progress, `--json` lines, the summary and
/// the exit code. A command parses ``BatchOptions`` and calls ``run(_:options:console:allowance:stateDirectory:)``.
package enum BatchRunner {
    /// Runs the batch and returns the exit code: 0 all succeeded (or were already done), 1 some
    /// failed or the batch could not start, 77 today's free conversions are used up, 130
    /// interrupted.
    package static func run(
        _ work: BatchWork, options: BatchOptions, console: Console, allowance: AllowanceStore = AllowanceStore(),
        stateDirectory: String? = nil
    ) async -> Int32 {
        let board = ProgressBoard(
            console: console, total: work.singleOutput == nil ? options.inputs.count : 1,
            enabled: !options.quiet && !options.json && !options.dryRun)
        let printer = BatchPrinter(console: console, options: options, board: board)
        return await run(work, options: options, printer: printer, allowance: allowance, stateDirectory: stateDirectory)
    }

    /// ``run(_:options:console:allowance:stateDirectory:)`` printing through `printer`.
    package static func run(
        _ work: BatchWork, options: BatchOptions, printer: BatchPrinter, allowance: AllowanceStore, stateDirectory: String?
    ) async -> Int32 {
        do {
            return try await runChecked(work, options: options, printer: printer, allowance: allowance, stateDirectory: stateDirectory)
        } catch {
            printer.commandFailed(error)
            return error.category == .allowance ? ExitCode.allowanceExhausted : ExitCode.failure
        }
    }

    private static func runChecked(
        _ work: BatchWork, options: BatchOptions, printer: BatchPrinter, allowance: AllowanceStore, stateDirectory: String?
    ) async throws(ConvertError) -> Int32 {
        let started = Date()
        let namer = try OutputNamer(outputDirectory: options.outputDirectory, overwrite: options.overwrite, inputs: options.inputs)
        let scheduler = BatchScheduler(budgetBytes: options.memoryBudget, maxConcurrent: options.jobs)
        // One output from every input: one item, named by the command, under the first input.
        let itemInputs = work.singleOutput == nil ? options.inputs : Array(options.inputs.prefix(1))
        func destination(for input: String) throws(ConvertError) -> String {
            guard let single = work.singleOutput else {
                return try namer.destination(for: input, pathExtension: work.outputExtension(input), suffix: work.outputSuffix)
            }
            try checkSingleOutput(single, inputs: options.inputs, overwrite: options.overwrite)
            return single
        }
        if options.dryRun {
            for (index, input) in itemInputs.enumerated() {
                printer.planned(index: index, input: input, output: try destination(for: input), memory: await work.cost(input))
            }
            return ExitCode.success
        }
        namer.removeStaleTemporaries(for: options.inputs)
        let journal = try BatchJournal(
            identity: [work.command] + work.identity
                + [namer.outputDirectory ?? "", options.overwrite ? "overwrite" : "", work.singleOutput.map(absolute) ?? ""]
                + options.inputs.map(absolute),
            stateDirectory: stateDirectory, resume: options.resume)
        defer { journal.release() }

        var pending: [BatchItem] = []
        var skipped = 0
        var needed: [String: Int64] = [:]
        for (index, input) in itemInputs.enumerated() {
            if let outputs = journal.completedOutputs(index: index, input: input) {
                skipped += 1
                printer.skipped(index: index, input: input, output: outputs.first?.path, reason: "already converted")
                continue
            }
            let destination = try destination(for: input)
            let inputBytes = (work.singleOutput == nil ? [input] : options.inputs).reduce(Int64(0)) { $0 + fileSize($1) }
            pending.append(BatchItem(
                index: index, input: input, destination: destination, cost: 0,
                overwrite: options.overwrite, inputBytes: inputBytes))
            needed[(destination as NSString).deletingLastPathComponent, default: 0] += work.estimatedOutputBytes(input, inputBytes)
        }
        // Costs only steer admissions when items could run side by side: a lone item (or
        // --jobs 1) always runs, and for a video its cost is a whole probe of the file that the
        // conversion then opens again (a tenth of a short remux's time).
        if pending.count > 1 && options.jobs > 1 {
            for position in pending.indices { pending[position].cost = await work.cost(pending[position].input) }
        }
        for (folder, bytes) in needed.sorted(by: { $0.key < $1.key }) { try FreeSpace.check(needed: bytes, in: folder) }
        guard !pending.isEmpty else {
            journal.end(allSucceeded: true)
            printer.summary(BatchTally(skipped: skipped), seconds: Date().timeIntervalSince(started))
            return ExitCode.success
        }

        let items = pending
        let alreadyDone = skipped
        let (counts, interrupted) = await SignalHandling.run { () async -> Result<BatchTally, ConvertError> in
            do {
                return .success(try await allowance.withAllowance { reservation in
                    var tally = BatchTally(skipped: alreadyDone)
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
                            // Charged only once an output is in place; a failed or cancelled
                            // batch costs nothing (withAllowance releases the reservation).
                            if !result.outputs.isEmpty { await reservation.outputPlaced() }
                            tally.done += 1
                            tally.bytesIn += item.inputBytes
                            tally.bytesOut += result.outputs.reduce(0) { $0 + $1.byteCount }
                            printer.finished(item, result)
                            do throws(ConvertError) {
                                try journal.recordFinished(index: item.index, input: item.input, outputs: result.outputs)
                            } catch {
                                printer.journalFailed(error)
                            }
                        case .failure(let error) where error.category == .cancelled:
                            printer.cancelled(item)
                        case .failure(let error):
                            tally.failures.append((item.input, error))
                            printer.failed(item, error)
                        }
                    }
                    return tally
                })
            } catch {
                return .failure(ConvertError.wrap(error))
            }
        }
        var tally = try counts.get()
        tally.unfinished = items.count - tally.done - tally.failures.count
        tally.interrupted = interrupted
        journal.end(allSucceeded: !interrupted && tally.failures.isEmpty && tally.unfinished == 0)
        printer.summary(tally, seconds: Date().timeIntervalSince(started))
        if interrupted { return ExitCode.interrupted }
        return tally.failures.isEmpty && tally.unfinished == 0 ? ExitCode.success : ExitCode.failure
    }

    /// A named single output (`images-to-pdf -o album.pdf`): never one of the inputs, and an
    /// existing file only with `--overwrite` (the user chose the name, so it is not numbered).
    private static func checkSingleOutput(_ path: String, inputs: [String], overwrite: Bool) throws(ConvertError) {
        var output = stat()
        guard stat(path, &output) == 0 else { return }
        for input in inputs {
            var info = stat()
            if stat(input, &info) == 0, info.st_dev == output.st_dev, info.st_ino == output.st_ino {
                throw ConvertError(
                    .request, key: "output.is-input", message: "The output \(path) is one of the inputs; nothing was overwritten.",
                    path: path)
            }
        }
        if !overwrite {
            throw ConvertError(
                .request, key: "output.exists", message: "\(path) already exists; nothing was overwritten (use --overwrite).",
                path: path)
        }
    }

    private static func fileSize(_ path: String) -> Int64 {
        var info = stat()
        return stat(path, &info) == 0 ? Int64(info.st_size) : 0
    }

    /// `path` made absolute against the working directory, for the journal's identity.
    private static func absolute(_ path: String) -> String {
        path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
    }
}

/// What a batch did, for its summary.
package struct BatchTally: Sendable {
    /// Items converted.
    package var done = 0
    /// Items that failed, with why, in input order.
    package var failures: [(input: String, error: ConvertError)] = []
    /// Items already done by an earlier run.
    package var skipped = 0
    /// Items not converted because the batch was interrupted.
    package var unfinished = 0
    /// Whether SIGINT/SIGTERM stopped the batch.
    package var interrupted = false
    /// Bytes read from the converted items' inputs.
    package var bytesIn: Int64 = 0
    /// Bytes written to outputs.
    package var bytesOut: Int64 = 0
}

extension ConvertError {
    /// Any error from the allowance wrapper as a `ConvertError` (it only ever throws those).
    package static func wrap(_ error: any Error) -> ConvertError {
        if let error = error as? ConvertError { return error }
        return ConvertError(.internal, key: "internal", message: "An unexpected error stopped the batch.",
            underlying: String(describing: error))
    }
}

/// Prints a batch's events: `--json` lines on stdout, or text: each output's path on stdout (with
/// the input and size when stdout is a terminal), notes, failures and the summary on stderr, live
/// progress on a terminal's stderr. Lines from concurrent items never interleave.
package final class BatchPrinter: Sendable {
    private let json: Bool
    private let quiet: Bool
    private let verbose: Bool
    private let detailedResults: Bool
    private let out: @Sendable (String) -> Void
    private let err: @Sendable (String) -> Void
    private let red: @Sendable (String) -> String
    private let board: ProgressBoard?
    private let lock = Mutex(())
    private let progressThrottle = ProgressThrottle(interval: .milliseconds(250))

    /// A printer writing to the terminal through `console`, drawing progress on `board`.
    package convenience init(console: Console, options: BatchOptions, board: ProgressBoard?) {
        self.init(
            json: options.json, quiet: options.quiet, verbose: options.verbose, detailedResults: console.stdoutIsTTY,
            out: { console.out($0) }, err: { console.err($0) }, red: { console.red($0) }, board: board)
    }

    /// A printer writing lines to `out` and `err` (tests capture them).
    package init(
        json: Bool, quiet: Bool = false, verbose: Bool = false, detailedResults: Bool = false,
        out: @escaping @Sendable (String) -> Void, err: @escaping @Sendable (String) -> Void,
        red: @escaping @Sendable (String) -> String = { $0 }, board: ProgressBoard? = nil
    ) {
        self.json = json
        self.quiet = quiet
        self.verbose = verbose
        self.detailedResults = detailedResults
        self.out = out
        self.err = err
        self.red = red
        self.board = board
    }

    private func emit(_ line: BatchReportLine) {
        lock.withLock { _ in out(line.jsonLine()) }
    }

    private func text(_ message: String, error: Bool = false) {
        lock.withLock { _ in error ? err(message) : out(message) }
    }

    /// The name shown for an item: its file name.
    private static func name(_ path: String) -> String { (path as NSString).lastPathComponent.terminalSafe }

    package func planned(index: Int, input: String, output: String, memory: Int64) {
        if json { return emit(.planned(index: index, input: input, output: output, memoryBytes: memory)) }
        text(Messages.text(.itemPlanned, input.terminalSafe, output.terminalSafe, Formatting.bytes(memory)))
    }

    package func started(_ item: BatchItem) {
        if json { return emit(.started(index: item.index, input: item.input, output: item.destination)) }
        board?.begin(item.index, name: Self.name(item.input), inputBytes: item.inputBytes)
    }

    package func progress(_ item: BatchItem, _ progress: JobProgress) {
        if json {
            guard progressThrottle.admit(item.index, progress) else { return }
            return emit(.progress(index: item.index, input: item.input, progress))
        }
        board?.update(item.index, progress)
    }

    package func finished(_ item: BatchItem, _ result: JobResult) {
        progressThrottle.forget(item.index)
        if json { return emit(.finished(index: item.index, input: item.input, result)) }
        guard !quiet else { return ended(item) }
        let results = result.outputs.map { output in
            detailedResults
                ? "\(item.input.terminalSafe) → \(output.path.terminalSafe) (\(Formatting.bytes(output.byteCount)))"
                : output.path.terminalSafe
        }
        let notes = result.notes.isEmpty
            ? [] : [Messages.text(.itemNotes, Self.name(item.input), result.notes.joined(separator: ", ").terminalSafe)]
        ended(item, stdout: results, stderr: notes)
    }

    package func cancelled(_ item: BatchItem) {
        progressThrottle.forget(item.index)
        ended(item)
    }

    package func failed(_ item: BatchItem, _ error: ConvertError) {
        progressThrottle.forget(item.index)
        if json { return emit(.failed(index: item.index, input: item.input, error)) }
        // The library's messages usually name the file already; say which input it was otherwise.
        let message = describe(error)
        let line = error.message.contains(item.input) ? message : Messages.text(.itemFailed, item.input.terminalSafe, message)
        ended(item, stderr: [red(Messages.text(.errorPrefix)) + " " + line])
    }

    /// Prints an ended item's lines: above the live progress lines when there is a board.
    private func ended(_ item: BatchItem, stdout: [String] = [], stderr: [String] = []) {
        if let board { return board.end(item.index, stdout: stdout, stderr: stderr) }
        for line in stdout { text(line) }
        for line in stderr { text(line, error: true) }
    }

    package func skipped(index: Int, input: String, output: String?, reason: String) {
        if json { return emit(.skipped(index: index, input: input, output: output, reason: reason)) }
        guard !quiet else { return }
        text(Messages.text(.itemSkippedResumed, input.terminalSafe), error: true)
    }

    package func commandFailed(_ error: ConvertError) {
        board?.clear()
        if json { return emit(.failed(error)) }
        text(red(Messages.text(.errorPrefix)) + " " + describe(error), error: true)
    }

    package func journalFailed(_ error: ConvertError) {
        // The output is in place; only resuming after a crash would redo this item.
        text(Messages.text(.warningPrefix) + " " + Messages.text(.journalFailed, describe(error)), error: true)
    }

    /// The error's (translated) message, with its low-level cause under `--verbose`.
    private func describe(_ error: ConvertError) -> String {
        var message = Messages.error(error)
        if verbose, let cause = error.underlyingDescription { message += " (\(cause))" }
        return message.terminalSafe
    }

    package func summary(_ tally: BatchTally, seconds: Double) {
        board?.clear()
        if json {
            return emit(.summary(
                done: tally.done, failed: tally.failures.count, skipped: tally.skipped, unfinished: tally.unfinished,
                interrupted: tally.interrupted, bytesIn: tally.bytesIn, bytesOut: tally.bytesOut, seconds: seconds))
        }
        guard !quiet else { return }
        var parts = [Messages.text(.summaryDone, "\(tally.done)")]
        if !tally.failures.isEmpty { parts.append(Messages.text(.summaryFailed, "\(tally.failures.count)")) }
        if tally.skipped > 0 { parts.append(Messages.text(.summarySkipped, "\(tally.skipped)")) }
        if tally.unfinished > 0 { parts.append(Messages.text(.summaryUnfinished, "\(tally.unfinished)")) }
        parts.append(Messages.text(.summaryBytes, Formatting.bytes(tally.bytesIn), Formatting.bytes(tally.bytesOut)))
        parts.append(Messages.text(.summaryTime, Formatting.seconds(seconds)))
        var lines = [(tally.interrupted ? Messages.text(.summaryInterrupted) + " " : "") + parts.joined(separator: ", ") + "."]
        for failure in tally.failures {
            lines.append(Messages.text(.summaryFailureLine, Self.name(failure.input), describe(failure.error)))
        }
        text(lines.joined(separator: "\n"), error: true)
    }
}

/// Thins `--json` progress lines so a script reading them is not flooded: the library reports up
/// to ~200 steps a job, and a batch of small photos would print thousands of lines a second. A
/// line goes out when an item enters a new stage, reaches the end, or `interval` has passed since
/// its last line.
package final class ProgressThrottle: Sendable {
    private let interval: Duration
    private let last = Mutex<[Int: (stage: JobStage, at: ContinuousClock.Instant)]>([:])

    package init(interval: Duration) {
        self.interval = interval
    }

    /// Whether `progress` of item `index` should be printed now (and records it if so).
    package func admit(_ index: Int, _ progress: JobProgress, now: ContinuousClock.Instant = .now) -> Bool {
        last.withLock { last in
            if let previous = last[index], previous.stage == progress.stage, progress.fraction < 1,
                now - previous.at < interval
            {
                return false
            }
            last[index] = (progress.stage, now)
            return true
        }
    }

    /// Drops what is remembered about an item that has ended.
    package func forget(_ index: Int) {
        _ = last.withLock { $0.removeValue(forKey: index) }
    }
}
