import ConvertCore
import FoundationEssentials

#if canImport(Glibc)
    import Glibc
#endif

/// A cheap record of a file's content for the batch journal: the SHA-256 of its size, its first
/// and its last 64 KiB. It tells an output a batch wrote from another file put at that path
/// since, without reading a whole video on every re-run.
enum ContentDigest {
    /// How much is read from each end.
    static let span = 64 << 10

    /// The hex digest of the regular file at `path`, or nil when it cannot be read.
    static func of(_ path: String) -> String? {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return nil }
        let size = Int(info.st_size)
        var data = Array("\(size)\n".utf8)
        guard let head = read(fd, offset: 0, count: min(size, span)) else { return nil }
        data += head
        if size > span {
            let tailStart = max(span, size - span)
            guard let tail = read(fd, offset: tailStart, count: size - tailStart) else { return nil }
            data += tail
        }
        return Crypto.sha256(data).map(Crypto.hex)
    }

    /// `count` bytes at `offset`, or nil when they cannot all be read.
    private static func read(_ fd: Int32, offset: Int, count: Int) -> [UInt8]? {
        var bytes = [UInt8](repeating: 0, count: count)
        var done = 0
        while done < count {
            let got = bytes.withUnsafeMutableBytes { buffer in
                pread(fd, buffer.baseAddress! + done, count - done, off_t(offset + done))
            }
            if got < 0 && errno == EINTR { continue }
            guard got > 0 else { return nil }
            done += got
        }
        return bytes
    }
}
