import Foundation
import Testing

@testable import ConvertCore

/// A conversion says "motion part not kept" exactly for motion photos, answered from what it
/// read (the JPEG bytes a path held, the streamed path's head and open file, the HEIF reader's
/// item model): the input is never opened again for it.
@Suite("Motion note from what the conversion read")
struct MotionNoteTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var fixture: String
        var format: PhotoFormat
        var change: @Sendable (inout PhotoRequest) -> Void = { _ in }
        var isMotion: Bool
        /// Which path converts it, for the test's name.
        var path: String
        var testDescription: String { "\(fixture) → \(format.rawValue) (\(path))" }
    }

    static let cases: [Case] = [
        Case(fixture: "generated/motion-google.MP.jpg", format: .png, isMotion: true, path: "general"),
        Case(fixture: "generated/motion-microvideo.jpg", format: .png, isMotion: true, path: "general"),
        Case(fixture: "generated/motion-samsung.jpg", format: .jpeg, isMotion: true, path: "streamed"),
        Case(fixture: "generated/motion-microvideo.jpg", format: .jpeg, isMotion: true, path: "streamed"),
        Case(
            fixture: "generated/motion-samsung.jpg", format: .jpeg, change: { $0.targetByteCount = 50_000_000 },
            isMotion: true,
            path: "within target"),
        Case(
            fixture: "generated/motion-samsung.jpg", format: .jxl, change: { $0.lossless = true }, isMotion: true,
            path: "JPEG recompressed"),
        Case(fixture: "generated/motion.heic", format: .jpeg, isMotion: true, path: "direct HEIC"),
        Case(fixture: "generated/motion-samsung-oneui6.heic", format: .png, isMotion: true, path: "general HEIC"),
        Case(fixture: "generated/motion-still.jpg", format: .jpeg, isMotion: false, path: "streamed"),
        Case(fixture: "generated/motion-still.jpg", format: .png, isMotion: false, path: "general"),
        Case(fixture: "photos/pug.heic", format: .jpeg, isMotion: false, path: "direct HEIC"),
    ]

    @Test("the note exactly for motion photos, with no second open of the input", arguments: cases)
    func note(_ testCase: Case) async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        // A copy of its own: another test asking about the shared fixture cannot touch the count.
        let input = directory.appendingPathComponent("in-" + URL(fileURLWithPath: testCase.fixture).lastPathComponent)
            .path
        try FileManager.default.copyItem(atPath: Fixtures.path(testCase.fixture), toPath: input)
        let output = directory.appendingPathComponent("out").path
        try FileManager.default.createDirectory(atPath: output, withIntermediateDirectories: true)
        var request = PhotoRequest(inputPath: input, format: testCase.format, outputDirectory: output)
        testCase.change(&request)
        MotionPhoto.pathChecks.watch(input)
        defer { MotionPhoto.pathChecks.stopWatching(input) }
        let result = try await PhotoConverter.convert(request).result()
        #expect(
            result.notes.messages.contains(MotionPhotoEditor.motionNotKeptNote) == testCase.isMotion,
            "\(result.notes.messages)")
        #expect(MotionPhoto.pathChecks.parses(of: input) == 0)
    }
}
