import Foundation

/// Names as the file system holds them: bytes, which need not be UTF-8 (`caf\xE9.jpg` from an
/// old camera card or a zip). Foundation's listing and `Process` cannot carry such a name.
extension UserFolder {
    /// Copies `TestMedia/<media>` to the file named by `name`'s bytes.
    func add(_ media: String, asBytes name: [UInt8]) throws {
        let data = try Data(contentsOf: CLIRunner.media.appendingPathComponent(media))
        let fd = Self.withPath(Array(url.path.utf8) + [UInt8(ascii: "/")] + name) {
            open($0, O_WRONLY | O_CREAT | O_EXCL, 0o644)
        }
        guard fd >= 0 else { throw CocoaError(.fileWriteUnknown) }
        defer { close(fd) }
        let written = data.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, data.count) }
        guard written == data.count else { throw CocoaError(.fileWriteUnknown) }
    }

    /// Makes the folder named by `name`'s bytes.
    func makeFolder(bytes name: [UInt8]) {
        _ = Self.withPath(Array(url.path.utf8) + [UInt8(ascii: "/")] + name) { mkdir($0, 0o755) }
    }

    /// The names in `folder` (relative to this folder, as bytes), sorted; hidden ones too (a
    /// leftover temporary is one), but not the allowance state.
    func names(in folder: [UInt8] = Array(".".utf8)) -> [[UInt8]] {
        Self.rawNames(Array(url.path.utf8) + [UInt8(ascii: "/")] + folder).filter { $0 != Array(".state".utf8) }
            .sorted { $0.lexicographicallyPrecedes($1) }
    }

    /// The names in the folder at `path` (bytes), as `readdir` gives them, without `.` and `..`.
    static func rawNames(_ path: [UInt8]) -> [[UInt8]] {
        guard let stream = withPath(path, { opendir($0) }) else { return [] }
        defer { closedir(stream) }
        var names: [[UInt8]] = []
        while let entry = readdir(stream) {
            let name = withUnsafeBytes(of: &entry.pointee.d_name) { Array($0.prefix { $0 != 0 }) }
            if name != Array(".".utf8) && name != Array("..".utf8) { names.append(name) }
        }
        return names
    }

    /// The contents of the file named by `name`'s bytes; nil when it cannot be opened.
    func contents(of name: [UInt8]) -> Data? {
        let fd = Self.withPath(Array(url.path.utf8) + [UInt8(ascii: "/")] + name) { open($0, O_RDONLY) }
        guard fd >= 0 else { return nil }
        return FileHandle(fileDescriptor: fd, closeOnDealloc: true).readDataToEndOfFile()
    }

    /// Runs `offconvert` with arguments given as bytes, in the folder, with the folder's
    /// allowance state or `state`.
    func run(bytes arguments: [[UInt8]], state: String? = nil) async -> RawSpawn.Outcome {
        var environment = CLIRunner.childEnvironment
        environment["XDG_STATE_HOME"] = state ?? self.state
        return await RawSpawn.run(
            [Array(CLIRunner.executable.path.utf8)] + arguments, environment: environment, directory: url.path)
    }

    /// Runs a shell command line in the folder, with `$OC` the `offconvert` under test: what a
    /// user's `offconvert convert * --to png` does, the shell expanding `*` to the raw names.
    func shell(_ line: String) async -> RawSpawn.Outcome {
        var environment = CLIRunner.childEnvironment
        environment["XDG_STATE_HOME"] = state
        environment["OC"] = CLIRunner.executable.path
        return await RawSpawn.run(
            [Array("/bin/sh".utf8), Array("-c".utf8), Array(line.utf8)], environment: environment, directory: url.path)
    }

    private static func withPath<Result>(_ bytes: [UInt8], _ body: (UnsafePointer<CChar>) -> Result) -> Result {
        (bytes + [0]).map { CChar(bitPattern: $0) }.withUnsafeBufferPointer { body($0.baseAddress!) }
    }
}
