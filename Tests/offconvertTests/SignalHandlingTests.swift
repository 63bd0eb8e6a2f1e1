import Foundation
import Testing

@testable import offconvert

@Suite("Signal handling", .serialized)
struct SignalHandlingTests {
    @Test("SIGINT and SIGTERM cancel the running work and are reported", arguments: [SIGINT, SIGTERM])
    func signalCancels(_ number: Int32) async {
        let (value, interrupted) = await SignalHandling.run { () async -> String in
            // Give the dispatch sources a moment to arm, then signal this very process.
            try? await Task.sleep(for: .milliseconds(200))
            kill(getpid(), number)
            do {
                try await Task.sleep(for: .seconds(30))
                return "finished"
            } catch {
                return "cancelled"
            }
        }
        #expect(value == "cancelled")
        #expect(interrupted)
    }

    @Test("without a signal the work runs to the end")
    func noSignal() async {
        let (value, interrupted) = await SignalHandling.run { 42 }
        #expect(value == 42)
        #expect(!interrupted)
    }
}
