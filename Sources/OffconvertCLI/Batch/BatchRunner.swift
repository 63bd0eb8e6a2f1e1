import ConvertAllowance
import ConvertBatch
import ConvertCore
import FoundationEssentials
import Synchronization

/// Runs a command over many files: sorting the inputs, naming, stale cleanup, free space, the
/// allowance, the memory-budget scheduler, Ctrl-C handling, resume, progress, `--json` lines,
/// the summary and the exit code. A command parses ``BatchOptions`` and calls
/// ``run(_:options:console:allowance:stateDirectory:)``.
package enum BatchRunner {
    /// Runs the batch and returns the exit code: 0 all succeeded (or were already done, or were
    /// set aside as not the command's kind), 1 some failed or the batch could not start, 64 the
    /// output name does not fit, 77 today's free conversions are used up, 130 interrupted.
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
        _ work: BatchWork, options: BatchOptions, printer: BatchPrinter, allowance: AllowanceStore,
        stateDirectory: String?
    ) async -> Int32 {
        let started = Date()
        var options = options
        var tally = BatchTally()
        tally.unchangedKey = work.unchangedSummary
        options.inputs = setAside(
            options.inputs, accepts: work.accepts, alreadyIn: work.alreadyIn, printer: printer, tally: &tally)
        if !options.skippedFolders.isEmpty { printer.foldersNotOpened(options.skippedFolders) }
        for folder in options.emptyFolders { printer.emptyFolder(folder) }
        guard !options.inputs.isEmpty else {
            printer.summary(tally, seconds: Date().timeIntervalSince(started))
            return ExitCode.success
        }
        if let file = options.outputFile, let problem = outputFileProblem(file, work: work, input: options.inputs[0]) {
            printer.usageFailed(problem)
            return ExitCode.usage
        }
        do {
            return try await runChecked(
                work, options: options, tally: tally, started: started, printer: printer, allowance: allowance,
                stateDirectory: stateDirectory)
        } catch {
            printer.commandFailed(error)
            return error.category == .allowance ? ExitCode.allowanceExhausted : ExitCode.failure
        }
    }

    /// The inputs of `inputs` the batch converts; the others are reported through `printer`
    /// and counted in `tally` (see ``InputTriage``).
    package static func setAside(
        _ inputs: [String], accepts: InputTriage.Accepts, alreadyIn: InputTriage.AlreadyInFormat? = nil,
        printer: BatchPrinter, tally: inout BatchTally
    ) -> [String] {
        let sorted = InputTriage.sort(inputs, accepts: accepts, alreadyIn: alreadyIn)
        for aside in sorted.setAside {
            if aside.silent { tally.ignored += 1 } else { tally.setAside += 1 }
            printer.setAside(aside)
        }
        return sorted.convert
    }

    /// Why `-o file` cannot be the output of `input` (another format's extension), or nil.
    private static func outputFileProblem(_ file: String, work: BatchWork, input: String) -> String? {
        let expected = work.outputExtension(input).lowercased()
        let given = PathText.fileExtension(file).lowercased()
        let same =
            given == expected || Set([given, expected]) == ["jpg", "jpeg"]
            || Set([given, expected]) == ["heic", "heif"]
        return same
            ? nil
            : "The output is a .\(expected) file, so '-o \(file.terminalSafe)' does not fit: name it "
                + "'\(PathText.deletingExtension(file).terminalSafe).\(expected)', or give a folder."
    }

    private static func runChecked(
        _ work: BatchWork, options: BatchOptions, tally: BatchTally, started: Date, printer: BatchPrinter,
        allowance: AllowanceStore, stateDirectory: String?
    ) async throws(ConvertError) -> Int32 {
        let namer = try OutputNamer(
            outputDirectory: options.outputDirectory, overwrite: options.overwrite, inputs: options.inputs)
        let plan = BatchPlan(work: work, options: options, namer: namer)
        if options.dryRun { return await dryRun(plan, tally: tally, started: started, printer: printer) }
        namer.removeStaleTemporaries(for: options.inputs)
        let journal = try openJournal(work, options: options, namer: namer, stateDirectory: stateDirectory)
        defer { journal.release() }
        if journal.isDamaged { printer.journalDamaged() }
        var tally = tally
        let pending = try pendingItems(plan, work: work, journal: journal, tally: &tally, printer: printer)
        guard !pending.isEmpty else {
            journal.end(allSucceeded: true)
            printer.summary(tally, seconds: Date().timeIntervalSince(started))
            return ExitCode.success
        }
        let costed = await costed(pending, work: work, jobs: options.jobs, costsNeeded: options.memoryBudgetIsExplicit)
        let charged = try await alreadyCharged(work, journal: journal, allowance: allowance)
        let before = tally
        let (outcome, interrupted) = await SignalHandling.run { () async -> Result<BatchTally, ConvertError> in
            do throws(ConvertError) {
                let body: (AllowanceReservation) async -> BatchTally = { reservation in
                    // Charged just before the first output is moved into place, whichever item
                    // gets there first: a kill can never leave outputs in place uncharged.
                    let gate = AllowanceGate(reservation: reservation, batch: journal.chargeKey)
                    return await convert(
                        costed, plan: plan, gate: gate, tally: before, journal: journal, printer: printer)
                }
                if charged { return .success(await body(AllowanceReservation(store: allowance, id: nil))) }
                return .success(try await allowance.withAllowance(body))
            } catch {
                return .failure(error)
            }
        }
        return try finish(
            outcome, interrupted: interrupted, pending: costed, before: before, journal: journal,
            started: started, printer: printer)
    }

    /// Whether this run finishes a conversion already charged: the motion half of a Live Photo
    /// batch, or a batch charged by an earlier run that was interrupted. Finishing it is the
    /// same conversion, even when today's allowance is used up since.
    private static func alreadyCharged(
        _ work: BatchWork, journal: BatchJournal, allowance: AllowanceStore
    ) async throws(ConvertError) -> Bool {
        if work.alreadyCharged { return true }
        let key = journal.chargeKey
        return try await runBlocking(on: .short) { _ in try allowance.hasCharged(batch: key) }
    }

    /// The resume journal of this command over these inputs, to these outputs.
    private static func openJournal(
        _ work: BatchWork, options: BatchOptions, namer: OutputNamer, stateDirectory: String?
    ) throws(ConvertError) -> BatchJournal {
        let recipe =
            [work.command] + work.identity
            + [
                namer.outputDirectory ?? "", options.overwrite ? "overwrite" : "",
                (work.singleOutput ?? options.outputFile).map(absolute) ?? "",
            ]
        return try BatchJournal(
            identity: recipe + options.inputs.map(absolute), recipe: recipe, stateDirectory: stateDirectory,
            resume: options.resume, restartIfComplete: options.overwrite)
    }

    /// The items still to convert, each skipped one printed and counted.
    private static func pendingItems(
        _ plan: BatchPlan, work: BatchWork, journal: BatchJournal, tally: inout BatchTally, printer: BatchPrinter
    ) throws(ConvertError) -> [BatchItem] {
        var pending: [BatchItem] = []
        for (index, input) in plan.itemInputs.enumerated() {
            if let outputs = journal.completedOutputs(index: index, input: input) {
                tally.skipped += 1
                printer.skipped(index: index, input: input, output: outputs.first?.path, reason: "already converted")
            } else if work.singleOutput == nil, let outputs = journal.earlierOutputs(for: input) {
                tally.skipped += 1
                printer.skipped(index: index, input: input, output: outputs.first?.path, reason: "already converted")
            } else if work.singleOutput == nil, journal.isEarlierOutput(input) {
                tally.skipped += 1
                printer.skipped(
                    index: index, input: input, output: nil, reason: "made by an earlier run of this command")
            } else {
                pending.append(try plan.item(index: index, input: input))
            }
        }
        return pending
    }

    /// `items` with their costs. Costs only steer admissions when items could run side by side: a
    /// lone item (or --jobs 1) always runs, and for a video its cost is a whole probe of the file
    /// that the conversion then opens again (a tenth of a short remux's time).
    /// With an explicit budget (`costsNeeded`) every item is costed, so that one over it alone is refused.
    private static func costed(_ items: [BatchItem], work: BatchWork, jobs: Int, costsNeeded: Bool) async -> [BatchItem]
    {
        guard (items.count > 1 && jobs > 1) || costsNeeded else { return items }
        var items = items
        for position in items.indices {
            if let probe = work.probe {
                (items[position].cost, items[position].photo) = await probe(items[position].input)
            } else {
                items[position].cost = await work.cost(items[position].input)
            }
        }
        return items
    }

    /// The memory estimate of `input` that ``costed(_:work:jobs:costsNeeded:)`` gives its item.
    private static func estimate(_ input: String, work: BatchWork) async -> Int64 {
        if let probe = work.probe { return await probe(input).cost }
        return await work.cost(input)
    }

    /// Ends the journal and prints the summary of a run over `pending`; the exit code.
    private static func finish(
        _ outcome: Result<BatchTally, ConvertError>, interrupted: Bool, pending: [BatchItem], before tally: BatchTally,
        journal: BatchJournal, started: Date, printer: BatchPrinter
    ) throws(ConvertError) -> Int32 {
        var counts: BatchTally
        switch outcome {
        case .success(let value):
            counts = value
        case .failure(let error) where error.category == .allowance:
            // Nothing was converted: said once (each item in --json), and the summary still ends the run.
            printer.allowanceRefused(error, items: pending)
            counts = tally
            counts.unfinished = pending.count
            printer.summary(counts, seconds: Date().timeIntervalSince(started))
            return ExitCode.allowanceExhausted
        case .failure(let error):
            throw error
        }
        counts.unfinished = pending.count - (counts.done - tally.done) - counts.failures.count
        counts.interrupted = interrupted
        journal.end(allSucceeded: !interrupted && counts.failures.isEmpty && counts.unfinished == 0)
        printer.summary(counts, seconds: Date().timeIntervalSince(started))
        if interrupted { return ExitCode.interrupted }
        return counts.failures.isEmpty && counts.unfinished == 0 ? ExitCode.success : ExitCode.failure
    }

    /// Converts `items` under the library's batch runtime (a ``PhotoBatch`` for photo commands,
    /// the ``BatchQueue`` under it for the others), each output placed through `gate`, recording
    /// each item in the journal and the tally.
    private static func convert(
        _ items: [BatchItem], plan: BatchPlan, gate: any PlacementGate, tally: BatchTally, journal: BatchJournal,
        printer: BatchPrinter
    ) async -> BatchTally {
        var tally = tally
        let items = items.map { item in
            var gated = item
            gated.placementGate = gate
            return gated
        }
        let check: @Sendable (Int) async throws(ConvertError) -> Void = { position throws(ConvertError) in
            let item = items[position]
            printer.started(item)
            if let problem = BatchPlan.fileProblem(item.input) ?? plan.overBudget(item) { throw problem }
            try plan.checkSpace(for: item)
        }
        let ended: (Int, Result<JobResult, ConvertError>) -> Void = { position, outcome in
            record(items[position], outcome, plan: plan, tally: &tally, printer: printer)
        }
        switch plan.work.conversion {
        case .photos(let photos):
            var host = PhotoBatchHost(
                journal: journal, indices: items.map(\.index), total: plan.itemInputs.count, costs: items.map(\.cost),
                check: check)
            host.progress = { position, progress in printer.progress(items[position], progress) }
            host.journalFailed = { printer.journalFailed($0) }
            let batch = PhotoBatch(
                items.map(photos.request), memoryBudget: plan.options.memoryBudget, concurrency: plan.options.jobs)
            await batch.run(host: host) { position, outcome in
                ended(position, outcome.map { photos.report($0, items[position]) })
            }
        case .each(let convert):
            var work = BatchQueue.Work { position throws(ConvertError) in
                let item = items[position]
                let result = try await convert(item) { progress in printer.progress(item, progress) }
                if !result.outputs.isEmpty { await confirmPlaced(gate) }
                return result
            }
            work.check = check
            work.journalFailed = { printer.journalFailed($0) }
            let jobs = items.map {
                BatchQueue.Job(index: $0.index, input: $0.input, destination: $0.destination, cost: $0.cost)
            }
            let queue = BatchQueue(
                memoryBudget: plan.options.memoryBudget, concurrency: plan.options.jobs, journal: journal)
            await queue.run(jobs, work: work) { position, outcome in ended(position, outcome) }
        }
        return tally
    }

    /// Counts and reports one item's end; a converted item's outputs get its input's time stamp.
    private static func record(
        _ item: BatchItem, _ outcome: Result<JobResult, ConvertError>, plan: BatchPlan, tally: inout BatchTally,
        printer: BatchPrinter
    ) {
        switch outcome {
        case .success(let result):
            for output in result.outputs { item.inputStamp?.apply(to: output.path, times: plan.options.keepTimes) }
            tally.done += 1
            if result.outputs.isEmpty { tally.unchanged += 1 }
            tally.bytesIn += item.inputBytes
            tally.bytesOut += result.outputs.reduce(0) { $0 + $1.byteCount }
            printer.finished(item, result)
        case .failure(let error) where error.category == .cancelled:
            printer.cancelled(item)
        case .failure(let error):
            tally.failures.append((item.input, error))
            printer.failed(item, error)
        }
    }

    /// Passes a finished item's outputs through the placement gate, for work that placed them
    /// without ``StagedOutput`` (which calls the gate itself, before the rename). The charge is
    /// idempotent; if it cannot be written now, the reservation retries it when it is settled.
    private static func confirmPlaced(_ gate: any PlacementGate) async {
        _ = try? await runBlocking(on: .short) { _ in
            try? gate.willPlace()
            gate.didPlace()
        }
    }

    /// `--dry-run`: each item checked as the real run would open it and admit it under
    /// `--memory-budget`, planned or failed; exit 1 when one would fail.
    private static func dryRun(_ plan: BatchPlan, tally: BatchTally, started: Date, printer: BatchPrinter) async
        -> Int32
    {
        var tally = tally
        // "0 would be converted, 1 failed", not "0 done", however many fail.
        tally.isDryRun = true
        for (index, input) in plan.itemInputs.enumerated() {
            do throws(ConvertError) {
                var item = try plan.item(index: index, input: input)
                for path in plan.work.singleOutput == nil ? [input] : plan.options.inputs {
                    if let problem = await plan.work.check(path) { throw problem }
                }
                // The estimate the real run admits the item by, and its refusal over the budget.
                item.cost = await estimate(input, work: plan.work)
                if let problem = plan.overBudget(item) { throw problem }
                printer.planned(index: index, input: input, output: item.destination, memory: item.cost)
                if let preview = try await plan.work.preview?(index, input) {
                    printer.previewed(preview.line)
                    // A target it cannot reach would fail: counted so, not as "would be converted".
                    if let failure = preview.failure {
                        tally.failures.append((input, failure))
                        continue
                    }
                }
                tally.planned += 1
            } catch {
                tally.failures.append((input, error))
                printer.failed(BatchItem(index: index, input: input, destination: "", cost: 0, overwrite: false), error)
            }
        }
        printer.summary(tally, seconds: Date().timeIntervalSince(started))
        return tally.failures.isEmpty ? ExitCode.success : ExitCode.failure
    }

    /// `path` made absolute against the working directory, for the journal's identity.
    private static func absolute(_ path: String) -> String {
        path.hasPrefix("/") ? path : FolderListing.currentFolder + "/" + path
    }
}
