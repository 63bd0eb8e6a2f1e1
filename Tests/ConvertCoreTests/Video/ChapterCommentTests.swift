import Testing

@testable import FFmpegLayer

/// FLAC and Opus chapters as the Vorbis comments offconvert writes itself (issue 56): FFmpeg
/// 5.1's Ogg muxer rounds each start's seconds to the nearest (0.6 s became 00:00:01.600).
@Suite("Chapter Vorbis comments")
struct ChapterCommentTests {
    static func chapter(_ start: Double, _ title: String?) -> Chapter {
        Chapter(start: start, end: start + 1, tags: title.map { [Chapter.Tag(key: "title", value: $0)] } ?? [])
    }

    @Test("starts are written to the millisecond, never rounded up to the next second; titles become NAME")
    func times() {
        let comments = Chapter.vorbisComments([
            Self.chapter(0, "Intro"), Self.chapter(0.6, "Verse"), Self.chapter(3725.9996, nil),
        ])
        #expect(comments.map(\.key) == ["CHAPTER000", "CHAPTER000NAME", "CHAPTER001", "CHAPTER001NAME", "CHAPTER002"])
        #expect(comments.map(\.value) == ["00:00:00.000", "Intro", "00:00:00.600", "Verse", "01:02:06.000"])
    }

    @Test("past 1000 chapters (CHAPTER999) the rest are left out, as the format cannot number them")
    func limit() {
        let comments = Chapter.vorbisComments((0..<1002).map { Self.chapter(Double($0), nil) })
        #expect(comments.count == 1000)
        #expect(comments.last?.key == "CHAPTER999" && comments.last?.value == "00:16:39.000")
    }
}
