import ConvertCore
import FoundationEssentials
import Glibc

/// Installs and removes the file-manager actions of the current user: no root, only files under
/// `$XDG_DATA_HOME` and `$XDG_CONFIG_HOME`, and in Thunar's shared `uca.xml` only the actions
/// whose unique id starts with ``ThunarActions/idPrefix``.
package enum DesktopInstaller {
    /// One change to the file system, as `--dry-run` lists it.
    package enum Change: Sendable, Equatable {
        case write(DesktopFile)
        case remove(String)

        package var path: String {
            switch self {
            case .write(let file): file.path
            case .remove(let path): path
            }
        }
    }

    /// The `offconvert` launcher installed beside this executable: the command every menu runs,
    /// by absolute path, because a file manager's PATH may not have `~/.local/bin`.
    static func launcherPath() -> String {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let length = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        let own =
            length > 0
            ? String(decoding: buffer[0..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
            : CommandLine.arguments[0]
        return PathText.parent(own) + "/offconvert"
    }

    /// What installing writes.
    static func installPlan(places: DesktopPlaces, executable: String) throws(ThunarActions.Unreadable) -> [Change] {
        var changes = DesktopMenus.files(DesktopAction.all, places: places, executable: executable).map(Change.write)
        let existing = try? String(contentsOfFile: places.thunarActions, encoding: .utf8)
        let merged = try ThunarActions.merged(existing, actions: DesktopAction.all, executable: executable)
        changes.append(.write(DesktopFile(path: places.thunarActions, contents: merged, executable: false)))
        return changes
    }

    /// What uninstalling changes: our files (those carrying ``DesktopMenus/marker``) removed,
    /// and `uca.xml` rewritten without our actions when it has any.
    static func uninstallPlan(places: DesktopPlaces) throws(ThunarActions.Unreadable) -> [Change] {
        var changes: [Change] = []
        for file in DesktopMenus.files(DesktopAction.all, places: places, executable: "") {
            guard let text = try? String(contentsOfFile: file.path, encoding: .utf8), text.contains(DesktopMenus.marker)
            else { continue }
            changes.append(.remove(file.path))
        }
        if let existing = try? String(contentsOfFile: places.thunarActions, encoding: .utf8),
            let rewritten = try ThunarActions.removed(existing)
        {
            changes.append(.write(DesktopFile(path: places.thunarActions, contents: rewritten, executable: false)))
        }
        return changes
    }

    /// Carries out `changes`. Each file is written whole to a temporary name and renamed, so a
    /// file manager (or a crash) never sees half of one; `uca.xml` keeps its mode.
    package static func apply(_ changes: [Change], places: DesktopPlaces) throws(ConvertError) {
        for change in changes {
            switch change {
            case .write(let file): try write(file)
            case .remove(let path):
                guard unlink(path) == 0 || errno == ENOENT else {
                    throw ConvertError.fileSystem(errno, action: "remove", path: path)
                }
            }
        }
        let removed = changes.compactMap { if case .remove(let path) = $0 { path } else { nil } }
        removeEmptyFolders(around: removed, below: [places.dataHome, places.configHome])
    }

    /// Removes the folders that `removed` leaves empty (the Nautilus submenu, `nemo/actions`,
    /// `kio/servicemenus` and their parents, as install created them), deepest first, never
    /// `roots` themselves. rmdir refuses a folder that still holds anything, the user's own
    /// scripts and actions included.
    static func removeEmptyFolders(around removed: [String], below roots: [String]) {
        var folders = Set(removed.map(PathText.parent))
        while let folder = folders.max(by: { $0.count < $1.count }) {
            folders.remove(folder)
            guard roots.contains(where: { folder.hasPrefix($0 + "/") }), rmdir(folder) == 0 else { continue }
            folders.insert(PathText.parent(folder))
        }
    }

    private static func write(_ file: DesktopFile) throws(ConvertError) {
        let folder = PathText.parent(file.path)
        do {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        } catch {
            throw ConvertError.fileSystem(EACCES, action: "create the folder", path: folder)
        }
        var info = stat()
        let mode: mode_t = stat(file.path, &info) == 0 ? info.st_mode & 0o777 : (file.executable ? 0o755 : 0o644)
        let temporary = file.path + ".offconvert-new"
        guard FileManager.default.createFile(atPath: temporary, contents: Data(file.contents.utf8)) else {
            throw ConvertError.fileSystem(errno, action: "write", path: temporary)
        }
        chmod(temporary, file.executable ? mode | 0o111 : mode)
        guard rename(temporary, file.path) == 0 else {
            let code = errno
            unlink(temporary)
            throw ConvertError.fileSystem(code, action: "write", path: file.path)
        }
    }
}
