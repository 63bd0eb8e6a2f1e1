/// What kind of media a file holds, as ``MediaProbe/kind(path:)`` tells from its first bytes.
public enum MediaKind: String, Sendable, Equatable {
    /// A still image offconvert's photo engine reads.
    case photo
    /// A movie or sound file, for the video engine.
    case video
}
