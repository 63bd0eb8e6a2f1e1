import Testing

@testable import ConvertCore
@testable import ConvertMedia

@Suite("conversion jobs")
struct ConversionJobTests {
    @Test("an error caused by the interruption still ends a cancelled job as cancelled")
    func cancelledWins() async {
        let job = ConversionJob.start(path: "clip.mp4") { _ in
            while !Task.isCancelled { await Task.yield() }
            // What an interrupted av_read_frame can look like: a read error, not AVERROR_EXIT.
            throw ConvertError(code: .inputTruncated, message: "clip.mp4 is incomplete.")
        }
        job.cancel()
        var terminal: [JobEvent] = []
        for await event in job.events where event.isTerminal { terminal.append(event) }
        #expect(terminal == [.failed(.cancelled(path: "clip.mp4"))])
    }

    @Test("a job that was not cancelled reports its own error")
    func ownError() async {
        let job = ConversionJob.start(path: "clip.mp4") { _ in
            throw ConvertError(code: .inputTruncated, message: "clip.mp4 is incomplete.")
        }
        var terminal: [JobEvent] = []
        for await event in job.events where event.isTerminal { terminal.append(event) }
        guard case .failed(let error)? = terminal.first else {
            Issue.record("expected a failure, got \(terminal)")
            return
        }
        #expect(terminal.count == 1)
        #expect(error.code == .inputTruncated)
    }
}
