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

extension ByteSource {
    /// Up to `count` bytes at `offset` (fewer only at the end of the source), read in pieces of at
    /// most ``BoxLimits/maximumRead``: for a whole box the caller has bounded itself, as a `moov`
    /// edited in place, which a long clip's sample tables make megabytes long.
    package func read(whole count: Int, at offset: UInt64) throws(BoxError) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(count)
        while bytes.count < count {
            let piece = try read(
                at: offset + UInt64(bytes.count), count: min(count - bytes.count, BoxLimits.maximumRead))
            if piece.isEmpty { break }
            bytes += piece
        }
        return bytes
    }
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
            throw ConvertError.notAFile(path, mode: status.st_mode)
        }
        self.descriptor = descriptor
        self.path = path
        self.size = UInt64(max(0, status.st_size))
    }

    deinit { close(descriptor) }

    package func read(at offset: UInt64, count: Int) throws(BoxError) -> [UInt8] {
        try Self.read(descriptor, size: size, at: offset, count: count)
    }

    /// Reads up to `count` bytes at `offset` of the file of `size` bytes open on `descriptor`
    /// (`pread`, so its offset does not move); shared with other owners of an input descriptor.
    package static func read(_ descriptor: Int32, size: UInt64, at offset: UInt64, count: Int) throws(BoxError)
        -> [UInt8]
    {
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
            return .notAFile(path, mode: S_IFDIR)
        default:
            return ConvertError(
                code: .inputUnreadable, message: "\(path) cannot be read.", path: path,
                underlying: String(cString: strerror(code)))
        }
    }

    /// The error for an input that is not a regular file: `input.not-a-file` for a folder, a
    /// FIFO, a device or a socket alike (one code, so a caller branches once), with words
    /// that say which.
    package static func notAFile(_ path: String, mode: mode_t) -> ConvertError {
        let message = mode & S_IFMT == S_IFDIR ? "\(path) is a folder, not a file." : "\(path) is not a regular file."
        return ConvertError(code: .inputNotAFile, message: message, path: path)
    }

    /// Why `path` cannot be read as an input, or nil: the checks every entry point makes before
    /// it opens a file, so the same file fails with the same code from each (`input.missing`,
    /// `input.denied`, `input.not-a-file`, `input.empty`). Opens nothing: a FIFO is refused
    /// without waiting for a writer.
    package static func inputProblem(_ path: String) -> ConvertError? {
        var info = stat()
        guard stat(path, &info) == 0 else { return .opening(path, errno: errno) }
        guard info.st_mode & S_IFMT == S_IFREG else { return .notAFile(path, mode: info.st_mode) }
        guard access(path, R_OK) == 0 else { return .opening(path, errno: errno) }
        guard info.st_size > 0 else { return .emptyInput(path) }
        return nil
    }

    /// The error for an input of 0 bytes.
    package static func emptyInput(_ path: String) -> ConvertError {
        ConvertError(code: .inputEmpty, message: "\(path) is empty.", path: path)
    }
}
