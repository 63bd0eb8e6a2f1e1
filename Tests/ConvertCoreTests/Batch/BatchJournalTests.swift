import Foundation
import Testing

@testable import ConvertBatch
@testable import ConvertCore

@Suite("Batch journal")
struct BatchJournalTests {
    private struct Setup {
        let folder: URL
        let state: String
        let input: URL
        let output: URL
    }

    private func setup() throws -> Setup {
        let folder = try Fixtures.temporaryDirectory()
        let input = folder.appendingPathComponent("a.heic")
        let output = folder.appendingPathComponent("a.jpg")
        try Data("input".utf8).write(to: input)
        try Data("output!".utf8).write(to: output)
        return Setup(folder: folder, state: folder.appendingPathComponent("state").path, input: input, output: output)
    }

    private let identity = ["heic-to-jpg", "quality=85", "/in/a.heic"]

    @Test("a finished item is found by the next run of the same batch, and only while nothing changed")
    func resume() throws {
        let s = try setup()
        defer { try? FileManager.default.removeItem(at: s.folder) }
        do {
            let journal = try BatchJournal(identity: identity, stateDirectory: s.state)
            try journal.recordFinished(
                index: 0, input: s.input.path, outputs: [OutputFile(path: s.output.path, byteCount: 7)])
        }
        let again = try BatchJournal(identity: identity, stateDirectory: s.state)
        #expect(
            again.completedOutputs(index: 0, input: s.input.path) == [OutputFile(path: s.output.path, byteCount: 7)])
        #expect(again.completedOutputs(index: 1, input: s.input.path) == nil)
        #expect(again.completedOutputs(index: 0, input: "/other") == nil)
        try Data("output changed".utf8).write(to: s.output)
        #expect(again.completedOutputs(index: 0, input: s.input.path) == nil)
    }

    @Test("another batch, --no-resume, or a changed input start over")
    func startOver() throws {
        let s = try setup()
        defer { try? FileManager.default.removeItem(at: s.folder) }
        do {
            let journal = try BatchJournal(identity: identity, stateDirectory: s.state)
            try journal.recordFinished(
                index: 0, input: s.input.path, outputs: [OutputFile(path: s.output.path, byteCount: 7)])
        }
        do {
            let other = try BatchJournal(identity: identity + ["--overwrite"], stateDirectory: s.state)
            #expect(other.finishedCount == 0)
        }
        do {
            try Data("input, edited".utf8).write(to: s.input)
            let journal = try BatchJournal(identity: identity, stateDirectory: s.state)
            #expect(journal.finishedCount == 1)
            #expect(journal.completedOutputs(index: 0, input: s.input.path) == nil)
        }
        let fresh = try BatchJournal(identity: identity, stateDirectory: s.state, resume: false)
        #expect(fresh.finishedCount == 0)
    }

    @Test("a line torn by a crash is ignored; a completed journal is kept and marked, --overwrite restarts it")
    func tornLineAndEnd() throws {
        let s = try setup()
        defer { try? FileManager.default.removeItem(at: s.folder) }
        let path: String
        do {
            let journal = try BatchJournal(identity: identity, stateDirectory: s.state)
            try journal.recordFinished(
                index: 0, input: s.input.path, outputs: [OutputFile(path: s.output.path, byteCount: 7)])
            path = journal.path
        }
        let handle = try #require(FileHandle(forWritingAtPath: path))
        try handle.seekToEnd()
        try handle.write(contentsOf: Data(#"{"index":1,"input":"/in/b.he"#.utf8))
        try handle.close()
        let journal = try BatchJournal(identity: identity, stateDirectory: s.state)
        #expect(journal.finishedCount == 1)
        let mode = try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int
        #expect(mode == 0o600)
        journal.end(allSucceeded: false)
        #expect(FileManager.default.fileExists(atPath: path))
        journal.end(allSucceeded: true)
        journal.release()
        // A completed batch keeps its journal: the same command again skips what it made.
        let again = try BatchJournal(identity: identity, stateDirectory: s.state)
        #expect(again.completedOutputs(index: 0, input: s.input.path) != nil)
        again.release()
        // With --overwrite a completed batch starts over; --no-resume always does.
        let overwriting = try BatchJournal(identity: identity, stateDirectory: s.state, restartIfComplete: true)
        #expect(overwriting.finishedCount == 0)
    }

    @Test("another batch of the same recipe sees what the first made: its inputs and its outputs")
    func sameRecipe() throws {
        let s = try setup()
        defer { try? FileManager.default.removeItem(at: s.folder) }
        let recipe = ["heic-to-jpg", "quality=85"]
        do {
            let first = try BatchJournal(identity: recipe + [s.input.path], recipe: recipe, stateDirectory: s.state)
            try first.recordFinished(
                index: 0, input: s.input.path, outputs: [OutputFile(path: s.output.path, byteCount: 7)])
            first.end(allSucceeded: true)
            first.release()
        }
        // `heic-to-jpg *` again: the inputs now include the JPEG the first run made.
        let second = try BatchJournal(
            identity: recipe + [s.input.path, s.output.path], recipe: recipe, stateDirectory: s.state)
        #expect(second.completedOutputs(index: 0, input: s.input.path) == nil)
        #expect(second.earlierOutputs(for: s.input.path)?.map(\.path) == [s.output.path])
        #expect(second.isEarlierOutput(s.output.path))
        #expect(!second.isEarlierOutput(s.input.path))
        second.release()
        // Another recipe of the same command (another quality) converts the input again, but
        // never takes the first run's output as an input; another command may.
        let other = ["heic-to-jpg", "quality=90"]
        let third = try BatchJournal(identity: other + [s.input.path], recipe: other, stateDirectory: s.state)
        #expect(third.earlierOutputs(for: s.input.path) == nil)
        #expect(third.isEarlierOutput(s.output.path))
        third.release()
        let png = ["heic-to-png", "quality=90"]
        let fourth = try BatchJournal(identity: png + [s.output.path], recipe: png, stateDirectory: s.state)
        #expect(!fourth.isEarlierOutput(s.output.path))
    }

    @Test("the same batch cannot run twice at once")
    func exclusive() throws {
        let s = try setup()
        defer { try? FileManager.default.removeItem(at: s.folder) }
        let first = try BatchJournal(identity: identity, stateDirectory: s.state)
        expectConvertError(.batchRunning) { try BatchJournal(identity: identity, stateDirectory: s.state) }
        withExtendedLifetime(first) {}
    }

    @Test("a released journal lets the same batch start again while the old object still exists")
    func release() throws {
        let s = try setup()
        defer { try? FileManager.default.removeItem(at: s.folder) }
        let first = try BatchJournal(identity: identity, stateDirectory: s.state)
        first.end(allSucceeded: true)
        first.release()
        let second = try BatchJournal(identity: identity, stateDirectory: s.state)
        #expect(second.finishedCount == 0)
        withExtendedLifetime(first) {}
    }

    @Test("a crash between committing an output and recording it: the re-run recognises the output")
    func startedThenCrashed() throws {
        let s = try setup()
        defer { try? FileManager.default.removeItem(at: s.folder) }
        let placed = s.folder.appendingPathComponent("b.jpg")
        let never = s.folder.appendingPathComponent("c.jpg")
        let old = s.folder.appendingPathComponent("d.jpg")
        try Data("old".utf8).write(to: old)
        // Someone else's file, there before the batch started: its inode changed more than the
        // one second of slack before the start.
        Thread.sleep(forTimeInterval: 1.5)
        do {
            let journal = try BatchJournal(identity: identity, stateDirectory: s.state)
            try journal.recordStarted(index: 0, input: s.input.path, destination: placed.path)
            try journal.recordStarted(index: 1, input: s.input.path, destination: never.path)
            try journal.recordStarted(index: 2, input: s.input.path, destination: old.path)
            try journal.recordStarted(index: 3, input: s.input.path, destination: s.output.path)
            try journal.recordFinished(
                index: 3, input: s.input.path, outputs: [OutputFile(path: s.output.path, byteCount: 7)])
            try Data("new output".utf8).write(to: placed)
            // The output is given its source's modification time (FileStamp): still this run's.
            try FileManager.default.setAttributes(
                [.modificationDate: Date(timeIntervalSinceNow: -86_400 * 400)], ofItemAtPath: placed.path)
        }
        let journal = try BatchJournal(identity: identity, stateDirectory: s.state)
        #expect(journal.finishedCount == 1)
        #expect(
            journal.completedOutputs(index: 0, input: s.input.path) == [OutputFile(path: placed.path, byteCount: 10)])
        #expect(journal.completedOutputs(index: 1, input: s.input.path) == nil)
        #expect(journal.completedOutputs(index: 2, input: s.input.path) == nil)
        #expect(
            journal.completedOutputs(index: 3, input: s.input.path) == [OutputFile(path: s.output.path, byteCount: 7)])
    }
}

