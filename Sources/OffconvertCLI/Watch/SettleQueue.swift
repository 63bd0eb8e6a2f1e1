import ConvertBatch
import ConvertCore
import FoundationEssentials

/// Files waiting to be complete: a file counts as complete once its size and modification time
/// have not changed for the settle time. A file manager or `cp` closes a file once, but a
/// browser, a phone's transfer or `rsync --inplace` may write in pieces, closing and reopening
/// it: each close would otherwise start a conversion of half a file.
struct SettleQueue {
    private struct Waiting {
        var size: Int64
        var modified: Double
        var since: UInt64
    }

    /// How long a file must stay unchanged, in nanoseconds.
    let settle: UInt64
    private var waiting: [String: Waiting] = [:]
    /// Paths in the order they first arrived, so files are converted in that order.
    private var order: [String] = []

    init(settleMilliseconds: Int) {
        settle = UInt64(settleMilliseconds) * 1_000_000
    }

    var isEmpty: Bool { waiting.isEmpty }

    /// Adds `path`, or restarts its wait when it is there already (written to again).
    mutating func add(_ path: String, now: UInt64) {
        guard let (size, modified) = BatchJournal.fingerprint(path) else { return }
        if waiting[path] == nil { order.append(path) }
        waiting[path] = Waiting(size: size, modified: modified, since: now)
    }

    /// Takes out the files unchanged for the settle time, in arrival order. A file that
    /// changed starts its wait again; one that disappeared is dropped.
    mutating func ready(now: UInt64) -> [String] {
        var done: [String] = []
        for path in order {
            guard let entry = waiting[path] else { continue }
            guard let (size, modified) = BatchJournal.fingerprint(path) else {
                waiting[path] = nil
                continue
            }
            if size != entry.size || modified != entry.modified {
                waiting[path] = Waiting(size: size, modified: modified, since: now)
            } else if now - entry.since >= settle, size > 0 {
                waiting[path] = nil
                done.append(path)
            }
        }
        order.removeAll { waiting[$0] == nil }
        return done
    }
}
