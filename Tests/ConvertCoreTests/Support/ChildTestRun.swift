import Foundation

/// This test binary started again, filtered to one child suite, with extra environment: for
/// tests that measure a process of their own (peak memory, a pool stall) or kill one.
enum ChildTestRun {
    /// The child process, configured but not started; its output goes nowhere.
    static func process(filter: String, environment extra: [String: String]) throws -> Process {
        let child = Process()
        child.executableURL = URL(
            fileURLWithPath: try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
        child.arguments = ["--testing-library", "swift-testing", "--filter", filter]
        child.environment = ProcessInfo.processInfo.environment.merging(extra) { _, new in new }
        child.standardOutput = FileHandle.nullDevice
        child.standardError = FileHandle.nullDevice
        return child
    }

    /// Runs the child to its end. Waited for without holding a thread: a child runs for seconds,
    /// and a blocked cooperative thread (there are as many as cores) stalls every other suite.
    static func run(filter: String, environment extra: [String: String]) async throws {
        let child = try process(filter: filter, environment: extra)
        let exited = AsyncStream<Void>.makeStream()
        child.terminationHandler = { _ in exited.continuation.finish() }
        try child.run()
        for await _ in exited.stream {}
    }
}
