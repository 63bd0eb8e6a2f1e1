import ConvertCore

/// How one photo of a ``PhotoBatch`` ended.
public struct PhotoBatchItem: Sendable {
    /// What happened to the photo.
    public enum Outcome: Sendable {
        /// Converted now: its outputs and notes.
        case converted(JobResult)
        /// Converted by an earlier run of the same batch (its journal says so, and the outputs
        /// are still there as written): nothing was done again.
        case alreadyDone([OutputFile])
        /// Not converted, with why; the batch went on with the other photos.
        case failed(ConvertError)
        /// Not converted because the batch was cancelled before or while it ran.
        case cancelled
    }

    /// The photo's position in ``PhotoBatch/requests``.
    public var index: Int
    /// Its input, as its request named it.
    public var inputPath: String
    /// How it ended.
    public var outcome: Outcome

    /// Creates an item.
    public init(index: Int, inputPath: String, outcome: Outcome) {
        self.index = index
        self.inputPath = inputPath
        self.outcome = outcome
    }

    /// The photo's outputs, now or from the earlier run; none when it failed or was cancelled.
    public var outputs: [OutputFile] {
        switch outcome {
        case .converted(let result): result.outputs
        case .alreadyDone(let outputs): outputs
        case .failed, .cancelled: []
        }
    }
}
