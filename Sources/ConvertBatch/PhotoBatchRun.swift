import ConvertCore
import FoundationEssentials

/// One run of a ``PhotoBatch``: which photos an earlier run finished, where the others go, then
/// the queue, the journal lines around each photo and its item.
struct PhotoBatchRun {
    /// A photo still to convert, its request with its destination and its estimate.
    struct Pending: Sendable {
        var index: Int
        var request: PhotoRequest
        var cost: Int64 = 0
    }

    let batch: PhotoBatch
    let journal: BatchJournal?
    let onItem: @Sendable (PhotoBatchItem) -> Void
    let progress: BatchProgressTracker
    private(set) var items: [PhotoBatchItem?]

    init(
        batch: PhotoBatch, journal: BatchJournal?, onProgress: @escaping @Sendable (BatchProgress) -> Void,
        onItem: @escaping @Sendable (PhotoBatchItem) -> Void
    ) {
        self.batch = batch
        self.journal = journal
        self.onItem = onItem
        progress = BatchProgressTracker(total: batch.requests.count, report: onProgress)
        items = Array(repeating: nil, count: batch.requests.count)
    }

    /// The photos to convert, named and estimated; those an earlier run finished, and those
    /// that cannot be named, end here.
    mutating func plan() async -> [Pending] {
        var namers: [String: OutputNamer] = [:]
        var pending: [Pending] = []
        let inputs = batch.requests.map(\.inputPath)
        for (index, request) in batch.requests.enumerated() {
            if let outputs = journal?.completedOutputs(index: index, input: request.inputPath) {
                end(index, .alreadyDone(outputs))
                continue
            }
            do throws(ConvertError) {
                pending.append(Pending(index: index, request: try Self.named(request, inputs: inputs, namers: &namers)))
            } catch {
                end(index, .failed(error))
            }
        }
        // Estimates steer admissions only when photos could run side by side.
        guard pending.count > 1 && batch.concurrency > 1 else { return pending }
        for position in pending.indices {
            let estimate = await PhotoBatch.estimate(pending[position].request)
            pending[position].cost = estimate.cost
            pending[position].request.probed = estimate.photo
        }
        return pending
    }

    /// `request` with its destination: its own ``PhotoRequest/outputPath``, or a fresh name from
    /// the namer of its output folder (one namer a folder, so no two photos get one name).
    private static func named(
        _ request: PhotoRequest, inputs: [String], namers: inout [String: OutputNamer]
    ) throws(ConvertError) -> PhotoRequest {
        guard request.outputPath == nil else { return request }
        let key = (request.outputDirectory ?? "\u{0}") + (request.overwrite ? "\u{0}overwrite" : "")
        let namer: OutputNamer
        if let known = namers[key] {
            namer = known
        } else {
            namer = try OutputNamer(
                outputDirectory: request.outputDirectory, overwrite: request.overwrite, inputs: inputs)
            namers[key] = namer
            // What a run killed mid-way left in the folder (a staged output never moved into
            // place) goes before anything new is written there.
            namer.removeStaleTemporaries(for: inputs)
        }
        var named = request
        named.outputPath = try namer.destination(for: request.inputPath, pathExtension: request.format.fileExtension)
        // The name was chosen here, not by the app: taken meanwhile by another process, the
        // output is numbered around it rather than failing.
        named.outputMayBeRenumbered = true
        return named
    }

    /// Converts `pending` under the ``BatchQueue``, calling `onResult` after each photo's item
    /// (the host's report: the CLI's tally and lines).
    mutating func convert(
        _ pending: [Pending], limits: ConversionLimits, host: PhotoBatchHost? = nil,
        onResult: (Int, Result<JobResult, ConvertError>) async -> Void = { _, _ in }
    ) async {
        let queue = BatchQueue(memoryBudget: batch.memoryBudget, concurrency: batch.concurrency, journal: journal)
        let jobs = pending.map { photo in
            BatchQueue.Job(
                index: host?.indices[photo.index] ?? photo.index, input: photo.request.inputPath,
                destination: photo.request.outputPath, cost: photo.cost)
        }
        let work = Self.work(pending, jobs: jobs, batch: batch, limits: limits, host: host, progress: progress)
        await queue.run(jobs, work: work) { position, outcome in
            let index = pending[position].index
            switch outcome {
            case .success(let result): end(index, .converted(result))
            case .failure(let error) where error.category == .cancelled: end(index, .cancelled)
            case .failure(let error): end(index, .failed(error))
            }
            await onResult(index, outcome)
        }
    }

    /// What the queue does with each photo: the host's check, then the conversion, with tile
    /// threads balanced against the photos converting at once (as the CLI's batches: the last
    /// photos, with cores left idle, get them back).
    private static func work(
        _ pending: [Pending], jobs: [BatchQueue.Job], batch: PhotoBatch, limits: ConversionLimits,
        host: PhotoBatchHost?, progress: BatchProgressTracker
    ) -> BatchQueue.Work {
        let total = host?.total ?? batch.requests.count
        let concurrency = batch.concurrency
        var work = BatchQueue.Work { position throws(ConvertError) in
            let photo = pending[position]
            var request = photo.request
            if request.decodingThreads == nil {
                request.decodingThreads = DecodingThreads.perPhoto(
                    jobs: concurrency, items: total - jobs[position].index)
            }
            return try await PhotoConverter.convert(request, limits: limits).result { job in
                progress.update(photo.index, job.fraction)
                host?.progress(photo.index, job)
            }
        }
        if let host {
            work.check = { position throws(ConvertError) in try await host.check(pending[position].index) }
            work.journalFailed = host.journalFailed
        }
        return work
    }

    /// Records photo `index`'s outcome and tells the app.
    private mutating func end(_ index: Int, _ outcome: PhotoBatchItem.Outcome) {
        let item = PhotoBatchItem(index: index, inputPath: batch.requests[index].inputPath, outcome: outcome)
        items[index] = item
        progress.ended(index)
        onItem(item)
    }

    /// Every item (a photo the queue never started is cancelled); the journal marked complete
    /// when every photo is converted.
    mutating func finish() -> [PhotoBatchItem] {
        for index in items.indices where items[index] == nil { end(index, .cancelled) }
        let complete = items.allSatisfy { item in
            switch item?.outcome {
            case .converted, .alreadyDone: true
            default: false
            }
        }
        journal?.end(allSucceeded: complete)
        return items.compactMap { $0 }
    }
}
