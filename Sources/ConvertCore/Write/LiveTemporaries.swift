#if canImport(Glibc)
    import Glibc
#endif

/// The staged temporary files this process is writing right now.
///
/// A C encoder cannot be interrupted (x265 encoding a 12 MP HEIC runs for half a minute), and
/// Ctrl-C must not wait for it. When the command exits without waiting for its conversions (a
/// second Ctrl-C, or the first when they do not stop within a moment), it removes these first,
/// so no `.partial` file is left behind even then.
package enum LiveTemporaries {
    private static let paths = PthreadLocked<Set<String>>([])

    /// Records a temporary file being written.
    package static func add(_ path: String) {
        _ = paths.withLock { $0.insert(path) }
    }

    /// Forgets a temporary file that was committed or removed.
    package static func remove(_ path: String) {
        _ = paths.withLock { $0.remove(path) }
    }

    /// The temporaries being written now.
    package static var current: Set<String> { paths.withLock { $0 } }

    /// Removes every temporary still being written, for an exit that does not wait for their
    /// writers; returns how many there were.
    @discardableResult
    package static func removeAll() -> Int {
        paths.withLock { paths in
            for path in paths { unlink(path) }
            defer { paths.removeAll() }
            return paths.count
        }
    }
}
