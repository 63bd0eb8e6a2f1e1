/// One chapter of a clip, as ``ContainerInfo/chapters`` lists it.
///
/// JSON object: `{"start": 0.201, "end": 0.8, "title": "Chapter 2"}` (`title` absent when the
/// chapter has none).
public struct ChapterInfo: Sendable, Codable, Hashable {
    /// Where it starts, in seconds from the start of the clip.
    public var start: Double
    /// Where it ends, in seconds.
    public var end: Double
    /// Its title, when it has one.
    public var title: String?

    /// Creates a chapter description.
    public init(start: Double, end: Double, title: String? = nil) {
        self.start = start
        self.end = end
        self.title = title
    }
}
