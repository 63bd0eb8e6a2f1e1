import ConvertCore
import FoundationEssentials

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
/// and its input has the recorded size and modification time. A batch that succeeded keeps its
/// journal, marked complete, so running the same command again skips what it made instead of
/// converting everything again into `photo (2).jpg`; after failures it stays too, so a re-run
/// retries only what failed. Journals untouched for ``retention`` are removed.
///
/// While a batch runs it holds an exclusive lock on its journal: the same batch started twice
/// at once fails with `batch.running` instead of converting everything twice.
///
/// Every line is also appended to a mirror (`NAME.mirror`, never flushed on its own), and each
/// finished output is recorded with its size and a digest of its content (``ContentDigest``). A
/// journal that was truncated, edited or garbled is told from its mirror (``isDamaged``); the
/// items either one records, whose outputs are still there with that content, count as done,
/// so a damaged journal never makes a re-run convert them again into `photo (2).jpg`.
package final class BatchJournal: Sendable {
    /// One item: finished, or (with ``started`` set) begun, with its planned destination.
    package struct Entry: Codable, Equatable {
        package var index: Int
        package var input: String
        var inputSize: Int64
        var inputModified: Double
        package var outputs: [Output]
        /// When the item started (seconds since 1970); nil on a finished entry.
        package var started: Double?
        /// The input made absolute, so other batches of the same recipe recognise it.
        var absoluteInput: String?
    }

    /// An output as recorded.
    package struct Output: Codable, Equatable {
        package var path: String
        package var bytes: Int64
        /// The ``ContentDigest`` of the output as written; nil in journals from before digests.
        var digest: String?

        /// Whether the file at ``path`` is still this output: its size and, when recorded, its
        /// content digest.
        func isPresent() -> Bool {
            guard let (size, _) = BatchJournal.fingerprint(path), size == bytes else { return false }
            return digest == nil || ContentDigest.of(path) == digest
        }
    }

    /// The journal file.
    package let path: String
    /// Its mirror, holding the same lines.
    package let mirrorPath: String
    private let descriptor: Int32
    private let mirrorDescriptor: Int32
    private let entries: [Int: Entry]
    /// The mirror's entries, tried when the journal's do not match the outputs.
    private let mirrored: [Int: Entry]
    /// Whether the journal or its mirror was found truncated, edited or garbled.
    package let isDamaged: Bool
    /// The key the free tier charges this batch under: its journal's name and the id of its
    /// run, so finishing an interrupted run is found charged, while running a completed batch
    /// again (to remake deleted outputs), or one whose journal was deleted or restarted, is a
    /// new conversion.
    package let chargeKey: String
    /// Finished items of other batches with the same recipe (from their journals and mirrors),
    /// by absolute input path.
    private let earlier: [String: [Entry]]
    /// Every output those batches recorded, absolute.
    private let earlierOutputPaths: Set<String>

    /// How long a journal nobody touched is kept: a re-run weeks later is a new batch.
    fileprivate static let retention: TimeInterval = 30 * 24 * 3600

    /// Opens (or, with `resume: false`, restarts) the journal of the batch described by
    /// `identity`, in `stateDirectory` (the default state folder when nil). With
    /// `restartIfComplete` (`--overwrite`), a batch that had completed starts over, while an
    /// interrupted one still resumes. `recipe` is the part of the identity that shapes outputs
    /// (command, options, output folder), without the inputs: batches of the same recipe see
    /// each other's finished items, so `heic-to-jpg *` run again in a folder that now also
    /// holds its JPEGs skips both the photos it converted and the JPEGs it made.
    package init(
        identity: [String], recipe: [String] = [], stateDirectory: String? = nil, resume: Bool = true,
        restartIfComplete: Bool = false
    ) throws(ConvertError) {
        let base = stateDirectory ?? StateDirectory.defaultPath(environment: ProcessInfo.processInfo.environment)
        // The state folder is checked (a folder, not a link) before anything is created in it.
        _ = try StateDirectory(path: base)
        let folder = try StateDirectory(path: base + "/batches")
        // Identity parts are joined with NUL, which no path or option contains.
        // Named command, recipe, identity: batches of the same command (whatever its options)
        // never take each other's outputs as inputs; those of the same recipe also skip the
        // inputs the other converted.
        guard let digest = Crypto.sha256(Array(identity.joined(separator: "\u{0}").utf8)),
            let recipeDigest = Crypto.sha256(Array(recipe.joined(separator: "\u{0}").utf8)),
            let commandDigest = Crypto.sha256(Array((recipe.first ?? "").utf8))
        else {
            throw ConvertError(code: .internalError, message: "Could not name the batch journal.")
        }
        let commandPrefix = String(Crypto.hex(commandDigest).prefix(8)) + "-"
        let prefix = commandPrefix + String(Crypto.hex(recipeDigest).prefix(16)) + "-"
        let name = prefix + Crypto.hex(digest)
        path = folder.file(name + ".journal")
        mirrorPath = folder.file(name + ".mirror")
        descriptor = try Self.openLocked(path)
        do { mirrorDescriptor = try Self.open(mirrorPath) } catch {
            flock(descriptor, LOCK_UN)
            close(descriptor)
            throw error
        }
        Self.endTornLine(descriptor)
        Self.endTornLine(mirrorDescriptor)
        Self.removeExpired(in: folder.path, keeping: path)
        var journal = BatchJournalLog.read(path)
        var mirror = BatchJournalLog.read(mirrorPath)
        if !resume || (journal.complete && restartIfComplete) {
            _ = ftruncate(descriptor, 0)
            _ = ftruncate(mirrorDescriptor, 0)
            (journal, mirror) = (BatchJournalLog(), BatchJournalLog())
        }
        entries = journal.entries
        mirrored = mirror.entries
        isDamaged = journal.unreadable > 0 || mirror.unreadable > 0 || mirror.isMissing(from: journal)
        chargeKey = name + ":" + (Self.continuingRun(journal, mirror) ?? Self.startRun(descriptor, mirrorDescriptor))
        (earlier, earlierOutputPaths) =
            resume && !restartIfComplete
            ? Self.loadSiblings(in: folder.path, command: commandPrefix, recipe: prefix, except: path) : ([:], [])
    }

    /// The id of the run the journal and its mirror say is still going: the journal's latest,
    /// else the mirror's, unless either records that run complete.
    private static func continuingRun(_ journal: BatchJournalLog, _ mirror: BatchJournalLog) -> String? {
        guard let run = journal.run ?? mirror.run else { return nil }
        let completed = (journal.run == run && journal.runComplete) || (mirror.run == run && mirror.runComplete)
        return completed ? nil : run
    }

    /// Starts a run with a fresh random id, recorded in the journal and its mirror. The line is
    /// not flushed here: the first item's start line is (``recordStarted(index:input:destination:)``
    /// flushes the journal, this line with it), and nothing is charged under the run before an
    /// item has started, so the id is on disk before any charge that names it, with one disk
    /// sync fewer per command. If it cannot be recorded the run still gets its id: the next run
    /// then starts anew and is charged again, which fails closed.
    private static func startRun(_ journal: Int32, _ mirror: Int32) -> String {
        var generator = SystemRandomNumberGenerator()
        let run = String(generator.next() as UInt64, radix: 16) + String(generator.next() as UInt64, radix: 16)
        guard let json = try? JSONEncoder().encode(BatchJournalLog.RunMarker(run: run)) else { return run }
        let line = Array(json) + [UInt8(ascii: "\n")]
        _ = line.withUnsafeBytes { write(journal, $0.baseAddress, $0.count) }
        _ = line.withUnsafeBytes { write(mirror, $0.baseAddress, $0.count) }
        return run
    }

    /// Opens the journal at `path` and takes its lock; `batch.running` when another process has it.
    private static func openLocked(_ path: String) throws(ConvertError) -> Int32 {
        let fd = try open(path)
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            close(fd)
            throw ConvertError(
                code: .batchRunning,
                message: "The same batch is already running in another offconvert process.", path: path)
        }
        return fd
    }

    /// Opens (creating) the journal file at `path` for appending.
    private static func open(_ path: String) throws(ConvertError) -> Int32 {
        guard
            let fd = try StateDirectory.openRegular(
                path, flags: O_RDWR | O_CREAT | O_APPEND, action: "open the batch journal")
        else { throw ConvertError.fileSystem(ENOENT, action: "open the batch journal", path: path) }
        return fd
    }

    // Unlocked before it is closed: a child process another thread is spawning may hold a copy of
    // the descriptor until its exec closes it, and the lock belongs to the open file, so closing
    // ours alone left the batch locked for that moment (a re-run in the test runner, which spawns
    // processes all the time, once failed with batch.running).
    deinit {
        flock(descriptor, LOCK_UN)
        close(descriptor)
        close(mirrorDescriptor)
    }

    /// Releases the batch's lock now, so the same batch can start again at once. Without it the
    /// lock lasts as long as the journal object, and one captured by a task can outlive the
    /// batch by a moment (the task's context is freed after its awaiter resumes), making an
    /// immediate re-run fail with `batch.running`. Nothing may be recorded afterwards.
    package func release() {
        flock(descriptor, LOCK_UN)
    }

    /// How many items the journal lists as finished.
    var finishedCount: Int { entries.values.filter { $0.started == nil }.count }

    /// The outputs of item `index` if the journal, or else its mirror, records it done and
    /// nothing changed since (see ``completedOutputs(of:input:)``).
    package func completedOutputs(index: Int, input: String) -> [OutputFile]? {
        if let entry = entries[index], let outputs = Self.completedOutputs(of: entry, input: input) { return outputs }
        if let entry = mirrored[index], entry != entries[index] {
            return Self.completedOutputs(of: entry, input: input)
        }
        return nil
    }

    /// The outputs of `entry` if it finished in an earlier run and nothing changed since: same
    /// input path, size and modification time; every output still present with its size and
    /// content.
    ///
    /// An item that was started but whose finish was not recorded counts as done when its planned
    /// destination now exists and was written after the start: outputs only appear, complete,
    /// when a conversion commits them, so the crash fell between that commit and the journal.
    private static func completedOutputs(of entry: Entry, input: String) -> [OutputFile]? {
        guard entry.input == input, let (size, modified) = Self.fingerprint(input),
            entry.inputSize == size, entry.inputModified == modified
        else { return nil }
        if let started = entry.started {
            // The inode's change time, not its modification time: a finished output is given its
            // source's modification time (FileStamp), which may be years before the start; the
            // change time is the commit's (or that stamp's) and cannot be set back. One second
            // of slack for file systems with coarse timestamps.
            guard let destination = entry.outputs.first?.path, let (bytes, changed) = Self.changeStamp(destination),
                changed >= started - 1
            else { return nil }
            return [OutputFile(path: destination, byteCount: bytes)]
        }
        guard entry.outputs.allSatisfy({ $0.isPresent() }) else { return nil }
        return entry.outputs.map { OutputFile(path: $0.path, byteCount: $0.bytes) }
    }

    /// The outputs an earlier batch of the same recipe made from `input`, if its input is
    /// unchanged and they are all still there.
    package func earlierOutputs(for input: String) -> [OutputFile]? {
        guard let (size, modified) = Self.fingerprint(input) else { return nil }
        for entry in earlier[Self.absolute(input)] ?? []
        where entry.inputSize == size && entry.inputModified == modified && entry.outputs.allSatisfy({ $0.isPresent() })
        {
            return entry.outputs.map { OutputFile(path: $0.path, byteCount: $0.bytes) }
        }
        return nil
    }

    /// Whether `input` is an output an earlier batch of the same recipe made.
    package func isEarlierOutput(_ input: String) -> Bool {
        earlierOutputPaths.contains(Self.absolute(input))
    }

    /// Records that item `index` is starting and will write `destination`; durable before it
    /// returns (with every line before it, the run's own among them), so a crash right after the
    /// output is committed cannot make a re-run convert the item again under a new name.
    package func recordStarted(index: Int, input: String, destination: String) throws(ConvertError) {
        let (size, modified) = Self.fingerprint(input) ?? (-1, 0)
        try append(
            Entry(
                index: index, input: input, inputSize: size, inputModified: modified,
                outputs: [Output(path: destination, bytes: -1)], started: Date().timeIntervalSince1970,
                absoluteInput: Self.absolute(input)))
    }

    /// Records that item `index` finished with `outputs`. Not flushed: if a crash loses the line,
    /// the durable start line and the committed destination still mark the item done.
    package func recordFinished(index: Int, input: String, outputs: [OutputFile]) throws(ConvertError) {
        let (size, modified) = Self.fingerprint(input) ?? (-1, 0)
        try append(
            Entry(
                index: index, input: input, inputSize: size, inputModified: modified,
                outputs: outputs.map {
                    Output(path: Self.absolute($0.path), bytes: $0.byteCount, digest: ContentDigest.of($0.path))
                },
                absoluteInput: Self.absolute(input)),
            durable: false)
    }

    private func append(_ entry: Entry, durable: Bool = true) throws(ConvertError) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        guard let json = try? encoder.encode(entry) else {
            throw ConvertError(code: .internalError, message: "Could not record progress in the batch journal.")
        }
        try appendLine(Array(json) + [UInt8(ascii: "\n")], durable: durable)
    }

    /// Appends `line` to the journal (flushed when `durable`), then to its mirror (never flushed:
    /// a second copy to tell damage by, not a second disk sync per photo).
    private func appendLine(_ line: [UInt8], durable: Bool) throws(ConvertError) {
        // One write per line: with O_APPEND the line lands whole at the end.
        let written = line.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        guard written == line.count else { throw ConvertError.fileSystem(errno, action: "write", path: path) }
        guard !durable || fdatasync(descriptor) == 0 else {
            throw ConvertError.fileSystem(errno, action: "write", path: path)
        }
        let mirrored = line.withUnsafeBytes { write(mirrorDescriptor, $0.baseAddress, $0.count) }
        guard mirrored == line.count else { throw ConvertError.fileSystem(errno, action: "write", path: mirrorPath) }
    }

    /// Ends the batch: when every item succeeded, marks the journal complete (a re-run then
    /// skips the items whose outputs are still there).
    package func end(allSucceeded: Bool) {
        guard allSucceeded, let json = try? JSONEncoder().encode(BatchJournalLog.CompleteMarker(complete: true)) else {
            return
        }
        try? appendLine(Array(json) + [UInt8(ascii: "\n")], durable: false)
    }

    /// Ends a line a crash left unfinished, so the next record starts a line of its own instead
    /// of being lost with the torn one.
    private static func endTornLine(_ fd: Int32) {
        var last: UInt8 = 0
        let size = lseek(fd, 0, SEEK_END)
        guard size > 0, pread(fd, &last, 1, size - 1) == 1, last != UInt8(ascii: "\n") else { return }
        var newline = UInt8(ascii: "\n")
        _ = write(fd, &newline, 1)
    }

    /// Finished items of the journals in `folder` whose names start with `recipe` (the same
    /// recipe), other than `current`, by absolute input; and every output of those starting
    /// with `command` (the same command, any options).
    private static func loadSiblings(
        in folder: String, command: String, recipe prefix: String, except current: String
    ) -> ([String: [Entry]], Set<String>) {
        guard let names = FolderListing.names(in: folder) else { return ([:], []) }
        let currentMirror = PathText.deletingExtension(current) + ".mirror"
        var byInput: [String: [Entry]] = [:]
        var outputs: Set<String> = []
        // Mirrors too: a sibling whose journal was damaged is still known by its mirror.
        for name in names.sorted()
        where name.hasPrefix(command) && (name.hasSuffix(".journal") || name.hasSuffix(".mirror")) {
            let path = PathText.join(folder, name)
            guard path != current, path != currentMirror else { continue }
            let sameRecipe = name.hasPrefix(prefix)
            for entry in BatchJournalLog.read(path).entries.values where entry.started == nil {
                // Journals written before paths were canonical name them as typed.
                outputs.formUnion(entry.outputs.map { absolute($0.path) })
                guard sameRecipe, let input = entry.absoluteInput.map(absolute) else { continue }
                if byInput[input]?.contains(entry) != true { byInput[input, default: []].append(entry) }
            }
        }
        return (byInput, outputs)
    }

    /// `path` made absolute and canonical (symbolic links, `.`, `..` and doubled slashes
    /// resolved), so a file is known by one name however it was typed: `heic-to-jpg *.HEIC`
    /// and then `heic-to-jpg .` or `-r ..` name the same photos. The absolute path as typed when
    /// it cannot be resolved (a file no longer there).
    private static func absolute(_ path: String) -> String {
        let absolute = path.hasPrefix("/") ? path : PathText.join(FolderListing.currentFolder, path)
        return realpath(absolute) ?? absolute
    }

    /// Removes journals in `folder` not modified for ``retention`` (never `current`, nor one
    /// another process holds locked: a batch running for a month still has its journal).
    private static func removeExpired(in folder: String, keeping current: String) {
        guard let names = FolderListing.names(in: folder) else { return }
        let cutoff = Date().timeIntervalSince1970 - retention
        for name in names where name.hasSuffix(".journal") {
            let path = PathText.join(folder, name)
            guard path != current, let (_, modified) = fingerprint(path), modified < cutoff else { continue }
            let fd = Glibc.open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK)
            guard fd >= 0 else { continue }
            if flock(fd, LOCK_EX | LOCK_NB) == 0 {
                unlink(path)
                unlink(PathText.deletingExtension(path) + ".mirror")
            }
            close(fd)
        }
    }

    /// The size and inode change time (`st_ctim`) of `path`.
    private static func changeStamp(_ path: String) -> (Int64, Double)? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return (Int64(info.st_size), Double(info.st_ctim.tv_sec) + Double(info.st_ctim.tv_nsec) / 1e9)
    }

    /// Size and modification time (seconds, with nanoseconds) of `path`.
    package static func fingerprint(_ path: String) -> (Int64, Double)? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return (Int64(info.st_size), Double(info.st_mtim.tv_sec) + Double(info.st_mtim.tv_nsec) / 1e9)
    }
}
