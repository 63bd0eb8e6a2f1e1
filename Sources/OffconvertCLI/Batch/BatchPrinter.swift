import ConvertBatch
import ConvertCore
import FoundationEssentials

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
    private let lock = PthreadLocked(())
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
    private static func name(_ path: String) -> String { PathText.lastComponent(path).terminalSafe }

    /// What an item's notes are about: its input, or, for one output made from many inputs (a
    /// PDF album), that output, since the notes describe all of its pages.
    private static func subject(of item: BatchItem) -> String {
        item.sources.count > 1 ? item.destination : item.input
    }

    package func planned(index: Int, input: String, output: String, memory: Int64) {
        if json { return emit(.planned(index: index, input: input, output: output, memoryBytes: memory)) }
        text(Messages.text(.itemPlanned, input.terminalSafe, output.terminalSafe, UnitText.bytes(memory)))
    }

    /// A dry run's line under an item's planned line (``BatchWork/preview``), printed as it is.
    package func previewed(_ line: String) {
        if !quiet { text(line) }
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
        if json { return emit(.finished(index: item.index, input: item.input, result, wording: { Messages.note($0) })) }
        guard !quiet else { return ended(item) }
        let results = result.outputs.map { output in
            detailedResults
                ? "\(item.input.terminalSafe) → \(output.path.terminalSafe) (\(UnitText.bytes(output.byteCount)))"
                : output.path.terminalSafe
        }
        let notes =
            result.notes.isEmpty
            ? []
            : [
                Messages.text(
                    .itemNotes, Self.name(Self.subject(of: item)),
                    result.notes.map { Messages.note($0) }.joined(separator: ", ").terminalSafe)
            ]
        ended(item, stdout: results, stderr: notes)
    }

    package func cancelled(_ item: BatchItem) {
        progressThrottle.forget(item.index)
        ended(item)
    }

    package func failed(_ item: BatchItem, _ error: ConvertError) {
        progressThrottle.forget(item.index)
        if json { return emit(.failed(index: item.index, input: item.input, error)) }
        // The library's messages usually name the input already; say which input it was otherwise
        // (a full disk or a read-only folder names the output's folder, not the input).
        let message = describe(error)
        let line =
            message.contains(item.input.terminalSafe)
            ? message : Messages.text(.itemFailed, item.input.terminalSafe, message)
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
        let key: Messages.Key = output == nil ? .itemSkippedEarlierOutput : .itemSkippedResumed
        text(Messages.text(key, input.terminalSafe), error: true)
    }

    /// An input that is not converted (see ``InputTriage``): a line naming it and why, except
    /// for sidecars, which `--json` alone reports.
    package func setAside(_ aside: InputTriage.SetAside) {
        if json {
            return emit(
                .skipped(index: nil, input: aside.path, output: nil, reason: aside.silent ? "sidecar" : aside.reason))
        }
        guard !quiet, !aside.silent else { return }
        text(Messages.text(.itemSetAside, aside.path.terminalSafe, aside.reason), error: true)
    }

    /// Folders inside folder arguments that were not opened.
    func foldersNotOpened(_ folders: [String]) {
        guard !json, !quiet, let first = folders.first else { return }
        text(Messages.text(.foldersNotOpened, "\(folders.count)", first.terminalSafe), error: true)
    }

    /// A folder argument held nothing to convert; the other inputs go on.
    func emptyFolder(_ folder: String) {
        guard !json, !quiet else { return }
        text(Messages.text(.emptyFolder, folder.terminalSafe), error: true)
    }

    /// The command line asked for something the batch cannot do (exit 64).
    func usageFailed(_ message: String) {
        board?.clear()
        if json { return emit(.failed(ConvertError(code: .usage, message: message))) }
        text(red(Messages.text(.errorPrefix)) + " " + message.terminalSafe, error: true)
    }

    /// The allowance refused the batch: one line, or a `failed` line per item with `--json`.
    func allowanceRefused(_ error: ConvertError, items: [BatchItem]) {
        guard json else { return commandFailed(error) }
        for item in items { emit(.failed(index: item.index, input: item.input, error)) }
    }

    package func commandFailed(_ error: ConvertError) {
        board?.clear()
        if json { return emit(.failed(error)) }
        text(red(Messages.text(.errorPrefix)) + " " + describe(error), error: true)
    }

    func journalFailed(_ error: ConvertError) {
        // The output is in place; only resuming after a crash would redo this item.
        text(Messages.text(.warningPrefix) + " " + Messages.text(.journalFailed, describe(error)), error: true)
    }

    /// The resume journal of an earlier run was found damaged: said once, before any item.
    func journalDamaged() {
        let message = Messages.text(.journalDamaged)
        if json { return emit(.warning(reason: Messages.Key.journalDamaged.rawValue, message: message)) }
        guard !quiet else { return }
        text(Messages.text(.warningPrefix) + " " + message, error: true)
    }

    /// The error's (translated) message, with its low-level cause under `--verbose`.
    private func describe(_ error: ConvertError) -> String {
        var message = Messages.error(error)
        if verbose, let cause = error.underlyingDescription { message += " (\(cause))" }
        return message.terminalSafe
    }

    /// "12 done"; "6 written, 3 had no location" when some items needed no output.
    private func doneParts(_ tally: BatchTally) -> String {
        if tally.planned > 0 || tally.isDryRun { return Messages.text(.summaryPlanned, "\(tally.planned)") }
        guard tally.unchanged > 0 else { return Messages.text(.summaryDone, "\(tally.done)") }
        return Messages.text(.summaryWritten, "\(tally.done - tally.unchanged)") + ", "
            + Messages.text(tally.unchangedKey, "\(tally.unchanged)")
    }

    package func summary(_ tally: BatchTally, seconds: Double) {
        board?.clear()
        if json {
            return emit(
                .summary(
                    done: tally.done, failed: tally.failures.count, skipped: tally.skipped,
                    unfinished: tally.unfinished,
                    interrupted: tally.interrupted, bytesIn: tally.bytesIn, bytesOut: tally.bytesOut, seconds: seconds,
                    setAside: tally.setAside, ignored: tally.ignored, planned: tally.planned > 0 ? tally.planned : nil,
                    unchanged: tally.unchanged > 0 ? tally.unchanged : nil))
        }
        guard !quiet else { return }
        var parts = [doneParts(tally)]
        if !tally.failures.isEmpty { parts.append(Messages.text(.summaryFailed, "\(tally.failures.count)")) }
        if tally.skipped > 0 { parts.append(Messages.text(.summarySkipped, "\(tally.skipped)")) }
        if tally.setAside > 0 { parts.append(Messages.text(.summarySetAside, "\(tally.setAside)")) }
        if tally.ignored > 0 { parts.append(Messages.text(.summaryIgnored, "\(tally.ignored)")) }
        if tally.unfinished > 0 { parts.append(Messages.text(.summaryUnfinished, "\(tally.unfinished)")) }
        parts.append(Messages.text(.summaryBytes, UnitText.bytes(tally.bytesIn), UnitText.bytes(tally.bytesOut)))
        parts.append(Messages.text(.summaryTime, UnitText.duration(seconds)))
        var lines = [
            (tally.interrupted ? Messages.text(.summaryInterrupted) + " " : "") + parts.joined(separator: ", ") + "."
        ]
        for failure in tally.failures {
            // Paths as typed (two inputs may share a file name), and named once: most of the
            // library's messages already start with the path.
            let message = describe(failure.error)
            let input = failure.input.terminalSafe
            lines.append(
                message.contains(input)
                    ? Messages.text(.summaryFailureLineNamed, message)
                    : Messages.text(.summaryFailureLine, input, message))
        }
        text(lines.joined(separator: "\n"), error: true)
    }
}
