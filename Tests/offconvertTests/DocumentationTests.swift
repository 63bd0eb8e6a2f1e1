import Foundation
import Testing

@Suite("manual page and completions")
struct DocumentationTests {
    @Test("the manual page is roff with every command in it")
    func manual() async throws {
        let outcome = try await CLIRunner.run(["--generate-manual"])
        #expect(outcome.status == 0)
        #expect(outcome.stdout.hasPrefix(".TH OFFCONVERT 1"))
        let overview = try await CLIRunner.run([])
        let commandNames = overview.stdout.split(separator: "\n", omittingEmptySubsequences: false)
            .drop { !$0.hasPrefix("COMMANDS:") }.dropFirst()
            .prefix { !$0.isEmpty }
            .filter { !$0.hasPrefix("   ") }  // wrapped help continues on deeper-indented lines
            .compactMap { $0.split(separator: " ").first.map(String.init) }
        #expect(commandNames.count >= 8)
        for name in commandNames {
            let roffName = name.replacingOccurrences(of: "-", with: "\\-")
            #expect(outcome.stdout.contains(".SS offconvert \(roffName)"), "manual lacks \(name)")
        }
    }

    @Test("no line of text in the manual page starts as a roff request")
    func noStrayRequests() async throws {
        let outcome = try await CLIRunner.run(["--generate-manual"])
        let requests: Set<Substring> = [".TH", ".SH", ".SS", ".PP", ".TP", ".B", ".I", ".nf", ".fi"]
        for line in outcome.stdout.split(separator: "\n") where line.hasPrefix(".") || line.hasPrefix("'") {
            #expect(requests.contains(line.split(separator: " ").first ?? line), "read as a request: \(line)")
        }
    }

    @Test("completion scripts are generated for each shell", arguments: ["bash", "zsh", "fish"])
    func completion(shell: String) async throws {
        let outcome = try await CLIRunner.run(["--generate-completion-script", shell])
        #expect(outcome.status == 0)
        #expect(outcome.stdout.contains("offconvert"))
    }

    @Test("the bash completion script is valid bash")
    func bashSyntax() async throws {
        let outcome = try await CLIRunner.run(["--generate-completion-script", "bash"])
        let file = FileManager.default.temporaryDirectory.appendingPathComponent(
            "offconvert-completion-\(UUID().uuidString).bash")
        try outcome.stdout.write(to: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: file) }
        let check = Process()
        check.executableURL = URL(fileURLWithPath: "/bin/bash")
        check.arguments = ["-n", file.path]
        try check.run()
        check.waitUntilExit()
        #expect(check.terminationStatus == 0)
    }

    /// Every benchmark figure the README states is generated from Benchmarks/results.json by
    /// `Benchmarks/run --render` (between `<!-- bench:begin -->` and `<!-- bench:end -->`, with
    /// RESULTS.md and ratios.svg); a figure typed by hand there, or results.json changed without
    /// rendering, fails here with the diff.
    @Test("the README's benchmark section is what Benchmarks/run --render writes from results.json")
    func benchmarkSection() async throws {
        let outcome = try await CLIRunner.run(
            ["python3", CLIRunner.root.appendingPathComponent("Benchmarks/run").path, "--render", "--check"],
            executable: URL(fileURLWithPath: "/usr/bin/env"), directory: CLIRunner.root, timeout: 120)
        #expect(outcome.status == 0, "\(outcome.stderr)")
        let readme = try String(contentsOf: CLIRunner.root.appendingPathComponent("README.md"), encoding: .utf8)
        #expect(readme.contains("<!-- bench:begin -->") && readme.contains("<!-- bench:end -->"))
    }

    @Test("an unknown shell is a usage error")
    func unknownShell() async throws {
        let outcome = try await CLIRunner.run(["--generate-completion-script", "tcsh"])
        #expect(outcome.status == 64)
        #expect(outcome.stderr.contains("expected one of bash, zsh, fish"))
    }
}
