import ConvertCore
import Foundation
import Testing

/// Issue #53: a photo job's progress moves while the picture decodes (tile by tile), so an app's
/// bar is not stuck at "decoding 0 %" for most of the job. Read from the public event stream, as
/// an app reads it.
@Suite("Photo progress moves during the decode")
struct PhotoProgressTests {
    /// The progress events of converting `fixture` to `format`, in order.
    static func progress(_ fixture: String, to format: PhotoFormat) async throws -> [JobProgress] {
        let folder = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let job = PhotoConverter.convert(
            PhotoRequest(inputPath: Fixtures.path(fixture), format: format, outputDirectory: folder.path))
        var events: [JobProgress] = []
        var finished = false
        for await event in job.events {
            switch event {
            case .progress(let progress): events.append(progress)
            case .finished: finished = true
            case .failed(let error): Issue.record("\(error.category): \(error.message)")
            }
        }
        #expect(finished)
        return events
    }

    @Test(
        "a 12 MP grid HEIC reports at least 10 steps, in order, none more than a tenth of the job apart",
        arguments: [PhotoFormat.jpeg, .png])
    func twelveMegapixelHEIC(_ format: PhotoFormat) async throws {
        // IMG_3853: 4032x3024 in 48 tiles, with a gain map; JPEG takes the banded direct path,
        // PNG the general one.
        let events = try await Self.progress("photos/IMG_3853.HEIC", to: format)
        let fractions = events.map(\.fraction)
        #expect(events.count >= 10, "\(events.count) progress events: \(fractions)")
        #expect(fractions == fractions.sorted(), "progress went backwards: \(fractions)")
        let decoding = events.filter { $0.stage == .decoding }.map(\.fraction)
        let steps = zip(decoding, decoding.dropFirst()).map { $1 - $0 }
        #expect(steps.allSatisfy { $0 <= 0.1 }, "a step over 10 % while decoding: \(decoding)")
        #expect((decoding.last ?? 0) >= 0.5, "the decode's events end at \(decoding.last ?? 0)")
    }
}