@Suite("Batch journal: damage and a linked state folder")
struct BatchJournalDamageTests {
    @Test(
        "a truncated or garbled journal is reported, and its mirror still recognises the outputs",
        arguments: ["truncate", "garble"])
    func damaged(_ damage: String) throws {
        let folder = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = folder.appendingPathComponent("a.heic")
        let output = folder.appendingPathComponent("a.jpg")
        try Data("input".utf8).write(to: input)
        try Data("output!".utf8).write(to: output)
        let state = folder.appendingPathComponent("state").path
        let identity = ["heic-to-jpg", input.path]
        let path: String
        do {
            let journal = try BatchJournal(identity: identity, stateDirectory: state)
            try journal.recordFinished(
                index: 0, input: input.path, outputs: [OutputFile(path: output.path, byteCount: 7)])
            #expect(!journal.isDamaged)
            path = journal.path
        }
        if damage == "truncate" {
            try Data().write(to: URL(fileURLWithPath: path))
        } else {
            try Data("{\"index\":0,\"inp\u{0}".utf8).write(to: URL(fileURLWithPath: path))
        }
        let again = try BatchJournal(identity: identity, stateDirectory: state)
        #expect(again.isDamaged)
        #expect(again.completedOutputs(index: 0, input: input.path) == [OutputFile(path: output.path, byteCount: 7)])
        // Another file of the same size at the output's path is not the output.
        try Data("OUTPUT?".utf8).write(to: output)
        #expect(again.completedOutputs(index: 0, input: input.path) == nil)
    }

    @Test("a state folder that is a symbolic link is refused before anything is created in it")
    func linkedStateFolder() throws {
        let folder = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let target = folder.appendingPathComponent("target")
        try FileManager.default.createDirectory(at: target, withIntermediateDirectories: true)
        let link = folder.appendingPathComponent("state")
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: target)
        expectConvertError(.allowanceStore) { try BatchJournal(identity: ["x"], stateDirectory: link.path) }
        #expect(try FileManager.default.contentsOfDirectory(atPath: target.path).isEmpty)
    }
}
