import Foundation
import Testing

@Suite("offconvert basics")
struct CLIBasicsTests {
    @Test("no arguments prints the overview and exits 0")
    func overview() async throws {
        let outcome = try await CLIRunner.run([])
        #expect(outcome.status == 0)
        #expect(outcome.stdout.contains("OVERVIEW:"))
        #expect(outcome.stdout.contains("USAGE: offconvert <command>"))
        #expect(outcome.stderr.isEmpty)
    }

    @Test("--version prints the version on stdout")
    func version() async throws {
        let outcome = try await CLIRunner.run(["--version"])
        #expect(outcome.status == 0)
        #expect(outcome.stdout.hasPrefix("offconvert "))
    }

    @Test("an unknown command is a usage error with exit 64")
    func unknownCommand() async throws {
        let outcome = try await CLIRunner.run(["frobnicate"])
        #expect(outcome.status == 64)
        #expect(outcome.stdout.isEmpty)
        #expect(outcome.stderr.contains("Error: Unknown command 'frobnicate'."))
        #expect(outcome.stderr.contains("See 'offconvert --help'"))
    }
}
