/// Path arithmetic on strings, the way POSIX `dirname` and `basename` read a path.
///
/// Foundation's `NSString` path methods are not used: on Linux, `deletingLastPathComponent`
/// traps on a one-character relative name (`offconvert convert p --to png` crashed with
/// SIGILL), and they normalise paths in ways a user did not type.
package enum PathText {
    /// The folder part of `path`: `a/b/c.jpg` → `a/b`, `c.jpg` → `.`, `/c.jpg` → `/`.
    /// Trailing slashes are ignored (`a/b/` → `a`).
    package static func parent(_ path: String) -> String {
        let trimmed = trimmingTrailingSlashes(path)
        guard let slash = trimmed.lastIndex(of: "/") else { return "." }
        let folder = trimmingTrailingSlashes(String(trimmed[..<slash]))
        return folder.isEmpty ? "/" : folder
    }

    /// The last component of `path`: `a/b/c.jpg` → `c.jpg`, `a/b/` → `b`, `/` → `/`.
    package static func lastComponent(_ path: String) -> String {
        let trimmed = trimmingTrailingSlashes(path)
        guard let slash = trimmed.lastIndex(of: "/") else { return trimmed }
        let name = String(trimmed[trimmed.index(after: slash)...])
        return name.isEmpty ? "/" : name
    }

    /// The extension of the last component without the dot (`IMG.HEIC` → `HEIC`), empty when
    /// there is none; a leading dot does not start one (`.profile` has none).
    package static func fileExtension(_ path: String) -> String {
        let name = lastComponent(path)
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return "" }
        return String(name[name.index(after: dot)...])
    }

    /// The last component without its extension: `a/IMG_1.HEIC` → `IMG_1`.
    package static func stem(_ path: String) -> String {
        let name = lastComponent(path)
        let ext = fileExtension(name)
        return ext.isEmpty ? name : String(name.dropLast(ext.count + 1))
    }

    /// `path` without the extension of its last component: `a/b.jpg` → `a/b`.
    package static func deletingExtension(_ path: String) -> String {
        let ext = fileExtension(path)
        let trimmed = trimmingTrailingSlashes(path)
        return ext.isEmpty ? trimmed : String(trimmed.dropLast(ext.count + 1))
    }

    /// `folder/name`, without doubling a slash.
    package static func join(_ folder: String, _ name: String) -> String {
        if folder.isEmpty { return name }
        return folder.hasSuffix("/") ? folder + name : folder + "/" + name
    }

    private static func trimmingTrailingSlashes(_ path: String) -> String {
        var text = Substring(path)
        while text.count > 1, text.last == "/" { text = text.dropLast() }
        return String(text)
    }
}
