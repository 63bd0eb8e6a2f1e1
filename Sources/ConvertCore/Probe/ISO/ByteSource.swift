import FoundationEssentials
import Glibc

/// Random-access bytes the box reader walks: a file (``FileByteSource``) or a buffer already in
/// memory (``MemoryByteSource``, used for a sample-description box and in tests).
package protocol ByteSource: Sendable {
    /// Total number of bytes.
    var size: UInt64 { get }
    /// Reads up to `count` bytes at `offset`; fewer only at the end of the source.
    /// `count` must not exceed ``BoxLimits/maximumRead``.
    func read(at offset: UInt64, count: Int) throws(BoxError) -> [UInt8]
}

/// Owns a read-only file descriptor (`open`), closed with `close` in `deinit`.
///
/// Reads are positional (`pread`) and bounded, so a box claiming to be terabytes long never makes
/// the reader allocate more than ``BoxLimits/maximumRead`` bytes at once.
package final class FileByteSource: ByteSource {
    private let descriptor: Int32
    package let size: UInt64
    /// The path the file was opened at.
    package let path: String

    /// Opens `path` for reading. Only regular files are accepted: a FIFO or a device would block
    /// or never end. `O_NONBLOCK` keeps the open itself from waiting for a FIFO's writer; it has no
    /// effect on reads from a regular file.
    package init(path: String) throws(ConvertError) {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard descriptor >= 0 else { throw ConvertError.opening(path, errno: errno) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else {
            let code = errno
            close(descriptor)
            throw ConvertError.opening(path, errno: code)
        }
        guard (status.st_mode & S_IFMT) == S_IFREG else {
            close(descriptor)
            throw ConvertError(code: .inputNotAFile, message: "\(path) is not a regular file.", path: path)
        }
        self.descriptor = descriptor
        self.path = path
        self.size = UInt64(max(0, status.st_size))
    }

    deinit { close(descriptor) }

    package func read(at offset: UInt64, count: Int) throws(BoxError) -> [UInt8] {
        precondition(count >= 0 && count <= BoxLimits.maximumRead, "read larger than the box reader's bound")
        guard offset < size, count > 0 else { return [] }
        let wanted = Int(min(UInt64(count), size - offset))
        var buffer = [UInt8](repeating: 0, count: wanted)
        var filled = 0
        while filled < wanted {
            let got = buffer.withUnsafeMutableBytes { raw -> Int in
                guard let base = raw.baseAddress else { return 0 }
                return pread(descriptor, base + filled, wanted - filled, off_t(offset) + off_t(filled))
            }
            if got < 0 {
                if errno == EINTR { continue }
                throw BoxError.io(errno: errno)
            }
            // The file shrank while we read it: report what is there.
            if got == 0 { break }
            filled += got
        }
        if filled < wanted { buffer.removeSubrange(filled...) }
        return buffer
    }
}

/// Bytes already in memory.
package struct MemoryByteSource: ByteSource {
    package let bytes: [UInt8]

    package init(bytes: [UInt8]) { self.bytes = bytes }
    package var size: UInt64 { UInt64(bytes.count) }

    package func read(at offset: UInt64, count: Int) throws(BoxError) -> [UInt8] {
        precondition(count >= 0 && count <= BoxLimits.maximumRead, "read larger than the box reader's bound")
        guard offset < size, count > 0 else { return [] }
        let start = Int(offset)
        return Array(bytes[start..<min(bytes.count, start + count)])
    }
}

extension ConvertError {
    /// The error for a failed `open`/`stat` of an input.
    package static func opening(_ path: String, errno code: Int32) -> ConvertError {
        switch code {
        case ENOENT, ENOTDIR:
            return ConvertError(code: .inputMissing, message: "\(path) does not exist.", path: path)
        case EACCES, EPERM:
            return ConvertError(code: .inputDenied, message: "\(path) cannot be read (permission denied).", path: path)
        case EISDIR:
            return ConvertError(code: .inputNotAFile, message: "\(path) is not a regular file.", path: path)
        default:
            return ConvertError(code: .inputUnreadable, message: "\(path) cannot be read.", path: path,
                                underlying: String(cString: strerror(code)))
        }
    }
}
