import ConvertCore
import FoundationEssentials

#if canImport(Glibc)
    import Glibc
#endif

/// An inotify instance (Linux) watching folders for files that are complete: written and
/// closed (`IN_CLOSE_WRITE`) or renamed in (`IN_MOVED_TO`), and for new subfolders. Owns its
/// descriptor, closed in `deinit`; reads never block (`IN_NONBLOCK`), so the watcher polls it
/// between sleeps instead of holding a thread.
final class Inotify {
    /// What happened to a path inside a watched folder.
    struct Event: Equatable {
        var path: String
        var isFolder: Bool
        /// The folder itself went away (deleted or moved out): its watch is gone.
        var folderGone = false
    }

    private let descriptor: Int32
    /// Watched folder by watch descriptor.
    private var folders: [Int32: String] = [:]

    /// The events a watched folder reports.
    private static let mask = UInt32(
        IN_CLOSE_WRITE | IN_MOVED_TO | IN_CREATE | IN_DELETE_SELF | IN_MOVE_SELF | IN_ONLYDIR)

    init() throws(ConvertError) {
        descriptor = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        guard descriptor >= 0 else { throw ConvertError.fileSystem(errno, action: "watch folders (inotify)", path: "") }
    }

    deinit { close(descriptor) }

    /// Starts watching `folder` (not its subfolders: each is added on its own).
    func watch(_ folder: String) throws(ConvertError) {
        let wd = inotify_add_watch(descriptor, folder, Self.mask)
        guard wd >= 0 else { throw ConvertError.fileSystem(errno, action: "watch the folder", path: folder) }
        folders[wd] = folder
    }

    /// The events queued since the last call; empty when there are none (never waits).
    func read() -> [Event] {
        var events: [Event] = []
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = buffer.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
            guard count > 0 else { break }
            events += parse(buffer[0..<count])
        }
        return events
    }

    /// `struct inotify_event` records: wd, mask, cookie, len, then `len` bytes of NUL-padded name.
    private func parse(_ bytes: ArraySlice<UInt8>) -> [Event] {
        var events: [Event] = []
        var offset = bytes.startIndex
        let header = MemoryLayout<inotify_event>.size
        while offset + header <= bytes.endIndex {
            let record = bytes[offset..<(offset + header)].withUnsafeBytes { $0.loadUnaligned(as: inotify_event.self) }
            let nameStart = offset + header
            let nameEnd = min(bytes.endIndex, nameStart + Int(record.len))
            let nameBytes = bytes[nameStart..<nameEnd].prefix { $0 != 0 }
            offset = nameEnd
            guard let folder = folders[record.wd] else { continue }
            if record.mask & UInt32(IN_DELETE_SELF | IN_MOVE_SELF | IN_IGNORED) != 0 {
                folders[record.wd] = nil
                events.append(Event(path: folder, isFolder: true, folderGone: true))
                continue
            }
            guard !nameBytes.isEmpty else { continue }
            let name = PathEncoding.decode(nameBytes)
            let isFolder = record.mask & UInt32(IN_ISDIR) != 0
            // A new file is only announced when it is complete; a new folder at once.
            if !isFolder && record.mask & UInt32(IN_CLOSE_WRITE | IN_MOVED_TO) == 0 { continue }
            events.append(Event(path: PathText.join(folder, name), isFolder: isFolder))
        }
        return events
    }
}
