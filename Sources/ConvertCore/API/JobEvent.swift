/// A named phase of a job, shown to users next to the progress fraction.
///
/// An open set of stable identifiers (`"queue"`, `"decode"`, `"encode"`, `"retry"`, ...).
public struct JobStage: Hashable, Sendable, CustomStringConvertible {
    /// The stage's short, stable name.
    public let name: String

    /// Creates a stage with a short, stable name.
    public init(_ name: String) { self.name = name }

    /// Waiting for the job's turn: more jobs were started than ``ConversionLimits/concurrentConversions``
    /// lets run at once. Reported (at fraction 0) only by a job that has to wait.
    public static let queued = JobStage("queue")
    /// Reading headers and planning.
    public static let probing = JobStage("probe")
    /// Decoding the input.
    public static let decoding = JobStage("decode")
    /// Encoding the output (a single pass).
    public static let encoding = JobStage("encode")
    /// Copying packets without re-encoding.
    public static let remuxing = JobStage("remux")
    /// Writing and moving the finished file into place.
    public static let writing = JobStage("write")
    /// Encoding again after a result came out over a size target.
    public static let retrying = JobStage("retry")

    public var description: String { name }
}

/// Progress of one job: the stage it is in and the fraction of the whole job done.
public struct JobProgress: Sendable, Equatable {
    /// The current stage.
    public var stage: JobStage
    /// Fraction of the whole job done, 0...1. It never goes backwards within a job.
    public var fraction: Double

    /// Creates a progress value; `fraction` is clamped to 0...1.
    public init(stage: JobStage, fraction: Double) {
        self.stage = stage
        self.fraction = min(max(fraction.isFinite ? fraction : 0, 0), 1)
    }
}

/// One file a job wrote.
public struct OutputFile: Sendable, Equatable {
    /// Where the output now is.
    public var path: String
    /// Its size in bytes.
    public var byteCount: Int64

    /// Creates an output record.
    public init(path: String, byteCount: Int64) {
        self.path = path
        self.byteCount = byteCount
    }
}

/// What a successful job produced.
public struct JobResult: Sendable, Equatable {
    /// The input the job read.
    public var inputPath: String
    /// The files written, in order (usually one).
    public var outputs: [OutputFile]
    /// Facts worth telling the user ("location removed", "3 pages; the first kept"), each with a
    /// stable ``JobNote/code`` and a message that names no command-line option.
    public var notes: [JobNote]
    /// What happened to the source's location metadata.
    public var location: LocationOutcome

    /// Creates a result.
    public init(inputPath: String, outputs: [OutputFile], notes: [JobNote] = [], location: LocationOutcome = .noneFound)
    {
        self.inputPath = inputPath
        self.outputs = outputs
        self.notes = notes
        self.location = location
    }
}

/// An event of a job's stream: any number of `.progress`, then exactly one terminal event
/// (`.finished` or `.failed`), after which the stream ends.
public enum JobEvent: Sendable, Equatable {
    /// The job advanced.
    case progress(JobProgress)
    /// The job succeeded; its outputs are in place.
    case finished(JobResult)
    /// The job failed or was cancelled; nothing it started writing is left behind.
    case failed(ConvertError)

    /// Whether this event ends the stream.
    public var isTerminal: Bool {
        if case .progress = self { return false }
        return true
    }
}
