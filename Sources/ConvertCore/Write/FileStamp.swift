#if canImport(Glibc)
    import Glibc
#endif

/// A source file's permission bits and times, read before a conversion and given to its
/// outputs afterwards: galleries and `ls -t` sort by modification time, so a converted folder
/// keeps its order, and a private (0600) photo does not become world-readable copies.
package struct FileStamp: Sendable, Equatable {
    /// Read and write permission bits for user, group and others. Never execute, set-id or sticky
    /// bits: photos and videos are not programs, and files copied from a FAT card all look 0755.
    package var permissions: UInt32
    /// Modification time, seconds and nanoseconds since 1970.
    fileprivate var modifiedSeconds: Int
    fileprivate var modifiedNanoseconds: Int

    /// `UTIME_NOW` from <sys/stat.h> (`(1l << 30) - 1l`), a macro Swift does not import.
    private static let utimeNow = (1 << 30) - 1

    /// The stamp of `path` now; nil when it cannot be read.
    package static func of(_ path: String) -> FileStamp? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return FileStamp(
            permissions: UInt32(info.st_mode & 0o666), modifiedSeconds: info.st_mtim.tv_sec,
            modifiedNanoseconds: info.st_mtim.tv_nsec)
    }

    /// Gives `path` these permission bits, and this modification time when `times` (its access
    /// time becomes now). Best effort: a file system that refuses (FAT has no modes) keeps what
    /// it has, and the output is still complete.
    package func apply(to path: String, times: Bool) {
        _ = chmod(path, mode_t(permissions))
        guard times else { return }
        var stamps = [
            timespec(tv_sec: 0, tv_nsec: Self.utimeNow),
            timespec(tv_sec: modifiedSeconds, tv_nsec: modifiedNanoseconds),
        ]
        _ = utimensat(AT_FDCWD, path, &stamps, 0)
    }
}
