import Foundation

/// One line of a command's `--json` output: every command that works on files prints one of
/// these per event, one JSON object per line, and nothing else on stdout.
///
/// ## Schema (version 1, stable: keys are only ever added)
/// Every line has `"event"`; the other keys appear only when they apply.
///
/// | event      | keys                                                                  |
/// |------------|-----------------------------------------------------------------------|
/// | `started`  | `index`, `input`, `output` (the planned path)                          |
/// | `progress` | `index`, `input`, `stage` (`decode`, `encode`, `pass 1/2`…), `fraction` (0…1) |
/// | `finished` | `index`, `input`, `output`, `bytes`, `outputs` (all `{path, bytes}`), `notes`, `privacy` `{location}` |
/// | `failed`   | `index`, `input`, `error` `{category, key, message}`                   |
/// | `skipped`  | `index`, `input`, `output` (when known), `reason`                     |
/// | `planned`  | `index`, `input`, `output`, `memoryBytes` (`--dry-run`)               |
/// | `summary`  | `done`, `failed`, `skipped`, `unfinished`, `interrupted`, `bytesIn`, `bytesOut`, `seconds` (last line) |
///
/// `index` is the input's 0-based position in the batch (after `--shard`); `error.category` is
/// one of `input`, `unsupported`, `request`, `device`, `cancelled`, `allowance`, `internal` and
/// `error.key` a stable key such as `input.truncated` or `allowance.exhausted`. A command that
/// stops before any item (allowance used up, bad output folder) prints one `failed` line
/// without `index` and `input`. `privacy.location` is `removed`, `kept` or `none found`, for
/// photos and videos alike.
public struct BatchReportLine: Codable, Sendable, Equatable {
    /// The error part of a `failed` line.
    public struct ErrorInfo: Codable, Sendable, Equatable {
        /// ``ConvertError/Category`` identifier.
        public var category: String
        /// ``ConvertError/key``.
        public var key: String
        /// ``ConvertError/message``.
        public var message: String

        /// The parts of `error` scripts branch on.
        public init(_ error: ConvertError) {
            category = error.category.identifier
            key = error.key
            message = error.message
        }
    }

    /// One output file of a `finished` line.
    public struct Output: Codable, Sendable, Equatable {
        /// Where it is.
        public var path: String
        /// Its size.
        public var bytes: Int64
    }

    /// What happened to location metadata in a finished item.
    public struct Privacy: Codable, Sendable, Equatable {
        /// `removed`, `kept` or `none found`.
        public var location: String

        /// The result's own fact, not its notes (which are words for people).
        public init(_ outcome: LocationOutcome) {
            location = outcome.rawValue
        }
    }

    /// `started`, `progress`, `finished`, `failed`, `skipped`, `planned` or `summary`.
    public var event: String
    /// The input's position in the batch.
    public var index: Int?
    /// The input path as given.
    public var input: String?
    /// The (first or planned) output path.
    public var output: String?
    /// The size of ``output``.
    public var bytes: Int64?
    /// Every output of a finished item.
    public var outputs: [Output]?
    /// Short facts about a finished item ("location removed").
    public var notes: [String]?
    /// Whether location metadata was removed or kept in a finished item.
    public var privacy: Privacy?
    /// The stage of a `progress` line.
    public var stage: String?
    /// The fraction done of a `progress` line.
    public var fraction: Double?
    /// Why an item failed.
    public var error: ErrorInfo?
    /// Why an item was skipped (e.g. `already converted` when resuming).
    public var reason: String?
    /// Declared peak memory of a `planned` item.
    public var memoryBytes: Int64?
    /// Summary: items that succeeded.
    public var done: Int?
    /// Summary: items that failed.
    public var failed: Int?
    /// Summary: items skipped.
    public var skipped: Int?
    /// `summary`: inputs set aside as not the command's kind (each had a `skipped` line
    /// without an `index`).
    public var setAside: Int?
    /// `summary`: sidecars and hidden files left alone (each had a `skipped` line with reason
    /// `sidecar`).
    public var ignored: Int?
    /// `summary` of a `--dry-run`: items that would be converted.
    public var planned: Int?
    /// Summary: items not converted because the batch was interrupted (never started, or
    /// cancelled while running; they are not counted as failed).
    public var unfinished: Int?
    /// Summary: whether SIGINT/SIGTERM stopped the batch.
    public var interrupted: Bool?
    /// Summary: bytes read from the inputs of converted items.
    public var bytesIn: Int64?
    /// Summary: bytes written to outputs.
    public var bytesOut: Int64?
    /// Summary: how long the batch took.
    public var seconds: Double?

    /// A line with only `event` set; use the factories below.
    public init(event: String) { self.event = event }

    /// An item started.
    public static func started(index: Int, input: String, output: String?) -> BatchReportLine {
        var line = BatchReportLine(event: "started")
        line.index = index
        line.input = input
        line.output = output
        return line
    }

    /// An item progressed.
    public static func progress(index: Int, input: String, _ progress: JobProgress) -> BatchReportLine {
        var line = BatchReportLine(event: "progress")
        line.index = index
        line.input = input
        line.stage = progress.stage.name
        line.fraction = progress.fraction
        return line
    }

    /// An item finished with `result`.
    public static func finished(index: Int, input: String, _ result: JobResult) -> BatchReportLine {
        var line = BatchReportLine(event: "finished")
        line.index = index
        line.input = input
        line.output = result.outputs.first?.path
        line.bytes = result.outputs.first?.byteCount
        line.outputs = result.outputs.map { Output(path: $0.path, bytes: $0.byteCount) }
        line.notes = result.notes
        line.privacy = Privacy(result.location)
        return line
    }

    /// An item failed with `error`; without `index`/`input` the whole command failed.
    public static func failed(index: Int? = nil, input: String? = nil, _ error: ConvertError) -> BatchReportLine {
        var line = BatchReportLine(event: "failed")
        line.index = index
        line.input = input
        line.error = ErrorInfo(error)
        return line
    }

    /// An item was skipped.
    public static func skipped(index: Int?, input: String, output: String?, reason: String) -> BatchReportLine {
        var line = BatchReportLine(event: "skipped")
        line.index = index
        line.input = input
        line.output = output
        line.reason = reason
        return line
    }

    /// `--dry-run`: what an item would do.
    public static func planned(index: Int, input: String, output: String, memoryBytes: Int64) -> BatchReportLine {
        var line = BatchReportLine(event: "planned")
        line.index = index
        line.input = input
        line.output = output
        line.memoryBytes = memoryBytes
        return line
    }

    /// The last line of a batch.
    public static func summary(
        done: Int, failed: Int, skipped: Int, unfinished: Int, interrupted: Bool, bytesIn: Int64 = 0, bytesOut: Int64 = 0,
        seconds: Double = 0,
        setAside: Int = 0, ignored: Int = 0, planned: Int? = nil
    ) -> BatchReportLine {
        var line = BatchReportLine(event: "summary")
        line.bytesIn = bytesIn
        line.bytesOut = bytesOut
        line.seconds = (seconds * 1000).rounded() / 1000
        line.done = done
        line.setAside = setAside
        line.ignored = ignored
        line.planned = planned
        line.failed = failed
        line.skipped = skipped
        line.unfinished = unfinished
        line.interrupted = interrupted
        return line
    }

    /// The line as compact JSON with sorted keys, without the newline.
    public func jsonLine() -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // Encoding plain strings and numbers cannot fail; NaN fractions are clamped by JobProgress.
        guard let data = try? encoder.encode(self) else { return #"{"event":"\#(event)"}"# }
        return String(decoding: data, as: UTF8.self)
    }
}
