import Foundation
import Testing

@testable import OffconvertCLI

/// Every `--help` text, byte for byte as the built `offconvert` prints it, against the copy kept
/// in `HelpTexts/` (written by `Scripts/help-texts`): a changed option, default or wording shows
/// in review as a changed file, and no command can lose or gain a line unnoticed.
@Suite("--help texts")
struct HelpTextTests {
    static let folder = CLIRunner.root.appendingPathComponent("Tests/offconvertTests/HelpTexts")

    static func kept(_ name: String) throws -> String {
        try String(contentsOf: folder.appendingPathComponent(name + ".txt"), encoding: .utf8)
    }

    @Test("the overview is printed exactly as kept")
    func overview() async throws {
        let run = try await CLIRunner.run(["--help"])
        #expect(run.status == 0)
        #expect(run.stdout == (try Self.kept("overview")), "run Scripts/help-texts after changing the overview")
    }

    @Test("each command's --help is printed exactly as kept", arguments: Commands.all.map { $0.spec.name })
    func command(_ name: String) async throws {
        let run = try await CLIRunner.run([name, "--help"])
        #expect(run.status == 0)
        #expect(run.stdout == (try Self.kept(name)), "run Scripts/help-texts after changing \(name)'s options")
    }

    @Test("a kept text exists for every command and for no other")
    func noStrayTexts() throws {
        let files = try FileManager.default.contentsOfDirectory(atPath: Self.folder.path).filter {
            $0.hasSuffix(".txt")
        }
        let expected = ["overview"] + Commands.all.map { $0.spec.name }
        #expect(Set(files.map { String($0.dropLast(4)) }) == Set(expected))
    }
}
