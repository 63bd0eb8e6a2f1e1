import ConvertCore
import FoundationEssentials

#if canImport(Glibc)
    import Glibc
#endif

/// Turns what a user typed into a batch's list of files: folders opened (their subfolders too
/// with `--recursive`), `--from-file` lists read without their comments and blank lines, and
/// the same file given twice (`a.jpg ./a.jpg`, a hard link) kept once.
package struct InputCollector {
    /// One file of the batch.
    package struct File: Equatable, Sendable {
        /// The path as the batch names it: as typed, or the folder as typed joined with the
        /// names found inside it.
        package var path: String
        /// For a file found inside a folder argument, the folders between that argument and the
        /// file (`100APPLE` for `DCIM/100APPLE/IMG_1.HEIC` from `DCIM`), so `-o` keeps the
        /// layout; empty otherwise.
        package var subfolder: String
    }

    /// Whether subfolders of a folder argument are opened too.
    var recursive: Bool
    /// The files, in order: arguments as given, a folder's files sorted by name.
    package private(set) var files: [File] = []
    /// Folders found inside folder arguments and not opened (no `--recursive`).
    private(set) var skippedFolders: [String] = []
    /// Folder arguments with no file in them (nor, with `--recursive`, in their subfolders).
    package private(set) var emptyFolders: [String] = []
    /// Whether any argument was a folder.
    private(set) var hadFolders = false
    /// Folders deeper than this are not opened: a symlink loop or a hostile tree stops here.
    package static let maximumDepth = 64

    private var seen: Set<String> = []

    /// A collector; `recursive` opens subfolders of folder arguments.
    package init(recursive: Bool) {
        self.recursive = recursive
    }

    /// The non-comment lines of a `--from-file` list: blank lines and lines starting with `#`
    /// (after leading white space) are skipped; a trailing `\r` (a list saved on Windows) is
    /// dropped.
    static func listLines(_ text: String) -> [String] {
        // "\r\n" is one Character in Swift: split on both.
        text.split(omittingEmptySubsequences: true, whereSeparator: { $0 == "\n" || $0 == "\r\n" }).compactMap { raw in
            var line = Substring(raw)
            if line.last == "\r" { line = line.dropLast() }
            let trimmed = line.drop(while: { $0 == " " || $0 == "\t" })
            if trimmed.isEmpty || trimmed.first == "#" { return nil }
            return String(line)
        }
    }

    /// Adds one argument: a file (or a path that does not exist, which the conversion then
    /// reports), or a folder whose files are added.
    package mutating func add(_ path: String) {
        var info = stat()
        if stat(path, &info) == 0, info.st_mode & S_IFMT == S_IFDIR {
            hadFolders = true
            let before = files.count
            addFolder(path, subfolder: "", depth: 0)
            // A folder whose files were all given already is not empty; one that gave nothing is.
            if files.count == before && !Self.hasEntries(path) { emptyFolders.append(path) }
        } else {
            addFile(File(path: path, subfolder: ""))
        }
    }

    private mutating func addFile(_ file: File) {
        guard seen.insert(Self.identity(of: file.path)).inserted else { return }
        files.append(file)
    }

    private mutating func addFolder(_ folder: String, subfolder: String, depth: Int) {
        guard let names = FolderListing.names(in: folder) else {
            // An unreadable folder becomes an input that fails with the real reason.
            return addFile(File(path: folder, subfolder: subfolder))
        }
        for name in names.sorted() {
            let path = PathText.join(folder, name)
            var info = stat()
            // lstat: a symlink to a folder inside a tree is not followed (no loops), as find does.
            guard lstat(path, &info) == 0 else { continue }
            if info.st_mode & S_IFMT == S_IFDIR {
                // Hidden folders (.thumbnails, .git, .Trashes) are never photo folders.
                guard !name.hasPrefix(".") else { continue }
                if recursive && depth < Self.maximumDepth {
                    addFolder(path, subfolder: PathText.join(subfolder, name), depth: depth + 1)
                } else {
                    skippedFolders.append(path)
                }
            } else {
                addFile(File(path: path, subfolder: subfolder))
            }
        }
    }

    /// Whether a folder holds anything a user would see (hidden entries do not count).
    private static func hasEntries(_ folder: String) -> Bool {
        guard let names = FolderListing.names(in: folder) else { return true }
        return names.contains { !$0.hasPrefix(".") }
    }

    /// Device and inode for an existing file (so `./a.jpg` and a hard link match `a.jpg`), the
    /// path itself otherwise.
    private static func identity(of path: String) -> String {
        var info = stat()
        guard stat(path, &info) == 0 else { return "path:" + path }
        return "file:\(info.st_dev):\(info.st_ino)"
    }
}
