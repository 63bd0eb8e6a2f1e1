import Foundation

/// A working directory like a user's: files with the names people have (one letter, spaces,
/// unicode, a phone's `IMG_0001.HEIC` beside its `.MOV` and `.AAE`), commands run from inside it
/// with relative paths, and one allowance state for the whole session, as on a real machine.
struct UserFolder {
    /// The folder, which the commands run in.
    let url: URL
    /// `XDG_STATE_HOME` for every run in this folder.
    let state: String

    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent(
            "offconvert-user-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        state = url.appendingPathComponent(".state").path
    }

    /// Removes the folder.
    func remove() { try? FileManager.default.removeItem(at: url) }

    /// Copies `TestMedia/<media>` to `name` (relative, parents created).
    func add(_ media: String, as name: String) throws {
        let target = url.appendingPathComponent(name)
        try FileManager.default.createDirectory(
            at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: CLIRunner.media.appendingPathComponent(media), to: target)
    }

    /// Writes `text` to `name`.
    func write(_ text: String, to name: String) throws {
        try Data(text.utf8).write(to: url.appendingPathComponent(name))
    }

    /// What the shell's `*` gives here: the visible names, sorted.
    func star() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: url.path).filter { !$0.hasPrefix(".") }.sorted()
    }

    /// Every file below the folder (relative paths, sorted), the state folder left out.
    func files() -> [String] {
        guard let walker = FileManager.default.enumerator(atPath: url.path) else { return [] }
        var found: [String] = []
        while let path = walker.nextObject() as? String {
            guard !path.hasPrefix(".state") else { continue }
            var isFolder: ObjCBool = false
            if FileManager.default.fileExists(atPath: url.appendingPathComponent(path).path, isDirectory: &isFolder),
                !isFolder.boolValue
            {
                found.append(path)
            }
        }
        return found.sorted()
    }

    /// Runs `offconvert arguments` in the folder.
    func run(_ arguments: [String], environment: [String: String] = [:]) async throws -> CLIRunner.Outcome {
        var env = environment
        if env["XDG_STATE_HOME"] == nil { env["XDG_STATE_HOME"] = state }
        return try await CLIRunner.run(arguments, environment: env, directory: url)
    }

    /// Free conversions used today in this folder's state.
    func used() throws -> Int {
        let outcome = try CLIRunner.toolOutput(
            CLIRunner.executable.path, ["allowance", "--json"], environment: ["XDG_STATE_HOME": state])
        let object = try JSONSerialization.jsonObject(with: Data(outcome.utf8)) as? [String: Any]
        return object?["used"] as? Int ?? -1
    }
}
