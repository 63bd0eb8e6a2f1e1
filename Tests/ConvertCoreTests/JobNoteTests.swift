import Foundation
import Testing

@testable import ConvertCore
@testable import ConvertMedia

/// The notes a host app gets: a typed kind with the values to word it, and an English message
/// that names no command-line option (the CLI adds those; see Messages.note).
@Suite("JobNote: typed notes without CLI words")
struct JobNoteTests {
    /// Converts `fixture` to `format` in a fresh folder; the job's notes.
    static func photoNotes(_ fixture: String, to format: PhotoFormat, frame: Int? = nil) async throws -> [JobNote] {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        var request = PhotoRequest(
            inputPath: Fixtures.generated(fixture), format: format, outputDirectory: directory.path)
        request.frame = frame
        return try await PhotoConverter.convert(request).result().notes
    }

    /// Converts video `fixture` to MP4 (or as `change` says) in a fresh folder; the job's notes.
    static func videoNotes(_ fixture: String, _ change: (inout VideoRequest) -> Void = { _ in }) async throws
        -> [JobNote]
    {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        var request = VideoRequest(
            input: Fixtures.generated(fixture), container: .mp4, output: OutputLocation(directory: directory.path))
        change(&request)
        return try await VideoConverter.convert(request).result().notes
    }

    /// A library message must not tell a host app's user to type an option or run a command.
    static func expectNoCLIWords(_ notes: [JobNote], sourceLocation: SourceLocation = #_sourceLocation) {
        for note in notes {
            #expect(
                !note.message.contains("--") && !note.message.contains("offconvert"), "\(note.code): \(note.message)",
                sourceLocation: sourceLocation)
        }
    }

    @Test("a stereo MPO: the pictures-left-out note with its count")
    func mpo() async throws {
        let notes = try await Self.photoNotes("mpo/stereo.mpo", to: .png)
        let note = try #require(notes.first { $0.code == .picturesLeftOut }, "\(notes)")
        #expect(note.detail == .picturesLeftOut(pictures: 2, stereo: true))
        #expect(note.message == "a stereo (MPO) photo: only the first (left-eye) picture is kept")
        Self.expectNoCLIWords(notes)
    }

    @Test("a 3-page TIFF: the pages-left-out note with its count")
    func tiff() async throws {
        let notes = try await Self.photoNotes("tiff/multi.tiff", to: .png)
        let note = try #require(notes.first { $0.code == .pagesLeftOut }, "\(notes)")
        #expect(note.detail == .pagesLeftOut(pages: 3) && note.message == "3 pages; the first kept")
        Self.expectNoCLIWords(notes)
    }

    @Test("an animated GIF as a still: the animation-still note with frames, time and the frame kept")
    func animatedGIF() async throws {
        let first = try await Self.photoNotes("anim/spinner.gif", to: .png)
        let note = try #require(first.first { $0.code == .animationStill }, "\(first)")
        #expect(
            note.detail
                == .animationStill(
                    .init(format: .gif, frames: 24, milliseconds: 2400, keptFrame: 1, frameWasChosen: false)))
        #expect(note.message == "an animation (24 frames, 2.4 s): only the first frame is kept")
        let chosen = try await Self.photoNotes("anim/spinner.gif", to: .png, frame: 5)
        let picked = try #require(chosen.first { $0.code == .animationStill }, "\(chosen)")
        #expect(
            picked.detail
                == .animationStill(
                    .init(format: .gif, frames: 24, milliseconds: 2400, keptFrame: 5, frameWasChosen: true)))
        Self.expectNoCLIWords(first + chosen)
    }

    @Test("a video with its subtitles dropped: the subtitles-dropped note with the track count")
    func droppedSubtitles() async throws {
        let notes = try await Self.videoNotes("subtitles.mkv") { $0.subtitles = .drop }
        let note = try #require(notes.first { $0.code == .subtitlesDropped }, "\(notes)")
        #expect(note.detail == .subtitlesDropped(tracks: 3) && note.message == "3 subtitle tracks left out")
        Self.expectNoCLIWords(notes)
    }

    /// Every kind the library gives that a front end adds advice to, triggered for real: none of
    /// their messages (nor any other note of those jobs) names an option or the command.
    @Test("no note message names an option or the command")
    func noCLIWords() async throws {
        var notes: [JobNote] = []
        notes += try await Self.photoNotes("mpo/stereo.mpo", to: .png)
        notes += try await Self.photoNotes("tiff/multi.tiff", to: .png)
        notes += try await Self.photoNotes("anim/spinner.gif", to: .png)
        notes += try await Self.photoNotes("anim/spinner.webp", to: .png)
        notes += try await Self.videoNotes("subtitles.mkv") { $0.subtitles = .drop }
        notes += try await Self.videoNotes("video-iphone-like.mov")
        notes += try await Self.videoNotes("fidelity-raw-untimed.hevc")
        notes += try await Self.videoNotes("fidelity-raw-untimed.hevc") { $0.rawFrameRate = 50 }
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        notes += try await VideoConverter.gif(
            GIFRequest(
                input: Fixtures.generated("fidelity-14s.mp4"), framesPerSecond: 2, width: 32,
                output: OutputLocation(directory: directory.path))
        ).result().notes
        let kinds: Set<JobNote.Code> = [
            .picturesLeftOut, .pagesLeftOut, .animationStill, .subtitlesDropped, .audioTrackLeftOut,
            .rawStreamTiming, .largeGIF,
        ]
        #expect(kinds.isSubset(of: Set(notes.map(\.code))), "\(notes.map(\.code))")
        Self.expectNoCLIWords(notes)
        let assumed = notes.first { if case .rawStreamTiming(_, .assumed) = $0.detail { true } else { false } }
        #expect(assumed?.detail == .rawStreamTiming(framesPerSecond: 30, source: .assumed), "\(notes)")
    }
}
