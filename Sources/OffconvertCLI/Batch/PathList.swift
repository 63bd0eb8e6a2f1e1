import ConvertCore
import FoundationEssentials
import Glibc

/// A list of input paths, one a line (`--from-file LIST`, or `-` for standard input), read in
/// chunks and within bounds: `--from-file /dev/zero` or a runaway pipe fails at once with a usage
/// error naming the list and the limit, instead of growing in memory until the machine swaps.
package struct PathList {
    /// The longest line, in bytes: Linux's PATH_MAX (4096, the terminating NUL included), the
    /// longest path `open` takes; a longer line cannot name a file. Comment lines are held to it
    /// too, so that a file without line breaks is refused after 4 KiB, not 64 MiB.
    package static let maximumLineBytes = 4096
    /// The most bytes a list may hold: 64 MiB is a million paths of 64 bytes, far past any
    /// photo library, and bounds what the list costs in memory (held twice while it is decoded).
    package static let maximumBytes = 64 << 20
    /// The most lines, blank and comment lines included: every input costs a journal entry and
    /// a pass of triage before any work, so a longer list is better split over several runs.
    package static let maximumLines = 1_000_000

    /// How errors name the list: "the list 'x' given to '--from-file'".
    private let name: String
    private var bytes: [UInt8] = []
    /// Lines ended by a line break so far.
    private var lines = 0
    /// Bytes of the line not yet ended.
    private var lineBytes = 0

    private init(name: String) {
        self.name = name
    }

    /// The paths in the list file `path` (`--from-file`): its non-comment lines
    /// (``InputCollector/listLines(_:)``). A FIFO or a device is read like a file, within the
    /// same bounds; a folder is refused.
    package static func read(file path: String) throws(UsageError) -> [String] {
        let name = "The list '\(path.terminalSafe)' given to '--from-file'"
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            throw UsageError(message: "Cannot read the list '\(path.terminalSafe)' given to '--from-file'.")
        }
        defer { close(fd) }
        return try read(fd, name: name)
    }

    /// The paths in what `fd` holds (standard input, for `-`).
    package static func read(standardInput fd: Int32) throws(UsageError) -> [String] {
        try read(fd, name: "The list read from standard input ('-')")
    }

    private static func read(_ fd: Int32, name: String) throws(UsageError) -> [String] {
        var info = stat()
        if fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFDIR {
            throw UsageError(message: "\(name) is a folder, not a file of paths one a line.")
        }
        var list = PathList(name: name)
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            let got = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if got < 0 && errno == EINTR { continue }
            guard got >= 0 else {
                throw UsageError(message: "\(name) cannot be read (\(String(cString: strerror(errno)))).")
            }
            if got == 0 { break }
            try list.append(chunk[..<got])
        }
        return try list.paths()
    }

    /// Adds the next bytes read, failing as soon as they break a bound.
    mutating func append(_ chunk: ArraySlice<UInt8>) throws(UsageError) {
        guard bytes.count + chunk.count <= Self.maximumBytes else {
            throw UsageError(
                message: "\(name) is larger than \(Self.maximumBytes >> 20) MiB, the most one run reads: "
                    + "split it over several runs.")
        }
        var start = chunk.startIndex
        while start < chunk.endIndex {
            let end = Self.index(of: 0x0A, in: chunk[start...]) ?? chunk.endIndex
            try addToLine(chunk[start..<end])
            guard end < chunk.endIndex else { break }
            try endLine()
            start = end + 1
        }
        bytes += chunk
    }

    /// The index of the first `byte` in `bytes`, or nil: memchr, not a loop over the bytes, as a
    /// list may be 64 MiB and read by a debug build too.
    private static func index(of byte: UInt8, in bytes: ArraySlice<UInt8>) -> Int? {
        bytes.withUnsafeBytes { raw -> Int? in
            guard let base = raw.baseAddress, let hit = memchr(base, Int32(byte), raw.count) else { return nil }
            return bytes.startIndex + base.distance(to: UnsafeRawPointer(hit))
        }
    }

    /// The list's paths, once everything is read.
    func paths() throws(UsageError) -> [String] {
        if lineBytes > 0 { try checkLineCount(lines + 1) }
        // Decoded as bytes, not UTF-8: a list naming a file whose name is not UTF-8 is still a list.
        return InputCollector.listLines(PathEncoding.decode(bytes))
    }

    /// Adds `piece`, which holds no line break, to the current line.
    private mutating func addToLine(_ piece: ArraySlice<UInt8>) throws(UsageError) {
        // A path is a C string: a NUL byte ends it early, so the line would name another file.
        if Self.index(of: 0, in: piece) != nil {
            throw UsageError(
                message: "\(name) has a NUL byte on line \(lines + 1), which no path holds: "
                    + "give a text file of paths, one a line.")
        }
        lineBytes += piece.count
        guard lineBytes <= Self.maximumLineBytes else {
            throw UsageError(
                message: "\(name) has a line longer than \(Self.maximumLineBytes) bytes (PATH_MAX) on line "
                    + "\(lines + 1), which no path is: give a text file of paths, one a line.")
        }
    }

    private mutating func endLine() throws(UsageError) {
        lines += 1
        lineBytes = 0
        try checkLineCount(lines)
    }

    private func checkLineCount(_ count: Int) throws(UsageError) {
        guard count <= Self.maximumLines else {
            throw UsageError(
                message: "\(name) has more than \(Self.maximumLines) lines, the most one run reads: "
                    + "split it over several runs.")
        }
    }
}
