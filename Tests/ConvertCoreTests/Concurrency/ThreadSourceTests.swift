import Foundation
import Testing

/// Every thread the engine uses comes from the pools it owns (``BlockingExecutor``'s lanes and
/// ``WorkerPool``, both sized by ``ConversionLimits``): a scan of `Sources/` finds no other
/// source of threads. Dispatch's global queues and `concurrentPerform` are the threads of Swift's
/// global executor on Linux, so work there stalls every task of the host process; a thread of
/// its own escapes the limits. Shared state takes one lock type, ``PthreadLocked``, the one
/// ThreadSanitizer sees ordering the accesses.
@Suite("Thread sources: the engine's threads are its pools'")
struct ThreadSourceTests {
    /// One forbidden spelling, where it applies and the files allowed it.
    struct Rule: Sendable {
        var spelling: String
        /// Whether a match must stand alone on its left (`Thread(` but not `DetachedThread(`).
        var wordStart: Bool = false
        /// nil: every target under `Sources/`; else these targets only.
        var targets: Set<String>? = nil
        /// Files (paths under `Sources/`) where the spelling is the pool itself.
        var allowedIn: Set<String> = []
        var why: String
    }

    /// The targets that make up the engine.
    static let engine: Set<String> = [
        "ConvertCore", "ConvertBatch", "ConvertAllowance", "MediaRequests", "FFmpegLayer", "ConvertMedia",
    ]

    static let rules: [Rule] = [
        Rule(spelling: "DispatchQueue.global", why: "the global executor's threads"),
        Rule(spelling: "concurrentPerform", why: "runs on the global executor's threads"),
        Rule(spelling: "DispatchSource.makeTimerSource", why: "a Dispatch queue: the global executor's threads"),
        Rule(spelling: "Thread(", wordStart: true, why: "a thread outside the pools"),
        Rule(spelling: "detachNewThread", why: "a thread outside the pools"),
        Rule(spelling: "Task.detached", why: "work on the cooperative pool"),
        Rule(
            spelling: "DispatchQueue(", targets: engine, why: "on Linux a queue targets the global executor's threads"),
        Rule(spelling: "DispatchGroup", targets: engine, why: "work on Dispatch's threads"),
        Rule(
            spelling: "DetachedThread.start", targets: engine,
            allowedIn: ["ConvertCore/Support/BlockingExecutor.swift", "ConvertCore/Support/WorkerPool.swift"],
            why: "a thread outside the pools"),
        Rule(
            spelling: "pthread_create", allowedIn: ["ConvertCore/Support/DetachedThread.swift"],
            why: "a thread outside the pools"),
        Rule(
            spelling: "Mutex<", wordStart: true,
            why: "one lock type: PthreadLocked, whose lock ThreadSanitizer sees order the accesses"),
        Rule(
            spelling: "Mutex(", wordStart: true,
            why: "one lock type: PthreadLocked, whose lock ThreadSanitizer sees order the accesses"),
    ]

    /// The lines of `text` (a Swift file at `path` under `Sources/`) that break a rule, as
    /// `path:line: spelling`. Comments are not code: a `//` and what follows it are skipped.
    static func violations(in text: String, path: String) -> [String] {
        let target = String(path.split(separator: "/").first ?? "")
        var found: [String] = []
        for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let code = line.range(of: "//").map { String(line[..<$0.lowerBound]) } ?? String(line)
            for rule in rules {
                if let targets = rule.targets, !targets.contains(target) { continue }
                if rule.allowedIn.contains(path) { continue }
                var searchFrom = code.startIndex
                while let range = code.range(of: rule.spelling, range: searchFrom..<code.endIndex) {
                    searchFrom = range.upperBound
                    if rule.wordStart, range.lowerBound > code.startIndex {
                        let before = code[code.index(before: range.lowerBound)]
                        if before.isLetter || before.isNumber || before == "_" { continue }
                    }
                    found.append("\(path):\(number + 1): \(rule.spelling) (\(rule.why))")
                    break
                }
            }
        }
        return found
    }

    static let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Sources")

    @Test("no Swift file under Sources/ starts threads or queues work outside the engine's pools")
    func sourcesUseOnlyThePools() throws {
        let enumerator = try #require(FileManager.default.enumerator(atPath: Self.sources.path))
        var scanned = 0
        var found: [String] = []
        for case let path as String in enumerator where path.hasSuffix(".swift") {
            let text = try String(contentsOf: Self.sources.appendingPathComponent(path), encoding: .utf8)
            found += Self.violations(in: text, path: path)
            scanned += 1
        }
        #expect(scanned > 300, "the scan read Sources/")
        #expect(found.isEmpty, "\(found.joined(separator: "\n"))")
    }

    @Test("the scan finds each planted violation, and not the pools' own files or comments")
    func scannerFindsPlanted() {
        let planted = """
            import Dispatch
            func decode() {
                DispatchQueue.concurrentPerform(iterations: 4) { _ in }
                DispatchQueue.global().async { }
                let thread = Thread(block: { })
                Thread.detachNewThread { }
                Task.detached { }
                DispatchQueue(label: "x").async { }
                let group = DispatchGroup()
                DetachedThread.start { }
                // DispatchQueue.global() in a comment is not code
                let fine = DetachedThread.self
            }
            """
        let found = Self.violations(in: planted, path: "ConvertCore/Decode/Planted.swift")
        #expect(found.count == 8, "\(found)")
        for spelling in [
            "concurrentPerform", "DispatchQueue.global", "Thread(", "detachNewThread", "Task.detached",
            "DispatchQueue(", "DispatchGroup", "DetachedThread.start",
        ] {
            #expect(found.contains { $0.contains(": \(spelling) (") }, "\(spelling) is found")
        }
        #expect(!found.contains { $0.hasPrefix("ConvertCore/Decode/Planted.swift:11:") }, "comments are skipped")
        // The CLI may queue a signal source; the engine may not.
        #expect(Self.violations(in: "let q = DispatchQueue(label: \"s\")", path: "OffconvertCLI/Signals.swift").isEmpty)
        #expect(Self.violations(in: "DetachedThread.start { }", path: "ConvertCore/Support/WorkerPool.swift").isEmpty)
        #expect(Self.violations(in: "DispatchQueue.global()", path: "OffconvertCLI/Board.swift").count == 1)
        // One lock type, in every target; a name that ends in Mutex is not one.
        #expect(Self.violations(in: "let a = Mutex<Int>(0)", path: "OffconvertCLI/Board.swift").count == 1)
        #expect(Self.violations(in: "let b = Mutex(0)", path: "FFmpegLayer/Encoder.swift").count == 1)
        #expect(Self.violations(in: "let c = PthreadLocked(0)", path: "ConvertCore/Job.swift").isEmpty)
        #expect(Self.violations(in: "let d = RecursiveMutex(0)", path: "ConvertCore/Job.swift").isEmpty)
    }
}
