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
}
