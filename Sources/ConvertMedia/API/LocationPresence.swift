import ConvertCore

/// Whether a file records where it was made, and in which places.
///
/// JSON object: `{"present": true, "sources": ["exif", "xmp"]}`, the sources as
/// ``LocationSource``'s stable ids.
public struct LocationPresence: Sendable, Codable, Hashable {
    /// Whether any location is recorded.
    public var present: Bool
    /// Where.
    public var sources: [LocationSource]
    /// True when the file could not be read whole (a damaged picture): ``sources`` lists what
    /// could be found, and there may be more, so an empty list does not mean no location.
    /// Absent (nil) for a file read whole.
    public var incomplete: Bool?

    /// A presence built from its sources (present when there is at least one).
    public init(sources: [LocationSource]) {
        self.sources = sources
        present = !sources.isEmpty
    }
}
