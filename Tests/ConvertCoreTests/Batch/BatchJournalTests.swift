import ConvertCore
import Foundation
import Testing

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
        let input = folder.appendingPathComponent("a.heic"), output = folder.appendingPathComponent("a.jpg")
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
            try journal.recordFinished(index: 0, input: s.input.path, outputs: [OutputFile(path: s.output.path, byteCount: 7)])
        }
        let again = try BatchJournal(identity: identity, stateDirectory: s.state)
        #expect(again.completedOutputs(index: 0, input: s.input.path) == [OutputFile(path: s.output.path, byteCount: 7)])
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
            try journal.recordFinished(index: 0, input: s.input.path, outputs: [OutputFile(path: s.output.path, byteCount: 7)])
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

    @Test("a line torn by a crash is ignored; the journal is removed when the batch succeeded")
    func tornLineAndEnd() throws {
        let s = try setup()
        defer { try? FileManager.default.removeItem(at: s.folder) }
        let path: String
        do {
            let journal = try BatchJournal(identity: identity, stateDirectory: s.state)
            try journal.recordFinished(index: 0, input: s.input.path, outputs: [OutputFile(path: s.output.path, byteCount: 7)])
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
        #expect(!FileManager.default.fileExists(atPath: path))
    }

    @Test("the same batch cannot run twice at once")
    func exclusive() throws {
        let s = try setup()
        defer { try? FileManager.default.removeItem(at: s.folder) }
        let first = try BatchJournal(identity: identity, stateDirectory: s.state)
        let error = #expect(throws: ConvertError.self) { try BatchJournal(identity: identity, stateDirectory: s.state) }
        #expect(error?.key == "batch.running")
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
        let placed = s.folder.appendingPathComponent("b.jpg"), never = s.folder.appendingPathComponent("c.jpg")
        let old = s.folder.appendingPathComponent("d.jpg")
        try Data("old".utf8).write(to: old)
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSinceNow: -3_600)], ofItemAtPath: old.path)
        do {
            let journal = try BatchJournal(identity: identity, stateDirectory: s.state)
            try journal.recordStarted(index: 0, input: s.input.path, destination: placed.path)
            try journal.recordStarted(index: 1, input: s.input.path, destination: never.path)
            try journal.recordStarted(index: 2, input: s.input.path, destination: old.path)
            try journal.recordStarted(index: 3, input: s.input.path, destination: s.output.path)
            try journal.recordFinished(index: 3, input: s.input.path, outputs: [OutputFile(path: s.output.path, byteCount: 7)])
            try Data("new output".utf8).write(to: placed)
        }
        let journal = try BatchJournal(identity: identity, stateDirectory: s.state)
        #expect(journal.finishedCount == 1)
        #expect(journal.completedOutputs(index: 0, input: s.input.path) == [OutputFile(path: placed.path, byteCount: 10)])
        #expect(journal.completedOutputs(index: 1, input: s.input.path) == nil)
        #expect(journal.completedOutputs(index: 2, input: s.input.path) == nil)
        #expect(journal.completedOutputs(index: 3, input: s.input.path) == [OutputFile(path: s.output.path, byteCount: 7)])
    }
}
