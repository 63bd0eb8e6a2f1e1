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

    /// Converts `pending` under the queue, each between its journal's start and finish lines.
    mutating func convert(_ pending: [Pending], limits: ConversionLimits) async {
        let scheduler = BatchScheduler(budgetBytes: batch.memoryBudget, maxConcurrent: batch.concurrency)
        let (journal, progress) = (self.journal, self.progress)
        let (jobs, total) = (batch.concurrency, batch.requests.count)
        await scheduler.run(pending, cost: \.cost) { photo in
            await Self.convert(
                photo, jobs: jobs, total: total, limits: limits, journal: journal, progress: progress)
        } onResult: { position, outcome in
            let photo = pending[position]
            switch outcome {
            case .success(let result):
                if let journal {
                    // Not being able to write the line costs a re-run this photo again, no more.
                    _ = try? await runBlocking(on: .short) { _ in
                        try journal.recordFinished(
                            index: photo.index, input: photo.request.inputPath, outputs: result.outputs)
                    }
                }
                end(photo.index, .converted(result))
            case .failure(let error) where error.category == .cancelled:
                end(photo.index, .cancelled)
            case .failure(let error):
                end(photo.index, .failed(error))
            }
        }
    }

    /// Converts one photo: its start line (durable, naming its destination) first.
    private static func convert(
        _ photo: Pending, jobs: Int, total: Int, limits: ConversionLimits, journal: BatchJournal?,
        progress: BatchProgressTracker
    ) async -> Result<JobResult, ConvertError> {
        if let journal, let destination = photo.request.outputPath {
            do throws(ConvertError) {
                try await runBlocking(on: .short) { _ in
                    try journal.recordStarted(
                        index: photo.index, input: photo.request.inputPath, destination: destination)
                }
            } catch  where error.category == .device {
                // A full disk fails the photo, as its output would; any other journal failure
                // costs at most a re-run converting it again.
                return .failure(error)
            } catch {}
        }
        var request = photo.request
        if request.decodingThreads == nil {
            // As the CLI's batches: tile threads balanced against the photos converting at once,
            // the last photos, with cores left idle, getting them back.
            request.decodingThreads = DecodingThreads.perPhoto(jobs: jobs, items: total - photo.index)
        }
        do throws(ConvertError) {
            let result = try await PhotoConverter.convert(request, limits: limits).result { job in
                progress.update(photo.index, job.fraction)
            }
            return .success(result)
        } catch {
            return .failure(error)
        }
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
