import Foundation

/// Chooses where an output goes: next to the input (or in the requested folder), named after the
/// input with the new extension, never the input itself and never an existing file unless
/// overwriting was asked for (`clip (2).mp4`, `clip (3).mp4`, ... otherwise).
///
/// The name is chosen before any work; the no-clobber commit of ``StagedOutput`` still refuses to
/// replace a file another process created under that name meanwhile.
enum OutputNaming {
    /// The destination for converting `input` to `fileExtension`.
    static func destination(input: String, fileExtension: String, location: OutputLocation) throws(ConvertError) -> String {
        if let path = location.path {
            if isSameFile(path, input) {
                throw ConvertError(.request, key: "output.is-input",
                                   message: "The output \(path) is the input; offconvert never overwrites its input.",
                                   path: path)
            }
            if !location.overwrite && FileManager.default.fileExists(atPath: path) {
                throw ConvertError(.request, key: "output.exists",
                                   message: "\(path) already exists; nothing was overwritten.", path: path)
            }
            return path
        }
        let inputURL = URL(fileURLWithPath: input)
        let folder = URL(fileURLWithPath: location.directory ?? inputURL.deletingLastPathComponent().path)
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: folder.path, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw ConvertError(.request, key: "output.no-folder", message: "The output folder \(folder.path) does not exist.",
                               path: folder.path)
        }
        let base = inputURL.deletingPathExtension().lastPathComponent
        for number in 1...9999 {
            let name = number == 1 ? "\(base).\(fileExtension)" : "\(base) (\(number)).\(fileExtension)"
            let candidate = folder.appendingPathComponent(name).path
            if isSameFile(candidate, input) { continue }
            if location.overwrite || !FileManager.default.fileExists(atPath: candidate) { return candidate }
        }
        throw ConvertError(.request, key: "output.exists", message: "No free output name next to \(input).", path: input)
    }

    /// Whether `candidate` is the same file as `input` (by path, or by inode when both exist).
    static func isSameFile(_ candidate: String, _ input: String) -> Bool {
        let a = URL(fileURLWithPath: candidate).standardizedFileURL.resolvingSymlinksInPath().path
        let b = URL(fileURLWithPath: input).standardizedFileURL.resolvingSymlinksInPath().path
        if a == b { return true }
        var first = stat()
        var second = stat()
        guard stat(candidate, &first) == 0, stat(input, &second) == 0 else { return false }
        return first.st_dev == second.st_dev && first.st_ino == second.st_ino
    }
}
