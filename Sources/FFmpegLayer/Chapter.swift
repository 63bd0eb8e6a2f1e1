import ConvertCore

/// One chapter of a clip (a QuickTime chapter track or `chpl`, Matroska `Chapters`), in seconds
/// from the start of the clip as it is written (the container's start time taken off).
package struct Chapter: Sendable, Equatable {
    /// Where it starts and ends.
    package var start: Double
    package var end: Double
    /// Its tags (`title`, and in Matroska a language).
    package var tags: [Tag]

    /// One tag, named as FFmpeg's dictionaries name it.
    package struct Tag: Sendable, Equatable {
        package var key: String
        package var value: String
    }

    /// The chapter as it falls in the part `from`..<`to` of the clip (seconds, `to` nil for the
    /// end), moved to start at 0 there; nil when it falls outside.
    package func clipped(from start: Double, to end: Double?) -> Chapter? {
        let newStart = max(self.start, start)
        let newEnd = min(self.end, end ?? self.end)
        guard newEnd > newStart else { return nil }
        return Chapter(start: newStart - start, end: newEnd - start, tags: tags)
    }

    /// The most chapters Vorbis comments can number (`CHAPTER000` to `CHAPTER999`).
    package static let vorbisCommentLimit = 1000

    /// `chapters` as the Vorbis comments FLAC and Ogg players (and FFmpeg's demuxers) read:
    /// `CHAPTER000=00:01:02.500` and `CHAPTER000NAME=Verse`, numbered from 0, timed to the
    /// millisecond. The format has no end times (a chapter ends where the next starts) and no
    /// numbers past 999, so later chapters are left out.
    package static func vorbisComments(_ chapters: [Chapter]) -> [(key: String, value: String)] {
        var comments: [(key: String, value: String)] = []
        for (index, chapter) in chapters.prefix(vorbisCommentLimit).enumerated() {
            let number = zeroPadded(index, width: 3)
            let milliseconds = Int((max(chapter.start, 0) * 1000).rounded())
            let seconds = milliseconds / 1000
            let time =
                zeroPadded(seconds / 3600, width: 2) + ":" + zeroPadded(seconds / 60 % 60, width: 2) + ":"
                + zeroPadded(seconds % 60, width: 2) + "." + zeroPadded(milliseconds % 1000, width: 3)
            comments.append((key: "CHAPTER\(number)", value: time))
            if let title = chapter.tags.first(where: { $0.key.lowercased() == "title" }) {
                comments.append((key: "CHAPTER\(number)NAME", value: title.value))
            }
        }
        return comments
    }
}
