import FoundationEssentials

#if canImport(Glibc)
    import Glibc
#endif

/// offconvert's private state folder (`$XDG_STATE_HOME/offconvert`): created 0700, its files
/// written 0600, every replacement atomic and durable, and cross-process updates serialised by
/// an exclusive `flock` on a `lock` file that is never renamed (a lock on a renamed file would
/// not exclude a process that opened the new one).
package struct StateDirectory: Sendable {
    /// The folder's absolute path.
    package let path: String

    /// The default location: `$XDG_STATE_HOME/offconvert`, else `$HOME/.local/state/offconvert`.
    /// A relative `XDG_STATE_HOME` is ignored, as the XDG spec requires.
    package static func defaultPath(environment: [String: String]) -> String {
        if let state = environment["XDG_STATE_HOME"], state.hasPrefix("/") {
            return state + "/offconvert"
        }
        let home =
            environment["HOME"].flatMap { $0.isEmpty ? nil : $0 }
            ?? FileManager.default.homeDirectoryForCurrentUser.path
        return home + "/.local/state/offconvert"
    }

    /// Creates the folder (and missing parents) and tightens it to 0700.
    package init(path: String) throws(ConvertError) {
        self.path = path
        var missing: [String] = []
        var current = path
        while !current.isEmpty, current != "/", access(current, F_OK) != 0 {
            missing.append(current)
            current = PathText.parent(current)
        }
        for directory in missing.reversed() where mkdir(directory, 0o700) != 0 && errno != EEXIST {
            throw ConvertError.fileSystem(errno, action: "create the state folder", path: directory)
        }
        var info = stat()
        guard lstat(path, &info) == 0 else {
            throw ConvertError.fileSystem(errno, action: "open the state folder", path: path)
        }
        guard info.st_mode & S_IFMT == S_IFDIR else {
            throw ConvertError(
                code: .allowanceStore, message: "\(path) is not a folder; offconvert keeps its state there.",
                path: path)
        }
        if info.st_mode & 0o777 != 0o700, chmod(path, 0o700) != 0 {
            throw ConvertError.fileSystem(errno, action: "protect the state folder", path: path)
        }
    }

    /// The path of `name` inside the folder.
    package func file(_ name: String) -> String { path + "/" + name }

    /// Runs `body` while holding the folder's exclusive lock. Blocks until other processes
    /// release it; the kernel releases it if the holder dies, so a crash cannot wedge the store.
    package func withLock<T>(_ body: () throws(ConvertError) -> T) throws(ConvertError) -> T {
        let lockPath = file("lock")
        guard let fd = try Self.openRegular(lockPath, flags: O_RDWR | O_CREAT, action: "open the lock file") else {
            throw ConvertError.fileSystem(ENOENT, action: "open the lock file", path: lockPath)
        }
        defer { close(fd) }
        while flock(fd, LOCK_EX) != 0 {
            guard errno == EINTR else { throw ConvertError.fileSystem(errno, action: "lock", path: lockPath) }
        }
        return try body()
    }

    /// The contents of `name`, or nil if it does not exist.
    package func read(_ name: String) throws(ConvertError) -> [UInt8]? {
        try Self.readFile(file(name), limit: 1 << 20)
    }

    /// Opens a state file (allowance, licence, journal, lock), refusing anything but a regular
    /// file; nil when it does not exist (and `flags` has no `O_CREAT`).
    ///
    /// `O_NONBLOCK` makes opening a FIFO return at once instead of waiting for a writer forever
    /// (a FIFO named `allowance` hung every conversion, deaf to SIGTERM); `O_NOFOLLOW` keeps a
    /// symbolic link planted in the state folder from redirecting reads or writes elsewhere
    /// (pass `followLinks` for a path the user named, such as a licence to install). The
    /// descriptor is switched back to blocking before it is returned.
    package static func openRegular(
        _ path: String, flags: Int32, followLinks: Bool = false, action: String
    ) throws(ConvertError) -> Int32? {
        let fd = open(path, flags | O_CLOEXEC | O_NONBLOCK | (followLinks ? 0 : O_NOFOLLOW), 0o600)
        guard fd >= 0 else {
            if errno == ENOENT && flags & O_CREAT == 0 { return nil }
            if errno == ELOOP {
                throw ConvertError(
                    code: .stateNotAFile,
                    message:
                        "\(path) is a symbolic link; offconvert only uses a regular file there. Remove it to start afresh.",
                    path: path)
            }
            throw ConvertError.fileSystem(errno, action: action, path: path)
        }
        var info = stat()
        guard fstat(fd, &info) == 0 else {
            let code = errno
            close(fd)
            throw ConvertError.fileSystem(code, action: action, path: path)
        }
        guard info.st_mode & S_IFMT == S_IFREG else {
            close(fd)
            throw ConvertError(
                code: .stateNotAFile,
                message:
                    "\(path) is not a regular file (\(kindName(info.st_mode))); offconvert only uses a regular file there. "
                    + "Remove it to start afresh.",
                path: path)
        }
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK)
        return fd
    }

    /// "a FIFO", "a folder", ... for a message.
    private static func kindName(_ mode: mode_t) -> String {
        switch mode & S_IFMT {
        case S_IFIFO: "a FIFO"
        case S_IFDIR: "a folder"
        case S_IFCHR, S_IFBLK: "a device"
        case S_IFSOCK: "a socket"
        default: "not a plain file"
        }
    }

    /// The contents of the regular file at `path`, or nil if it does not exist (see
    /// ``openRegular(_:flags:followLinks:action:)`` for what is refused). Reading stops a
    /// little past `limit`: state and licence files are tiny, and a huge one is damage, not
    /// data worth holding in memory.
    package static func readFile(_ path: String, limit: Int, followLinks: Bool = false) throws(ConvertError) -> [UInt8]?
    {
        guard let fd = try openRegular(path, flags: O_RDONLY, followLinks: followLinks, action: "read") else {
            return nil
        }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16_384)
        while bytes.count <= limit {
            let count = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw ConvertError.fileSystem(errno, action: "read", path: path)
            }
            if count == 0 { break }
            bytes.append(contentsOf: chunk[0..<count])
        }
        return bytes
    }

    /// Replaces `name` with `bytes` atomically: a 0600 temporary file in the same folder, written
    /// and fsynced, renamed over `name`. Readers see the old or the new file, never a mix. When
    /// `durable`, the folder is fsynced too so the rename itself survives a power cut; without
    /// it a power cut may bring back the previous (whole, valid) file.
    package func write(_ name: String, _ bytes: [UInt8], durable: Bool = true) throws(ConvertError) {
        let target = file(name)
        var template = PathEncoding.cString(path + "/." + name + ".tmp-XXXXXX")
        let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard fd >= 0 else { throw ConvertError.fileSystem(errno, action: "write", path: target) }
        let temporary = PathEncoding.decode(nulTerminated: template)
        var succeeded = false
        defer {
            if !succeeded { unlink(temporary) }
        }
        do {
            defer { close(fd) }
            // mkstemp already uses 0600; fchmod states it rather than relying on that.
            guard fchmod(fd, 0o600) == 0 else { throw ConvertError.fileSystem(errno, action: "write", path: target) }
            if let error = RawFile.write(bytes[...], to: fd) {
                throw ConvertError.fileSystem(error, action: "write", path: target)
            }
            guard fsync(fd) == 0 else { throw ConvertError.fileSystem(errno, action: "write", path: target) }
        }
        guard rename(temporary, target) == 0 else {
            throw ConvertError.fileSystem(errno, action: "write", path: target)
        }
        succeeded = true
        guard durable else { return }
        let directoryFD = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard directoryFD >= 0 else { throw ConvertError.fileSystem(errno, action: "write", path: path) }
        defer { close(directoryFD) }
        guard fsync(directoryFD) == 0 else { throw ConvertError.fileSystem(errno, action: "write", path: path) }
    }

    /// Removes temporaries a process killed in the middle of ``write(_:_:)`` left behind.
    /// Called with the lock held, so no live writer's temporary is removed.
    package func removeStaleTemporaries() {
        guard let names = FolderListing.names(in: path) else { return }
        for name in names where name.hasPrefix(".") && name.contains(".tmp-") {
            unlink(file(name))
        }
    }
}
