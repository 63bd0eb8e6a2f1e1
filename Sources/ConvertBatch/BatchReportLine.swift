import ConvertCore
import FoundationEssentials

/// One line of a command's `--json` output: every command that works on files prints one of
/// these per event, one JSON object per line, and nothing else on stdout.
///
/// ## Schema (version 1, stable: keys are only ever added)
/// Every line has `"event"`; the other keys appear only when they apply.
///
/// | event      | keys                                                                  |
/// |------------|-----------------------------------------------------------------------|
/// | `started`  | `index`, `input`, `output` (the planned path)                          |
/// | `progress` | `index`, `input`, `stage` (`decode`, `encode`, `retry`…), `fraction` (0…1) |
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
package struct BatchReportLine: Codable, Sendable, Equatable {
    /// The error part of a `failed` line.
    package struct ErrorInfo: Codable, Sendable, Equatable {
        /// ``ConvertError/Category`` identifier.
        package var category: String
        /// ``ConvertError/key``.
        package var key: String
        /// ``ConvertError/message``.
        package var message: String

        /// The parts of `error` scripts branch on.
        package init(_ error: ConvertError) {
            category = error.category.identifier
            key = error.key
            message = error.message
        }
    }

    /// One output file of a `finished` line.
    package struct Output: Codable, Sendable, Equatable {
        /// Where it is.
        package var path: String
        /// Its size.
        package var bytes: Int64
    }

    /// What happened to location metadata in a finished item.
    package struct Privacy: Codable, Sendable, Equatable {
        /// `removed`, `kept` or `none found`.
        package var location: String

        /// The result's own fact, not its notes (which are words for people).
        package init(_ outcome: LocationOutcome) {
            location = outcome.rawValue
        }
    }

    /// `started`, `progress`, `finished`, `failed`, `skipped`, `planned` or `summary`.
    package var event: String
    /// The input's position in the batch.
    package var index: Int?
    /// The input path as given.
    package var input: String?
    /// The (first or planned) output path.
    package var output: String?
    /// The size of ``output``.
    package var bytes: Int64?
    /// Every output of a finished item.
    package var outputs: [Output]?
    /// Short facts about a finished item ("location removed").
    package var notes: [String]?
    /// The stable key of each of a finished item's ``notes``, in the same order
    /// (``JobNote/Code``: `image.pages-left-out`, ..., `fact` for any other).
    package var noteKeys: [String]?
    /// Whether location metadata was removed or kept in a finished item.
    package var privacy: Privacy?
    /// The stage of a `progress` line.
    package var stage: String?
    /// The fraction done of a `progress` line.
    package var fraction: Double?
    /// Why an item failed.
    package var error: ErrorInfo?
    /// Why an item was skipped (e.g. `already converted` when resuming).
    package var reason: String?
    /// Declared peak memory of a `planned` item.
    package var memoryBytes: Int64?
    /// Summary: items that succeeded.
    package var done: Int?
    /// `summary`: items that succeeded with nothing to write (`strip-location` on a file with no
    /// location); counted in `done` too.
    package var unchanged: Int?
    /// Summary: items that failed.
    package var failed: Int?
    /// Summary: items skipped.
    package var skipped: Int?
    /// `summary`: inputs set aside as not the command's kind (each had a `skipped` line
    /// without an `index`).
    package var setAside: Int?
    /// `summary`: sidecars and hidden files left alone (each had a `skipped` line with reason
    /// `sidecar`).
    package var ignored: Int?
    /// `summary` of a `--dry-run`: items that would be converted.
    package var planned: Int?
    /// Summary: items not converted because the batch was interrupted (never started, or
    /// cancelled while running; they are not counted as failed).
    package var unfinished: Int?
    /// Summary: whether SIGINT/SIGTERM stopped the batch.
    package var interrupted: Bool?
    /// Summary: bytes read from the inputs of converted items.
    package var bytesIn: Int64?
    /// Summary: bytes written to outputs.
    package var bytesOut: Int64?
    /// Summary: how long the batch took.
    package var seconds: Double?

    /// A line with only `event` set; use the factories below.
    package init(event: String) { self.event = event }

    /// An item started.
    package static func started(index: Int, input: String, output: String?) -> BatchReportLine {
        var line = BatchReportLine(event: "started")
        line.index = index
        line.input = input
        line.output = output
        return line
    }

    /// An item progressed.
    package static func progress(index: Int, input: String, _ progress: JobProgress) -> BatchReportLine {
        var line = BatchReportLine(event: "progress")
        line.index = index
        line.input = input
        line.stage = progress.stage.name
        line.fraction = progress.fraction
        return line
    }

    /// An item finished with `result`; each note is written as `wording` words it (a front end
    /// adds its own advice to the library's message).
    package static func finished(
        index: Int, input: String, _ result: JobResult, wording: (JobNote) -> String = \.message
    ) -> BatchReportLine {
        var line = BatchReportLine(event: "finished")
        line.index = index
        line.input = input
        line.output = result.outputs.first?.path
        line.bytes = result.outputs.first?.byteCount
        line.outputs = result.outputs.map { Output(path: $0.path, bytes: $0.byteCount) }
        line.notes = result.notes.map(wording)
        line.noteKeys = result.notes.map(\.code.rawValue)
        line.privacy = Privacy(result.location)
        return line
    }

    /// An item failed with `error`; without `index`/`input` the whole command failed.
    package static func failed(index: Int? = nil, input: String? = nil, _ error: ConvertError) -> BatchReportLine {
        var line = BatchReportLine(event: "failed")
        line.index = index
        line.input = input
        line.error = ErrorInfo(error)
        return line
    }

    /// Something about the whole batch worth knowing that is not an error, keyed by `reason`
    /// (`journal.damaged`).
    package static func warning(reason: String, message: String) -> BatchReportLine {
        var line = BatchReportLine(event: "warning")
        line.reason = reason
        line.notes = [message]
        return line
    }

    /// An item was skipped.
    package static func skipped(index: Int?, input: String, output: String?, reason: String) -> BatchReportLine {
        var line = BatchReportLine(event: "skipped")
        line.index = index
        line.input = input
        line.output = output
        line.reason = reason
        return line
    }

    /// `--dry-run`: what an item would do.
    package static func planned(index: Int, input: String, output: String, memoryBytes: Int64) -> BatchReportLine {
        var line = BatchReportLine(event: "planned")
        line.index = index
        line.input = input
        line.output = output
        line.memoryBytes = memoryBytes
        return line
    }

    /// The last line of a batch.
    package static func summary(
        done: Int, failed: Int, skipped: Int, unfinished: Int, interrupted: Bool, bytesIn: Int64 = 0,
        bytesOut: Int64 = 0,
        seconds: Double = 0,
        setAside: Int = 0, ignored: Int = 0, planned: Int? = nil, unchanged: Int? = nil
    ) -> BatchReportLine {
        var line = BatchReportLine(event: "summary")
        line.bytesIn = bytesIn
        line.bytesOut = bytesOut
        line.seconds = (seconds * 1000).rounded() / 1000
        line.done = done
        line.unchanged = unchanged
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
    package func jsonLine() -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // Encoding plain strings and numbers cannot fail; NaN fractions are clamped by JobProgress.
        guard let data = try? encoder.encode(self) else { return #"{"event":"\#(event)"}"# }
        return String(decoding: data, as: UTF8.self)
    }
}
