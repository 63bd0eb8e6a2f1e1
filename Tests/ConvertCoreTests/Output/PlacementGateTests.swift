import ConvertMedia
import Foundation
import Synchronization
import Testing

@testable import ConvertCore

/// The placement gate travels in the request, never implicitly: a conversion given one calls it
/// just before its output appears and once it is there; a gate that refuses leaves nothing in
/// place; a conversion given none places its output all the same.
@Suite("Placement gate: passed with the request, called around the rename")
struct PlacementGateTests {
    /// Records what the destination looked like each time it was called.
    final class RecordingGate: PlacementGate {
        let destination: Mutex<String?> = Mutex(nil)
        /// `willPlace` or `didPlace`, and whether a file of that name existed then.
        let calls: Mutex<[(String, Bool)]> = Mutex([])
        let refuses: Bool

        init(refuses: Bool = false) { self.refuses = refuses }

        func willPlace() throws(ConvertError) {
            record("willPlace")
            if refuses { throw ConvertError(code: .allowanceExhausted, message: "Refused by the test's gate.") }
        }

        func didPlace() { record("didPlace") }

        private func record(_ name: String) {
            let exists = destination.withLock { $0 }.map { FileManager.default.fileExists(atPath: $0) } ?? false
            calls.withLock { $0.append((name, exists)) }
        }
    }

    @Test("a photo conversion calls its request's gate before the JPEG appears and after it is in place")
    func photoRequest() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let destination = directory.appendingPathComponent("out.jpg").path
        let gate = RecordingGate()
        gate.destination.withLock { $0 = destination }
        var request = PhotoRequest(
            inputPath: Fixtures.path("photos/DSCN0010.jpg"), format: .jpeg, outputPath: destination)
        request.placementGate = gate
        let result = try await PhotoConverter.convert(request).result()
        #expect(result.outputs.map(\.path) == [destination])
        let calls = gate.calls.withLock { $0 }
        #expect(calls.map(\.0) == ["willPlace", "didPlace"])
        #expect(calls.map(\.1) == [false, true])
    }

    @Test("a gate that refuses leaves no output and no temporary file, and the job fails with its error")
    func refusingGate() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let destination = directory.appendingPathComponent("out.png").path
        var request = PhotoRequest(
            inputPath: Fixtures.path("photos/DSCN0010.jpg"), format: .png, outputPath: destination)
        request.placementGate = RecordingGate(refuses: true)
        await expectConvertError(.allowanceExhausted) {
            try await PhotoConverter.convert(request).result()
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty)
    }

    @Test("a video job's gate rides in its OutputLocation; equal locations ignore it")
    func videoOutputLocation() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let destination = directory.appendingPathComponent("clip.mp4").path
        let gate = RecordingGate()
        gate.destination.withLock { $0 = destination }
        var output = OutputLocation(path: destination)
        output.placementGate = gate
        #expect(output == OutputLocation(path: destination))
        let request = VideoRequest.sendToWindows(Fixtures.path("video/sample.mp4"), output: output)
        let result = try await VideoConverter.convert(request).result()
        #expect(result.outputs.map(\.path) == [destination])
        #expect(gate.calls.withLock { $0 }.map(\.0) == ["willPlace", "didPlace"])
        #expect(gate.calls.withLock { $0 }.map(\.1) == [false, true])
    }

    @Test("no engine or CLI source carries state implicitly in a task-local")
    func noTaskLocals() throws {
        let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Sources")
        let enumerator = try #require(FileManager.default.enumerator(atPath: sources.path))
        var scanned = 0
        var found: [String] = []
        for case let path as String in enumerator where path.hasSuffix(".swift") {
            scanned += 1
            let text = try String(contentsOf: sources.appendingPathComponent(path), encoding: .utf8)
            if text.contains("@TaskLocal") { found.append(path) }
        }
        #expect(scanned > 100)
        #expect(found.isEmpty, "task-locals in \(found)")
    }
}
