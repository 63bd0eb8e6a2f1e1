/// Counts how often each watched file is read for one purpose, so a test can prove a count (not
/// a timing): a HEIF's structure (``HeifMeta`` built from it, ``HeifMeta/parses``; a libheif
/// context read from it, ``HeifContext/reads``) read once per conversion, or the motion-photo
/// check's own read of a path (``MotionPhoto/pathChecks``) never made when the conversion already
/// read what it needs. Only paths a caller asked to watch are counted: a long batch or `watch` run
/// keeps no record of its inputs.
package final class FileReadCounter: Sendable {
    private let counts = PthreadLocked<[String: Int]>([:])

    package init() {}

    /// Starts counting the parses of `path` (from zero).
    package func watch(_ path: String) {
        counts.withLock { $0[path] = 0 }
    }

    /// Stops counting `path` and returns how many parses it had.
    @discardableResult
    package func stopWatching(_ path: String) -> Int {
        counts.withLock { $0.removeValue(forKey: path) ?? 0 }
    }

    /// How many times `path` was parsed since ``watch(_:)``.
    package func parses(of path: String) -> Int {
        counts.withLock { $0[path] ?? 0 }
    }

    /// Records one parse of `source` when it is a watched file.
    func count(_ source: any ByteSource) {
        guard let path = (source as? FileByteSource)?.path else { return }
        count(path: path)
    }

    /// Records one read of the file at `path` when it is watched.
    func count(path: String) {
        counts.withLock { counts in
            if let count = counts[path] { counts[path] = count + 1 }
        }
    }
}
