import ConvertBatch
import ConvertCore
import Foundation

// BatchExample INBOX OUTBOX JOURNAL: every photo in INBOX to a JPEG in OUTBOX, 256 MiB of
// photos converting at once at most, resumable: killed and run again, it converts what is left.
let arguments = CommandLine.arguments
guard arguments.count == 4 else {
    print("usage: BatchExample INBOX OUTBOX JOURNAL-FOLDER")
    exit(64)
}
let (inbox, outbox, journal) = (arguments[1], arguments[2], arguments[3])
// Each line written at once (not buffered), so a reader of the pipe sees it as it happens, even
// when the process is killed.
@Sendable func say(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

let names = (try? FileManager.default.contentsOfDirectory(atPath: inbox)) ?? []
let requests = names.sorted().map {
    PhotoRequest(inputPath: inbox + "/" + $0, format: .jpeg, quality: 85, outputDirectory: outbox)
}
let batch = PhotoBatch(requests, memoryBudget: 256 << 20, concurrency: 2, journalFolder: journal)

do throws(ConvertError) {
    let items = try await batch.run(
        onProgress: { progress in
            say("progress \(Int(progress.fraction * 100)) % (\(progress.ended) of \(progress.total))")
        },
        onItem: { item in
            switch item.outcome {
            case .converted(let result): say("converted \(item.index): \(result.outputs[0].path)")
            case .alreadyDone: say("already done \(item.index)")
            case .failed(let error): say("failed \(item.index): \(error.publicMessage)")
            case .cancelled: say("cancelled \(item.index)")
            }
        })
    var counts = ["converted": 0, "alreadyDone": 0, "failed": 0, "cancelled": 0]
    for item in items {
        switch item.outcome {
        case .converted: counts["converted", default: 0] += 1
        case .alreadyDone: counts["alreadyDone", default: 0] += 1
        case .failed: counts["failed", default: 0] += 1
        case .cancelled: counts["cancelled", default: 0] += 1
        }
    }
    let summary = counts.sorted { $0.key < $1.key }.map { "\"\($0.key)\": \($0.value)" }.joined(separator: ", ")
    say("{\(summary)}")
} catch {
    say(error.publicMessage)
    exit(1)
}
