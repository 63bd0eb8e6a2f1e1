import ConvertCore

/// The one runtime every batch converts under, ``PhotoBatch`` and the CLI's commands alike: the
/// ``BatchScheduler`` admits jobs by memory, and each job is written to the resume journal
/// around its conversion: a durable start line naming its destination before it runs, a
/// finished line with its outputs after.
///
/// A full disk while writing the start line fails the job, as its output would; any other
/// journal failure is reported and costs at most a later run converting the job again.
package struct BatchQueue: Sendable {
    /// One job as the queue sees it.
    package struct Job: Sendable {
        /// The job's position in its batch: what the journal records it under.
        package var index: Int
        /// The input it converts, as given.
        package var input: String
        /// Where its output goes, written in the start line; nil when not known before (no start line).
        package var destination: String?
        /// Its declared peak memory in bytes.
        package var cost: Int64

        /// A job.
        package init(index: Int, input: String, destination: String?, cost: Int64) {
            self.index = index
            self.input = input
            self.destination = destination
            self.cost = cost
        }
    }

    /// What each job does, as the batch's owner says.
    package struct Work: Sendable {
        /// Called as a job is admitted, before its start line: a throw fails the job unconverted.
        package var check: @Sendable (_ position: Int) async throws(ConvertError) -> Void = { _ throws(ConvertError) in
        }
        /// Converts the job at `position`.
        package var convert: @Sendable (_ position: Int) async throws(ConvertError) -> JobResult
        /// Told of a journal line that could not be written (the job goes on).
        package var journalFailed: @Sendable (ConvertError) -> Void = { _ in }

        /// Work that converts each job with `convert`.
        package init(convert: @escaping @Sendable (_ position: Int) async throws(ConvertError) -> JobResult) {
            self.convert = convert
        }
    }

    /// The most memory the jobs converting at once may declare together.
    package var memoryBudget: Int64
    /// The most jobs converting at once.
    package var concurrency: Int
    /// Where start and finished lines go; nil: no journal.
    package var journal: BatchJournal?

    /// A queue.
    package init(memoryBudget: Int64, concurrency: Int, journal: BatchJournal?) {
        self.memoryBudget = memoryBudget
        self.concurrency = concurrency
        self.journal = journal
    }

    /// Runs `work` for each of `jobs` and calls `onResult` with each job's position and result as
    /// it ends, one call at a time on the caller's task. Cancelling the caller's task stops
    /// admissions and cancels the jobs converting (their results are `cancelled` errors).
    package func run(
        _ jobs: [Job], work: Work, onResult: (_ position: Int, Result<JobResult, ConvertError>) async -> Void
    ) async {
        let scheduler = BatchScheduler(budgetBytes: memoryBudget, maxConcurrent: concurrency)
        let journal = self.journal
        await scheduler.run(Array(jobs.indices), cost: { jobs[$0].cost }) { position in
            await Self.run(jobs[position], at: position, work: work, journal: journal)
        } onResult: { position, result in
            await onResult(position, result)
        }
    }

    /// One job: its check, its start line, its conversion, its finished line.
    private static func run(
        _ job: Job, at position: Int, work: Work, journal: BatchJournal?
    ) async -> Result<JobResult, ConvertError> {
        do throws(ConvertError) {
            try await work.check(position)
            if let journal, let destination = job.destination {
                try await started(job, destination: destination, journal: journal, work: work)
            }
            let result = try await work.convert(position)
            if let journal {
                do throws(ConvertError) {
                    try await runBlocking(on: .short) { _ in
                        try journal.recordFinished(index: job.index, input: job.input, outputs: result.outputs)
                    }
                } catch {
                    work.journalFailed(error)
                }
            }
            return .success(result)
        } catch {
            return .failure(error)
        }
    }

    /// Writes `job`'s durable start line (the line waits for the disk: off the cooperative pool).
    private static func started(
        _ job: Job, destination: String, journal: BatchJournal, work: Work
    ) async throws(ConvertError) {
        do throws(ConvertError) {
            try await runBlocking(on: .short) { _ in
                try journal.recordStarted(index: job.index, input: job.input, destination: destination)
            }
        } catch  where error.category == .device {
            throw error
        } catch {
            work.journalFailed(error)
        }
    }
}
