import FoundationEssentials

#if canImport(Glibc)
    import Glibc
#endif

/// The temporary file an output is written to before it is moved into place.
///
/// It is created in the destination's folder (so the final move is an atomic rename on the same
/// file system), named `.NAME.offconvert-XXXXXX.partial` so a crash leaves something recognisable
/// for ``StagedOutput/removeStale(in:)``. Until ``commit(overwrite:)`` succeeds the destination is
/// untouched; an uncommitted stage is removed when it is discarded or deinitialised, so no code
/// path (error, cancellation) can leave a half-written output behind.
package final class StagedOutput {
    /// Suffix of every temporary output; used to find leftovers from a crash.
    static let partialSuffix = ".partial"
    package static let marker = ".offconvert-"
    /// Suffix of the locked statistics owner file that two-pass encodes of earlier versions left
    /// beside an output when killed; stale-file cleanup still removes those and the files named
    /// after it (compress now writes nothing but its staged output).
    package static let statsSuffix = ".x264"

    /// 0666 minus the process umask, read once. Linux reports the umask in /proc/self/status;
    /// `umask()` can only read it by setting it, which changes it process-wide for a moment
    /// while other threads may be creating files, so it is the last resort.
    fileprivate static let outputMode: mode_t = 0o666 & ~(processUmask() ?? swappedUmask())

    private static func processUmask() -> mode_t? {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("Umask:") }),
            let mask = mode_t(line.dropFirst("Umask:".count).trimmingWhitespace(), radix: 8)
        else { return nil }
        return mask
    }

    private static func swappedUmask() -> mode_t {
        let mask = umask(0o022)
        umask(mask)
        return mask
    }

    /// Where the output goes once complete.
    package let destination: String
    /// The temporary file codecs write to.
    package let temporaryPath: String
    private var finished = false
    /// Open on the temporary file for as long as the stage lives; carries its lock.
    private let lockDescriptor: Int32

    /// Creates the temporary file next to `destination`.
    package init(destination: String) throws(ConvertError) {
        self.destination = destination
        let directory = PathText.parent(destination)
        let name = PathText.lastComponent(destination)
        let template = directory + "/." + name + Self.marker + "XXXXXX" + Self.partialSuffix
        var bytes = PathEncoding.cString(template)
        let fd = bytes.withUnsafeMutableBufferPointer { buffer in
            mkstemps(buffer.baseAddress!, Int32(Self.partialSuffix.utf8.count))
        }
        guard fd >= 0 else {
            throw ConvertError.fileSystem(errno, action: "create the output file in", path: directory)
        }
        // mkstemps creates the file 0600; the finished output gets the permissions any new file of
        // this user would get, so no caller has to remember a chmod before committing.
        guard fchmod(fd, Self.outputMode) == 0 else {
            let code = errno
            close(fd)
            unlink(PathEncoding.decode(nulTerminated: bytes))
            throw ConvertError.fileSystem(code, action: "create the output file in", path: directory)
        }
        // Locked before anyone else can know the name matters: mkstemps just created it.
        _ = flock(fd, LOCK_EX | LOCK_NB)
        lockDescriptor = fd
        temporaryPath = PathEncoding.decode(nulTerminated: bytes)
        LiveTemporaries.add(temporaryPath)
    }

    deinit {
        if !finished { unlink(temporaryPath) }
        LiveTemporaries.remove(temporaryPath)
        close(lockDescriptor)
    }

    /// Flushes the temporary file to disk and moves it to ``destination``.
    ///
    /// Without `overwrite`, an existing destination is never replaced: the move is a hard link,
    /// which fails if the name is taken, so two processes cannot clobber each other's output.
    /// When the name was chosen automatically (`renumber`), a name taken since it was chosen
    /// (by a concurrent job converting a file of the same name into the same folder, here or in
    /// another process) is numbered around as the namer would have: `photo (2).jpg`, then
    /// `photo (3).jpg`, ...; otherwise the commit fails with `output.exists`. The returned file
    /// has the path actually used.
    ///
    /// `gate`, when given, is called just before the move (the free tier charges there) and told
    /// once the output is in place; every caller names it, so none can forget to pass one on.
    @discardableResult
    package func commit(overwrite: Bool = false, renumber: Bool = false, gate: (any PlacementGate)?)
        throws(ConvertError)
        -> OutputFile
    {
        precondition(!finished, "a staged output is committed at most once")
        let fd = open(temporaryPath, O_RDONLY)
        if fd >= 0 {
            let synced = fsync(fd)
            let syncErrno = errno
            close(fd)
            if synced != 0 { throw .fileSystem(syncErrno, action: "write", path: destination) }
        }
        try gate?.willPlace()
        let placed = try move(overwrite: overwrite, renumber: renumber)
        finished = true
        LiveTemporaries.remove(temporaryPath)
        gate?.didPlace()
        var info = stat()
        let size = stat(placed, &info) == 0 ? Int64(info.st_size) : 0
        return OutputFile(path: placed, byteCount: size)
    }

    /// Renames (`overwrite`) or hard-links the temporary file into place; the path used.
    private func move(overwrite: Bool, renumber: Bool) throws(ConvertError) -> String {
        var placed = destination
        if overwrite {
            guard rename(temporaryPath, destination) == 0 else {
                throw .fileSystem(errno, action: "move the output into place at", path: destination)
            }
        } else {
            var attempts = 1
            while link(temporaryPath, placed) != 0 {
                let code = errno
                guard code == EEXIST else {
                    throw .fileSystem(code, action: "move the output into place at", path: placed)
                }
                guard renumber, attempts < OutputNamer.maximumAttempts else {
                    throw ConvertError(
                        code: .outputExists,
                        message: "\(placed) already exists; nothing was overwritten.", path: placed)
                }
                placed = OutputNamer.nextNumbered(placed)
                attempts += 1
            }
            unlink(temporaryPath)
        }
        return placed
    }

    /// Removes the temporary file now.
    package func discard() {
        guard !finished else { return }
        unlink(temporaryPath)
        LiveTemporaries.remove(temporaryPath)
        finished = true
    }

    /// Removes temporary files a crashed run left in `directory`: staged outputs
    /// (`.NAME.offconvert-XXXXXX.partial`) and x264 statistics (`.NAME.offconvert-XXXXXX.x264`
    /// and the files named after it, left by earlier versions). Returns how many it removed.
    ///
    /// Each family has one file whose lock is held while the conversion runs (the `.partial`,
    /// the `.x264`); files of a family whose lock is held (in this or another process) are left
    /// alone, files of a family whose lock is free or whose locked file is gone are removed. A
    /// lock dies with its process, so whatever a `kill -9` left is recognised as stale.
    @discardableResult
    package static func removeStale(in directory: String) -> Int {
        guard let names = FolderListing.names(in: directory) else { return 0 }
        var removed = 0
        for name in names {
            guard let owner = lockOwner(of: name) else { continue }
            let fd = open(directory + "/" + owner, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
            if fd >= 0 {
                defer { close(fd) }
                guard flock(fd, LOCK_EX | LOCK_NB) == 0 else { continue }
                if unlink(directory + "/" + name) == 0 { removed += 1 }
            } else if errno == ENOENT, unlink(directory + "/" + name) == 0 {
                removed += 1
            }
        }
        return removed
    }

    /// For the name of one of offconvert's temporary files, the name of the file whose lock says
    /// whether it is in use (itself, for a `.partial` or an `.x264`); nil for any other name.
    static func lockOwner(of name: String) -> String? {
        guard name.hasPrefix("."), let found = name.lastRange(of: marker),
            let randomEnd = name.index(found.upperBound, offsetBy: 6, limitedBy: name.endIndex)
        else { return nil }
        let family = name[..<randomEnd]
        let rest = name[randomEnd...]
        if rest == partialSuffix { return name }
        if rest.hasPrefix(StagedOutput.statsSuffix) { return String(family) + StagedOutput.statsSuffix }
        return nil
    }
}

extension ConvertError {
    /// Maps a file-system errno to a categorised error with a message safe to show.
    package static func fileSystem(_ code: Int32, action: String, path: String) -> ConvertError {
        let reason = String(cString: strerror(code))
        switch code {
        case ENOSPC, EDQUOT:
            return ConvertError(
                code: .deviceFull, message: "Not enough space to \(action) \(path).", path: path,
                underlying: reason)
        case EROFS, EACCES, EPERM:
            return ConvertError(
                code: .deviceDenied, message: "Not allowed to \(action) \(path) (\(reason)).",
                path: path, underlying: reason)
        case ENOENT, ENOTDIR:
            return ConvertError(
                code: .inputMissing, message: "Cannot \(action) \(path): no such file or folder.",
                path: path, underlying: reason)
        default:
            return ConvertError(
                code: .deviceIo, message: "Could not \(action) \(path) (\(reason)).", path: path,
                underlying: reason)
        }
    }
}
