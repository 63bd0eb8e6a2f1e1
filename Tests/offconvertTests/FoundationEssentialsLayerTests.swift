import Foundation
import Testing

/// The photo executable loads no full Foundation: ConvertCore, OffconvertCLI and
/// offconvert-photo import FoundationEssentials (and libc, Synchronization, Dispatch) only, so
/// `offconvert-photo` does not load libFoundation, libFoundationInternationalization and ICU
/// (about 5 ms and 5 MB on every photo command).
@Suite("Photo executable on FoundationEssentials")
struct FoundationEssentialsLayerTests {
    static let sources = CLIRunner.root.appendingPathComponent("Sources")
    static let folders = ["ConvertCore", "OffconvertCLI", "offconvert-photo"]
    static let fullFoundation = ["libFoundation.so", "libFoundationInternationalization.so", "lib_FoundationICU.so"]

    /// Every Swift file under `folder`, relative to Sources/.
    static func swiftFiles(under folder: String) throws -> [String] {
        let base = sources.appendingPathComponent(folder)
        let walker = try #require(FileManager.default.enumerator(atPath: base.path))
        return walker.compactMap { $0 as? String }.filter { $0.hasSuffix(".swift") }.map { "\(folder)/\($0)" }
    }

    /// The `offconvert-photo` executable built next to this test bundle, if there is one.
    static let photoExecutable: URL? = {
        var directory = Bundle.main.bundleURL
        for _ in 0..<3 {
            let candidate = directory.appendingPathComponent("offconvert-photo")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
            directory.deleteLastPathComponent()
        }
        return nil
    }()

    @Test("no file of the photo side imports full Foundation")
    func noFoundationImports() throws {
        var files: [String] = []
        var importers: [String] = []
        for folder in Self.folders {
            for file in try Self.swiftFiles(under: folder) {
                files.append(file)
                let text = try String(contentsOf: Self.sources.appendingPathComponent(file), encoding: .utf8)
                let imports = text.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
                if imports.contains(where: {
                    $0.range(
                        of: "^(@[A-Za-z_]+ )*((public|package|internal) )?import Foundation$",
                        options: .regularExpression) != nil
                }) {
                    importers.append(file)
                }
            }
        }
        #expect(files.count >= 70, "the sources were found: \(files.count) files")
        #expect(importers.isEmpty, "files that import Foundation instead of FoundationEssentials: \(importers)")
    }

    @Test("the built offconvert-photo needs no full Foundation library")
    func noFoundationLibraries() throws {
        guard let executable = Self.photoExecutable else { return }
        let readelf = Process()
        readelf.executableURL = URL(fileURLWithPath: "/usr/bin/readelf")
        readelf.arguments = ["-d", executable.path]
        let output = Pipe()
        readelf.standardOutput = output
        try readelf.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        readelf.waitUntilExit()
        let needed = String(decoding: data, as: UTF8.self).split(separator: "\n").filter { $0.contains("(NEEDED)") }
        #expect(readelf.terminationStatus == 0 && !needed.isEmpty, "readelf read \(executable.path)")
        let loaded = needed.filter { line in Self.fullFoundation.contains { line.contains("[\($0)]") } }
        #expect(loaded.isEmpty, "offconvert-photo needs full Foundation: \(loaded)")
    }
}
