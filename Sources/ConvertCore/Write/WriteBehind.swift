import FoundationEssentials

#if canImport(Glibc)
    import Glibc
#endif

/// Flushes a staged output to the disk in the background while it is still being written, so
/// that the `fsync` ``StagedOutput/commit(overwrite:renumber:)`` makes before the output is moved
/// into place has little left to wait for.
///
/// Nothing is made durable that was not before and nothing less: the commit still syncs the whole
/// file before it is moved into place. What changes is when the disk does the work. On a virtual
/// disk that caches writes, an `fsync` waits for everything written since the last one to be
/// flushed out of that cache (0.4 s for a 222 MB remux here, as long as the copy itself); flushing
/// each ``step`` as it is written, on a thread of the short lane while the writer goes on
/// producing, leaves the commit the last step. Starting write-back alone
/// (`sync_file_range(SYNC_FILE_RANGE_WRITE)`) did not help there: the wait is the flush, not the
/// write.
///
/// The writer calls ``poll()`` now and then (one `fstat` when nothing is due) and ``finish()``
/// when done. At most one flush runs at a time; one that fails is left to the commit's `fsync`,
/// which reports it.
///
/// `@unchecked Sendable`: the descriptor is set once; `flushedTo` and `running` are only touched
/// with `condition` locked.
package final class WriteBehind: @unchecked Sendable {
    /// How much the file grows between two flushes.
    package static let step: Int64 = 32 << 20

    private let descriptor: Int32
    private let condition = ThreadCondition()
    /// The file's size when the last flush started.
    private var flushedTo: Int64 = 0
    /// Whether a flush is running.
    private var running = false
    /// Flushes started (for tests).
    package private(set) var flushes = 0

    /// Opens the file at `path` for flushing; nil when it cannot be opened (the commit's `fsync`
    /// then does all the work, as without this).
    package init?(path: String) {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        self.descriptor = descriptor
    }

    deinit { close(descriptor) }

    /// Starts a flush on the short lane when the file has grown by ``step`` since the last one
    /// started and none is running.
    package func poll() {
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { return }
        let size = Int64(info.st_size)
        condition.lock()
        guard !running, size - flushedTo >= Self.step else {
            condition.unlock()
            return
        }
        running = true
        flushedTo = size
        flushes += 1
        condition.unlock()
        // The closure holds this object, so the descriptor stays open until the flush is over.
        BlockingExecutor.short.submit {
            _ = fdatasync(self.descriptor)
            self.condition.lock()
            self.running = false
            self.condition.broadcast()
            self.condition.unlock()
        }
    }

    /// Waits for a flush still running.
    package func finish() {
        condition.lock()
        while running { condition.wait() }
        condition.unlock()
    }
}
