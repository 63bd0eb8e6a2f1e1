import Foundation
import Testing

/// The README's architecture section is a map of `Sources/`; a folder added, renamed or moved
/// without updating it fails here, so the map cannot drift from the tree.
@Suite("README architecture section")
struct ArchitectureSectionTests {
    /// The folders whose subfolders the section describes one by one.
    static let described = ["ConvertCore", "ConvertMedia", "ConvertMedia/Video", "OffconvertCLI", "offconvert-media"]

    @Test("every source target and every folder of the described targets is named in it")
    func everyFolderNamed() throws {
        let section = try Self.section()
        let sources = CLIRunner.root.appendingPathComponent("Sources")
        var missing: [String] = []
        for target in try Self.folders(in: sources) where !Self.names(target, in: section) {
            missing.append(target)
        }
        for parent in Self.described {
            for folder in try Self.folders(in: sources.appendingPathComponent(parent))
            where !section.contains(folder + "/") {
                missing.append(parent + "/" + folder)
            }
        }
        #expect(missing.isEmpty, "README.md's architecture section does not name: \(missing.joined(separator: ", "))")
    }

    @Test("the check sees a folder the section does not name")
    func checkCanFail() throws {
        let section = try Self.section()
        #expect(!section.contains("Pipelines42/"))
        #expect(!Self.names("CNotALibrary", in: section))
        #expect(Self.names("CPNGShim", in: section))
    }

    /// The fenced block under `## Architecture`.
    static func section() throws -> String {
        let readme = try String(contentsOf: CLIRunner.root.appendingPathComponent("README.md"), encoding: .utf8)
        guard let heading = readme.range(of: "\n## Architecture\n"),
            let open = readme.range(of: "```\n", range: heading.upperBound..<readme.endIndex),
            let close = readme.range(of: "\n```", range: open.upperBound..<readme.endIndex)
        else { return "" }
        return String(readme[open.upperBound..<close.lowerBound])
    }

    /// Whether `target` appears in `section` as a whole word (`CHeif` in a list, `CPNGShim/`).
    static func names(_ target: String, in section: String) -> Bool {
        let separators = CharacterSet.whitespacesAndNewlines.union(CharacterSet(charactersIn: "/,()"))
        return section.components(separatedBy: separators).contains(target)
    }

    static func folders(in url: URL) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: url.path).filter { name in
            var isFolder: ObjCBool = false
            return FileManager.default.fileExists(atPath: url.appendingPathComponent(name).path, isDirectory: &isFolder)
                && isFolder.boolValue
        }.sorted()
    }
}
