import Foundation
import Testing

/// The engine's CPU work runs on threads it owns (BlockingExecutor, WorkerPool): on Linux
/// Dispatch's global queues share their threads with Swift's global executor, so work there
/// stalls every task of an app that embeds the library.
@Suite("Engine threads: no Dispatch global work in the engine's sources")
struct EngineThreadSourceTests {
    static let forbidden = ["DispatchQueue.global", "concurrentPerform(", "DispatchQueue.concurrentPerform"]
    static let engineTargets = ["ConvertCore", "ConvertMedia", "FFmpegLayer"]

    /// The forbidden uses in `text`, comment lines left out, as "line: code".
    static func violations(in text: String) -> [String] {
        text.split(separator: "\n", omittingEmptySubsequences: false).enumerated().compactMap { number, line in
            let code = line.trimmingCharacters(in: .whitespaces)
            guard !code.hasPrefix("//"), forbidden.contains(where: { code.contains($0) }) else { return nil }
            return "\(number + 1): \(code)"
        }
    }

    @Test("the scanner finds a planted use and skips comments")
    func scannerFindsPlanted() {
        let planted = """
            // DispatchQueue.concurrentPerform(iterations: 4) in a comment is fine
            DispatchQueue.global().async { work() }
            let x = 1
            DispatchQueue.concurrentPerform(iterations: n) { body($0) }
            """
        #expect(Self.violations(in: planted).count == 2)
    }

    @Test("no engine source runs work on Dispatch's global queues or concurrentPerform")
    func noGlobalDispatch() throws {
        var found: [String] = []
        for target in Self.engineTargets {
            let folder = Fixtures.root.appendingPathComponent("Sources/\(target)")
            let files = try #require(FileManager.default.enumerator(atPath: folder.path))
            for case let file as String in files where file.hasSuffix(".swift") {
                let text = try String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8)
                found += Self.violations(in: text).map { "\(target)/\(file):\($0)" }
            }
        }
        #expect(found.isEmpty, "\(found)")
    }
}
