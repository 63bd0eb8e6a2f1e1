internal import CLinux
import FoundationEssentials
import Glibc

/// Plain reads and writes on file descriptors through the C library, where full Foundation's
/// `FileHandle` was used before (FoundationEssentials has none).
package enum RawFile {
    /// Up to the first `count` bytes of the file at `path` (fewer for a shorter file, none for
    /// an empty one); nil when it cannot be opened or read.
    package static func head(of path: String, count: Int) -> [UInt8]? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        return read(fd, upTo: count)
    }

    /// Up to the last `count` bytes of the file at `path` (the whole file when it is shorter);
    /// nil when it cannot be opened or read.
    package static func tail(of path: String, count: Int) -> [UInt8]? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return nil }
        let start = max(0, Int(info.st_size) - count)
        guard lseek(fd, off_t(start), SEEK_SET) == off_t(start) else { return nil }
        return read(fd, upTo: count)
    }

    /// The whole file at `path`; nil when it cannot be opened or read.
    package static func contents(of path: String) -> [UInt8]? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { return nil }
        // The size is a first guess: a file still growing is read to its end.
        guard var bytes = read(fd, upTo: max(0, Int(info.st_size))) else { return nil }
        bytes += readToEnd(fd)
        return bytes
    }

    /// Everything left to read on `fd` (standard input, say); what was read before an error.
    package static func readToEnd(_ fd: Int32) -> [UInt8] {
        var bytes: [UInt8] = []
        while let chunk = read(fd, upTo: 65_536), !chunk.isEmpty { bytes += chunk }
        return bytes
    }

    /// Writes all of `bytes` to `fd`, retrying after signals; the `errno` of a failed write (EIO
    /// for one that wrote nothing), or nil once everything is written.
    package static func write(_ bytes: ArraySlice<UInt8>, to fd: Int32) -> Int32? {
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress! + offset, $0.count - offset) }
            if written < 0, errno == EINTR { continue }
            guard written > 0 else { return written < 0 ? errno : EIO }
            offset += written
        }
        return nil
    }

    /// Inserts `length` bytes of nothing at `offset` of the file open as `fd` (both multiples of
    /// its file system's block size), moving what followed up without copying it
    /// (`fallocate` with `FALLOC_FL_INSERT_RANGE`): nil once done, else the `errno`
    /// (`EOPNOTSUPP` where the file system cannot: tmpfs, btrfs, NFS).
    package static func insertRange(_ fd: Int32, at offset: Int64, length: Int64) -> Int32? {
        offc_insert_range(fd, off_t(offset), off_t(length)) == 0 ? nil : errno
    }

    /// Up to `count` bytes from `fd`, stopping early only at the end of the file; nil on an error.
    private static func read(_ fd: Int32, upTo count: Int) -> [UInt8]? {
        var bytes = [UInt8](repeating: 0, count: count)
        var filled = 0
        while filled < count {
            let got = bytes.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress! + filled, count - filled) }
            if got < 0 {
                if errno == EINTR { continue }
                return nil
            }
            if got == 0 { break }
            filled += got
        }
        return Array(bytes.prefix(filled))
    }
}
