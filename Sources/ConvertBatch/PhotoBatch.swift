import ConvertCore
import FoundationEssentials

/// Many photos converted with one call, as the CLI converts `heic-to-jpg *.heic`: a queue that
/// starts photos in order while the memory they need together stays within a budget, one
/// progress for the whole batch, each photo's outcome as it ends, and resume from a journal the
/// app places where it wants.
///
/// ```swift
/// let requests = paths.map { PhotoRequest(inputPath: $0, format: .jpeg, outputDirectory: outbox) }
/// let batch = PhotoBatch(requests, memoryBudget: 512 << 20, journalFolder: stateFolder)
/// let items = try await batch.run(onProgress: { print(Int($0.fraction * 100), "%") })
/// ```
///
/// - **Memory**: each photo's peak is estimated from its header (``estimatedBytes(for:)``) and
///   photos start, in order, while the estimates of those converting add up to at most
///   ``memoryBudget``; a photo that needs more than the budget alone runs when nothing else does.
///   At most ``concurrency`` convert at once, on the ``ConversionLimits`` given to ``run(limits:onProgress:onItem:)``.
/// - **Resume**: with a ``journalFolder``, running the same batch again (the same requests, in
///   the same order) skips the photos an earlier run converted, even one killed mid-way
///   (`kill -9`): every photo ends up converted once, never as `photo (2).jpg`. The journal is a
///   file of JSON lines under `journalFolder/batches/`, named by a digest of the requests.
/// - **Names**: a request without an ``PhotoRequest/outputPath`` gets a fresh name in its
///   output folder before it starts (never an input, never an existing file, never another
///   photo's of the batch), so the journal can say where each photo goes.
/// - **Cancelling** the task that awaits ``run(limits:onProgress:onItem:)`` stops new photos
///   from starting and cancels those converting; their items end `.cancelled`, with nothing of
///   theirs left on disk.
///
/// Library conversions are never charged to the CLI's free tier.
public struct PhotoBatch: Sendable {
    /// The conversions, one a photo, in the order they start.
    public var requests: [PhotoRequest]
    /// The most memory, in bytes, the photos converting at once may need together.
    public var memoryBudget: Int64
    /// The most photos converting at once.
    public var concurrency: Int
    /// Where the resume journal is kept (created when missing); nil: no journal, and a run again
    /// converts everything again.
    public var journalFolder: String?

    /// A batch of `requests`; `memoryBudget` defaults to ``defaultMemoryBudget``, `concurrency`
    /// to the number of cores. Both must be positive.
    public init(
        _ requests: [PhotoRequest], memoryBudget: Int64? = nil, concurrency: Int? = nil, journalFolder: String? = nil
    ) {
        self.requests = requests
        self.memoryBudget = memoryBudget ?? Self.defaultMemoryBudget
        self.concurrency = concurrency ?? ProcessInfo.processInfo.activeProcessorCount
        self.journalFolder = journalFolder
        precondition(self.memoryBudget > 0, "a batch's memory budget must be positive")
        precondition(self.concurrency > 0, "a batch must be able to convert at least one photo at a time")
    }

    /// The budget the CLI uses without `--memory-budget`: half the memory available to the
    /// process (its cgroup's limit when it has one), at least 256 MiB.
    public static var defaultMemoryBudget: Int64 { BatchScheduler.defaultBudget() }

    /// The peak memory, in bytes, of converting `request`'s photo, from its header: what the
    /// queue admits it by. A file whose header cannot be read is estimated at 0 (it fails at
    /// once).
    public static func estimatedBytes(for request: PhotoRequest) async -> Int64 {
        await estimate(request).cost
    }

    /// The estimate and the input as read for it, which the conversion takes over.
    static func estimate(_ request: PhotoRequest) async -> PhotoMemoryEstimate.Estimate {
        let path = request.inputPath
        return (try? await runBlocking(on: .short) { _ in PhotoMemoryEstimate.estimate(path: path, request: request) })
            ?? PhotoMemoryEstimate.Estimate(cost: 0, photo: nil)
    }

    /// Converts the batch and returns every photo's item, in the order of ``requests``.
    ///
    /// `onItem` gets each photo's item as it ends (photos an earlier run converted first);
    /// `onProgress` the whole batch's progress as it moves. Both are called from the engine's
    /// threads, one call at a time for each. Throws only when the journal cannot be opened:
    /// `batch.running` when the same batch is running in another process with the same
    /// journal folder, or a file-system error; a photo that fails is an item, not a throw.
    public func run(
        limits: ConversionLimits = .shared, onProgress: @escaping @Sendable (BatchProgress) -> Void = { _ in },
        onItem: @escaping @Sendable (PhotoBatchItem) -> Void = { _ in }
    ) async throws(ConvertError) -> [PhotoBatchItem] {
        let journal = try await openJournal()
        defer { journal?.release() }
        var run = PhotoBatchRun(batch: self, journal: journal, onProgress: onProgress, onItem: onItem)
        let pending = await run.plan()
        await run.convert(pending, limits: limits)
        return run.finish()
    }

    /// The batch's journal in ``journalFolder``, or nil without one.
    private func openJournal() async throws(ConvertError) -> BatchJournal? {
        guard let journalFolder else { return nil }
        let recipe = ["photo-batch"]
        let identity = recipe + requests.map(Self.identity)
        return try await runBlocking(on: .short) { _ in
            try BatchJournal(identity: identity, recipe: recipe, stateDirectory: journalFolder)
        }
    }

    /// What makes `request` the same conversion in another run: every field but the input as
    /// already read and the decoding threads, which change how, not what.
    static func identity(_ request: PhotoRequest) -> String {
        var request = request
        request.probed = nil
        request.decodingThreads = nil
        return String(reflecting: request)
    }
}
