import ConvertCore

/// What a program that runs its own batches around a ``PhotoBatch`` brings to it: the CLI,
/// whose photo commands convert through ``PhotoBatch/run(host:limits:onResult:)``. It has
/// already named each photo's output, estimated its memory and skipped what an earlier run
/// converted; it keeps its own journal (named after the command and its options) and reports
/// each photo itself.
package struct PhotoBatchHost: Sendable {
    /// The journal the photos' start and finished lines go to; the host opens and ends it.
    package var journal: BatchJournal
    /// Each request's position in the host's whole batch: what the journal records it under.
    package var indices: [Int]
    /// The number of items in the host's whole batch (photos near its end get more tile threads).
    package var total: Int
    /// Each request's estimated peak memory, which the queue admits it by.
    package var costs: [Int64]
    /// Called with a request's position as it is admitted, before its start line: a throw fails
    /// the photo unconverted (a missing input, too little free space).
    package var check: @Sendable (_ position: Int) async throws(ConvertError) -> Void
    /// Each photo's own progress, by position.
    package var progress: @Sendable (_ position: Int, JobProgress) -> Void = { _, _ in }
    /// Told of a journal line that could not be written.
    package var journalFailed: @Sendable (ConvertError) -> Void = { _ in }

    /// A host; `indices` and `costs` have one entry per request of the batch it runs.
    package init(
        journal: BatchJournal, indices: [Int], total: Int, costs: [Int64],
        check: @escaping @Sendable (_ position: Int) async throws(ConvertError) -> Void
    ) {
        self.journal = journal
        self.indices = indices
        self.total = total
        self.costs = costs
        self.check = check
    }
}

extension PhotoBatch {
    /// Converts every request under `host`'s journal and checks, and calls `onResult` with each
    /// request's position and result as it ends, one call at a time. The requests must already
    /// name their outputs. Cancelling the calling task cancels the photos converting and starts
    /// no more.
    package func run(
        host: PhotoBatchHost, limits: ConversionLimits = .shared,
        onResult: (_ position: Int, Result<JobResult, ConvertError>) async -> Void
    ) async {
        precondition(host.indices.count == requests.count && host.costs.count == requests.count)
        var run = PhotoBatchRun(batch: self, journal: host.journal, onProgress: { _ in }, onItem: { _ in })
        let pending = requests.indices.map {
            PhotoBatchRun.Pending(index: $0, request: requests[$0], cost: host.costs[$0])
        }
        await run.convert(pending, limits: limits, host: host, onResult: onResult)
    }
}
