import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// The resume journal of one batch: which items are finished, so that running the same command
/// again after a crash (even `kill -9`) finishes the rest without redoing or duplicating them.
///
/// A journal lives in the state folder (`$XDG_STATE_HOME/offconvert/batches/`), named by the
/// SHA-256 of the batch's identity (the command, the options that shape its outputs, the inputs
/// in order and the output folder), so only the very same command resumes it. It is an
/// append-only file of JSON lines, one when an item starts and one when it finishes, each written
/// whole with `O_APPEND`; a line torn by a crash is ignored. Only the start line is flushed
/// (`fdatasync`) before the item's output is committed: it names the destination, which is
/// enough to recognise the item as done after a crash, so the finish line needs no flush of its
/// own (one disk sync per photo instead of two).
/// An item counts as already done only if its outputs are still there with the recorded size
/// and its input has the recorded size and modification time. The journal is removed once the
/// whole batch succeeded; after failures it stays, so a re-run retries only what failed.
///
/// While a batch runs it holds an exclusive lock on its journal: the same batch started twice
/// at once fails with `batch.running` instead of converting everything twice.
public final class BatchJournal: Sendable {
    /// One item: finished, or (with ``started`` set) begun, with its planned destination.
    package struct Entry: Codable, Equatable {
        package var index: Int
        package var input: String
        package var inputSize: Int64
        package var inputModified: Double
        package var outputs: [Output]
        /// When the item started (seconds since 1970); nil on a finished entry.
        package var started: Double?
    }

    /// An output as recorded.
    package struct Output: Codable, Equatable {
        package var path: String
        package var bytes: Int64
    }

    /// The journal file.
    public let path: String
    private let descriptor: Int32
    private let entries: [Int: Entry]

    /// Opens (or, with `resume: false`, restarts) the journal of the batch described by
    /// `identity`, in `stateDirectory` (the default state folder when nil).
    public init(identity: [String], stateDirectory: String? = nil, resume: Bool = true) throws(ConvertError) {
        let base = stateDirectory ?? StateDirectory.defaultPath(environment: ProcessInfo.processInfo.environment)
        let folder = try StateDirectory(path: base + "/batches")
        // Identity parts are joined with NUL, which no path or option contains.
        guard let digest = Crypto.sha256(Array(identity.joined(separator: "\u{0}").utf8)) else {
            throw ConvertError(.internal, key: "internal", message: "Could not name the batch journal.")
        }
        path = folder.file(Crypto.hex(digest) + ".journal")
        guard let fd = try StateDirectory.openRegular(path, flags: O_RDWR | O_CREAT | O_APPEND, action: "open the batch journal")
        else { throw ConvertError.fileSystem(ENOENT, action: "open the batch journal", path: path) }
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            close(fd)
            throw ConvertError(
                .request, key: "batch.running",
                message: "The same batch is already running in another offconvert process.", path: path)
        }
        descriptor = fd
        if !resume { _ = ftruncate(fd, 0) }
        entries = Self.load(path)
    }

    deinit { close(descriptor) }

    /// Releases the batch's lock now, so the same batch can start again at once. Without it the
    /// lock lasts as long as the journal object, and one captured by a task can outlive the
    /// batch by a moment (the task's context is freed after its awaiter resumes), making an
    /// immediate re-run fail with `batch.running`. Nothing may be recorded afterwards.
    public func release() {
        flock(descriptor, LOCK_UN)
    }

    /// How many items the journal lists as finished.
    public var finishedCount: Int { entries.values.filter { $0.started == nil }.count }

    /// The outputs of item `index` if it finished in an earlier run and nothing changed since:
    /// same input path, size and modification time; every output still present with its size.
    ///
    /// An item that was started but whose finish was not recorded counts as done when its planned
    /// destination now exists and was written after the start: outputs only appear, complete,
    /// when a conversion commits them, so the crash fell between that commit and the journal.
    public func completedOutputs(index: Int, input: String) -> [OutputFile]? {
        guard let entry = entries[index], entry.input == input, let (size, modified) = Self.fingerprint(input),
            entry.inputSize == size, entry.inputModified == modified
        else { return nil }
        if let started = entry.started {
            // One second of slack for file systems with coarse timestamps.
            guard let destination = entry.outputs.first?.path, let (bytes, written) = Self.fingerprint(destination),
                written >= started - 1
            else { return nil }
            return [OutputFile(path: destination, byteCount: bytes)]
        }
        for output in entry.outputs {
            guard let (size, _) = Self.fingerprint(output.path), size == output.bytes else { return nil }
        }
        return entry.outputs.map { OutputFile(path: $0.path, byteCount: $0.bytes) }
    }

    /// Records that item `index` is starting and will write `destination`; durable before it
    /// returns, so a crash right after the output is committed cannot make a re-run convert the
    /// item again under a new name.
    public func recordStarted(index: Int, input: String, destination: String) throws(ConvertError) {
        let (size, modified) = Self.fingerprint(input) ?? (-1, 0)
        try append(Entry(
            index: index, input: input, inputSize: size, inputModified: modified,
            outputs: [Output(path: destination, bytes: -1)], started: Date().timeIntervalSince1970))
    }

    /// Records that item `index` finished with `outputs`. Not flushed: if a crash loses the line,
    /// the durable start line and the committed destination still mark the item done.
    public func recordFinished(index: Int, input: String, outputs: [OutputFile]) throws(ConvertError) {
        let (size, modified) = Self.fingerprint(input) ?? (-1, 0)
        try append(Entry(
            index: index, input: input, inputSize: size, inputModified: modified,
            outputs: outputs.map { Output(path: $0.path, bytes: $0.byteCount) }), durable: false)
    }

    private func append(_ entry: Entry, durable: Bool = true) throws(ConvertError) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        guard let json = try? encoder.encode(entry) else {
            throw ConvertError(.internal, key: "internal", message: "Could not record progress in the batch journal.")
        }
        let line = Array(json) + [UInt8(ascii: "\n")]
        // One write per line: with O_APPEND the line lands whole at the end.
        let written = line.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        guard written == line.count else { throw ConvertError.fileSystem(errno, action: "write", path: path) }
        guard !durable || fdatasync(descriptor) == 0 else { throw ConvertError.fileSystem(errno, action: "write", path: path) }
    }

    /// Ends the batch: removes the journal when every item succeeded, keeps it otherwise.
    public func end(allSucceeded: Bool) {
        if allSucceeded { unlink(path) }
    }

    private static func load(_ path: String) -> [Int: Entry] {
        guard let bytes = try? StateDirectory.readFile(path, limit: 64 << 20) else { return [:] }
        var entries: [Int: Entry] = [:]
        let decoder = JSONDecoder()
        for line in bytes.split(separator: UInt8(ascii: "\n")) {
            guard let entry = try? decoder.decode(Entry.self, from: Data(line)) else { continue }
            // A finished record is never replaced by a later start of the same item.
            if entry.started != nil, let known = entries[entry.index], known.started == nil { continue }
            entries[entry.index] = entry
        }
        return entries
    }

    /// Size and modification time (seconds, with nanoseconds) of `path`.
    package static func fingerprint(_ path: String) -> (Int64, Double)? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return (Int64(info.st_size), Double(info.st_mtim.tv_sec) + Double(info.st_mtim.tv_nsec) / 1e9)
    }
}
