import ConvertCore
import FoundationEssentials

/// What one journal file (the journal or its mirror) says: its entries by index, how many
/// times the batch completed, and how many lines could not be read.
struct BatchJournalLog {
    /// The latest entry of each item; a finished one is never replaced by a later start.
    var entries: [Int: BatchJournal.Entry] = [:]
    /// How many complete markers the file holds: each starts a new charge of the batch.
    var completions = 0
    /// Non-empty lines that are not a journal line: damage (an edit, a bad disk), or rarely
    /// a line a power cut tore.
    var unreadable = 0
    /// Whether the file exists and holds anything.
    var isEmpty = true
    /// The id of the latest run (``RunMarker``), nil when the file names none.
    var run: String?
    /// Whether a complete marker follows the latest run's marker: that run's charge is spent.
    var runComplete = false

    /// The line that marks a batch complete.
    struct CompleteMarker: Codable {
        var complete: Bool
    }

    /// The line that starts a run: a random id the free tier charges the batch under, written
    /// when a journal starts over, so deleting or restarting the journal is a new charge while
    /// resuming an interrupted run is not.
    struct RunMarker: Codable {
        var run: String
    }

    /// Reads the file at `path`; an empty log when it does not exist.
    static func read(_ path: String) -> BatchJournalLog {
        guard let bytes = try? StateDirectory.readFile(path, limit: 64 << 20) else { return BatchJournalLog() }
        return parse(bytes)
    }

    /// Parses journal lines.
    static func parse(_ bytes: [UInt8]) -> BatchJournalLog {
        var log = BatchJournalLog()
        log.isEmpty = bytes.isEmpty
        let decoder = JSONDecoder()
        for line in bytes.split(separator: UInt8(ascii: "\n")) {
            if let marker = try? decoder.decode(CompleteMarker.self, from: Data(line)) {
                if marker.complete {
                    log.completions += 1
                    log.runComplete = true
                }
                continue
            }
            if let marker = try? decoder.decode(RunMarker.self, from: Data(line)) {
                (log.run, log.runComplete) = (marker.run, false)
                continue
            }
            guard let entry = try? decoder.decode(BatchJournal.Entry.self, from: Data(line)) else {
                log.unreadable += 1
                continue
            }
            if entry.started != nil, let known = log.entries[entry.index], known.started == nil { continue }
            log.entries[entry.index] = entry
        }
        return log
    }

    /// Whether the batch was marked complete at least once.
    var complete: Bool { completions > 0 }

    /// Whether `journal` lost or changed what this log (its mirror, written after it) recorded:
    /// a finished item it lacks or records differently, or fewer completions.
    func isMissing(from journal: BatchJournalLog) -> Bool {
        if completions > journal.completions { return true }
        for (index, entry) in entries where entry.started == nil {
            guard let kept = journal.entries[index], kept == entry else { return true }
        }
        return false
    }
}
