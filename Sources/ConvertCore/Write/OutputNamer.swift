import FoundationEssentials

#if canImport(Glibc)
    import Glibc
#endif

/// Chooses safe, unique output paths for a batch.
///
/// `photo.heic` becomes `photo.jpg` in `--output-dir` (or next to the input); if that name is
/// taken on disk or already handed to another item of the same batch, `photo (2).jpg`,
/// `photo (3).jpg`, ... With `overwrite`, an existing file may be replaced, but never one of the
/// batch's inputs (compared by device and inode, so `./a.jpg`, a hard link or a symlink to it are
/// all recognised) and never a folder. Names are sanitised (control characters, `/`, bidi
/// controls replaced; leading dots and dashes removed; length capped), so every output is a
/// direct child of the output folder and cannot escape it.
///
/// One namer is shared by all items of a batch; it is safe to call from concurrent tasks. A
/// name is chosen when asked for, so another process may still take it before the output is
/// committed; `StagedOutput`'s no-clobber commit then fails with `output.exists` rather than
/// replacing that file.
package final class OutputNamer: Sendable {
    /// `--output-dir`, resolved; nil to write next to each input.
    package let outputDirectory: String?
    /// Whether existing files (other than inputs) may be replaced.
    package let overwrite: Bool

    private struct FileID: Hashable {
        package var device: UInt64
        package var inode: UInt64
    }

    private let inputIDs: Set<FileID>
    private let handedOut = PthreadLocked<Set<String>>([])

    /// Longest output name in bytes: the staged temporary adds about 30 bytes and a file name
    /// may have at most 255.
    static let maximumNameBytes = 200
    /// Highest collision number tried before giving up.
    static let maximumAttempts = 10_000

    /// Creates a namer for a batch over `inputs`.
    /// - Parameters:
    ///   - outputDirectory: Where every output goes (created if missing); nil for next to its input.
    ///   - overwrite: Replace existing files instead of numbering around them (never an input).
    ///   - inputs: Every input of the batch, so none of them is ever chosen as an output.
    package init(outputDirectory: String?, overwrite: Bool, inputs: [String]) throws(ConvertError) {
        if let outputDirectory {
            try Self.createFolders(outputDirectory)
            var info = stat()
            guard stat(outputDirectory, &info) == 0, info.st_mode & S_IFMT == S_IFDIR else {
                throw ConvertError(
                    code: .outputNotAFolder, message: "\(outputDirectory) is not a folder.",
                    path: outputDirectory)
            }
            self.outputDirectory = try Self.resolve(outputDirectory)
        } else {
            self.outputDirectory = nil
        }
        self.overwrite = overwrite
        inputIDs = Set(inputs.compactMap(Self.fileID))
    }

    /// The folder `input`'s output goes to, resolved (symlinks followed): `subfolder` (the
    /// input's folders below a folder argument) inside the output folder, created when missing;
    /// next to the input without an output folder.
    package func directory(for input: String, subfolder: String = "") throws(ConvertError) -> String {
        guard let outputDirectory else { return try Self.resolve(PathText.parent(input)) }
        let parts = subfolder.split(separator: "/").map { Self.sanitise(String($0)) }
        guard !parts.isEmpty else { return outputDirectory }
        let folder = parts.reduce(outputDirectory) { PathText.join($0, $1) }
        try Self.createFolders(folder)
        return folder
    }

    /// Creates `path` and its missing parents (`mkdir -p`), 0755 before the umask.
    package static func createFolders(_ path: String) throws(ConvertError) {
        var missing: [String] = []
        var current = path
        var info = stat()
        while stat(current, &info) != 0 {
            guard errno == ENOENT else { break }
            missing.append(current)
            let parent = PathText.parent(current)
            guard parent != current else { break }
            current = parent
        }
        for folder in missing.reversed() where mkdir(folder, 0o755) != 0 && errno != EEXIST {
            throw ConvertError.fileSystem(errno, action: "create the output folder", path: folder)
        }
    }

    /// A fresh output path for `input` with extension `pathExtension` (no dot), optionally with
    /// `suffix` added to the name (`"-small"` gives `photo-small.jpg`), in `subfolder` of the
    /// output folder (see ``directory(for:subfolder:)``). The name is reserved for
    /// this batch: no other call returns it.
    package func destination(
        for input: String, pathExtension: String, suffix: String = "", subfolder: String = ""
    ) throws(ConvertError) -> String {
        let folder = try directory(for: input, subfolder: subfolder)
        let stem = Self.sanitise(PathText.stem(input) + suffix)
        let ext = Self.sanitise(pathExtension)
        return try handedOut.withLock { (taken: inout Set<String>) throws(ConvertError) -> String in
            for attempt in 1...Self.maximumAttempts {
                let candidate = folder + "/" + Self.name(stem, number: attempt, pathExtension: ext)
                guard !taken.contains(candidate), isUsable(candidate) else { continue }
                taken.insert(candidate)
                return candidate
            }
            throw ConvertError(
                code: .outputNoName,
                message: "Could not find a free name for the output of \(input) in \(folder).", path: input)
        }
    }

    /// Removes temporary files a crashed run left in the folders this batch writes to (the
    /// output folder, or each input's folder): staged outputs and x264 statistics. Returns how
    /// many it removed. Temporaries of conversions still running elsewhere are locked and left
    /// alone. Call once at the start.
    @discardableResult
    package func removeStaleTemporaries(for inputs: [String]) -> Int {
        var folders: Set<String> = []
        if let outputDirectory {
            folders.insert(outputDirectory)
        } else {
            for input in inputs {
                if let folder = try? directory(for: input) { folders.insert(folder) }
            }
        }
        return folders.reduce(0) { $0 + StagedOutput.removeStale(in: $1) }
    }

    /// The output path of one conversion run outside a batch (the engines' requests use it):
    /// `explicitPath` when given (with `suffix` before its extension; refused when it is the
    /// input), otherwise a fresh name for `input` in `directory` (next to the input when nil),
    /// chosen by the same rules as a batch's names.
    package static func destination(
        input: String, explicitPath: String?, directory: String?, overwrite: Bool, pathExtension: String,
        suffixes: [String] = [""]
    ) throws(ConvertError) -> [String] {
        if let explicitPath {
            let given = PathText.fileExtension(explicitPath)
            let ext = given.isEmpty ? pathExtension : given
            let paths = suffixes.map { PathText.deletingExtension(explicitPath) + $0 + "." + ext }
            for path in paths where isSameFile(path, input) {
                throw ConvertError(
                    code: .outputIsInput,
                    message: "The output \(path) is the input; offconvert never overwrites its input.", path: path)
            }
            return paths
        }
        let namer = try OutputNamer(outputDirectory: directory, overwrite: overwrite, inputs: [input])
        var paths: [String] = []
        for suffix in suffixes {
            paths.append(try namer.destination(for: input, pathExtension: pathExtension, suffix: suffix))
        }
        return paths
    }

    /// The name after `path` in the numbering ``destination(for:pathExtension:suffix:)`` uses:
    /// `photo.jpg` → `photo (2).jpg`, `photo (2).jpg` → `photo (3).jpg`.
    static func nextNumbered(_ path: String) -> String {
        let ext = PathText.fileExtension(path)
        var stem = PathText.stem(path)
        var number = 2
        if stem.hasSuffix(")"), let open = stem.lastRange(of: " ("),
            let current = Int(stem[open.upperBound..<stem.index(before: stem.endIndex)]), current >= 2
        {
            number = current + 1
            stem = String(stem[..<open.lowerBound])
        }
        return PathText.join(PathText.parent(path), name(stem, number: number, pathExtension: ext))
    }

    /// `stem.ext`, or `stem (number).ext` from 2 on, with the stem shortened so the whole name
    /// fits a file name's byte limit.
    private static func name(_ stem: String, number: Int, pathExtension ext: String) -> String {
        let suffix = number == 1 ? "" : " (\(number))"
        let dotted = ext.isEmpty ? "" : "." + ext
        return truncate(stem, toFit: maximumNameBytes - suffix.utf8.count - dotted.utf8.count) + suffix + dotted
    }

    /// Whether `a` and `b` are the same existing file (by device and inode, so links count).
    package static func isSameFile(_ a: String, _ b: String) -> Bool {
        guard let first = fileID(a), let second = fileID(b) else { return false }
        return first == second
    }

    /// Whether `candidate` may be written: free, or (with overwrite) a regular file that is not
    /// an input.
    private func isUsable(_ candidate: String) -> Bool {
        var link = stat()
        guard lstat(candidate, &link) == 0 else { return errno == ENOENT }
        guard overwrite else { return false }
        // Only a plain file is replaced; a folder, a socket or a symlink (which could point at an
        // input or anywhere else) is numbered around.
        guard link.st_mode & S_IFMT == S_IFREG else { return false }
        return !inputIDs.contains(FileID(device: UInt64(link.st_dev), inode: UInt64(link.st_ino)))
    }

    private static func fileID(_ path: String) -> FileID? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return FileID(device: UInt64(info.st_dev), inode: UInt64(info.st_ino))
    }

    private static func resolve(_ path: String) throws(ConvertError) -> String {
        guard let resolved = realpath(path) else {
            throw ConvertError.fileSystem(errno, action: "open the folder", path: path)
        }
        return resolved
    }

    /// `name` made safe as one path component: control characters, bidi controls, `/` and `\`
    /// become `_`; leading dots, dashes and spaces and trailing dots and spaces are removed
    /// (no hidden files, nothing a later tool reads as an option); an empty result is `output`.
    fileprivate static func sanitise(_ name: String) -> String {
        let scalars = name.unicodeScalars.map { scalar -> Unicode.Scalar in
            let value = scalar.value
            let unsafe =
                value < 0x20 || (0x7F...0x9F).contains(value) || value == 0x2F || value == 0x5C
                || (0x202A...0x202E).contains(value) || (0x2066...0x2069).contains(value) || value == 0x2028
                || value == 0x2029 || value == 0xFEFF
            return unsafe ? "_" : scalar
        }
        var text = String(String.UnicodeScalarView(scalars))
        while let first = text.first, first == "." || first == "-" || first == " " { text.removeFirst() }
        while let last = text.last, last == "." || last == " " { text.removeLast() }
        return text.isEmpty ? "output" : text
    }

    /// `text` cut at a character boundary to at most `bytes` UTF-8 bytes (at least one character).
    package static func truncate(_ text: String, toFit bytes: Int) -> String {
        guard text.utf8.count > bytes else { return text }
        var result = ""
        for character in text {
            guard result.utf8.count + character.utf8.count <= max(bytes, 1) else { break }
            result.append(character)
        }
        return result.isEmpty ? "output" : result
    }
}
