import Glibc

/// What a folder holds, by name, read with `readdir` so a name that is not UTF-8 is kept
/// (`PathEncoding`); Foundation's listing replaces its bytes and the file then cannot be opened.
package enum FolderListing {
    /// The names in `folder` (not `.` and `..`), unsorted; nil when it cannot be opened.
    package static func names(in folder: String) -> [String]? {
        guard let stream = PathEncoding.withCString(folder, { opendir($0) }) else { return nil }
        defer { closedir(stream) }
        var names: [String] = []
        while let entry = readdir(stream) {
            let name = withUnsafeBytes(of: &entry.pointee.d_name) { PathEncoding.decode($0.prefix { $0 != 0 }) }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }

    /// The working folder, decoded as a path ("." when it cannot be read).
    package static var currentFolder: String {
        guard let folder = getcwd(nil, 0) else { return "." }
        defer { free(folder) }
        return PathEncoding.decode(cString: folder)
    }
}
