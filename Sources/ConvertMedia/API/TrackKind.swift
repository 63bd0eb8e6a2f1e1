import ConvertCore

/// What a track carries. An open set; JSON: the ``name`` string.
public struct TrackKind: Hashable, Sendable, Codable, CustomStringConvertible {
    /// The stable name: `video`, `audio`, `subtitle`, `data`, `attachment` or `unknown`.
    public let name: String
    /// Creates a kind from its name.
    public init(_ name: String) { self.name = name }

    /// Pictures.
    public static let video = TrackKind("video")
    /// Sound.
    public static let audio = TrackKind("audio")
    /// Subtitles or captions.
    public static let subtitle = TrackKind("subtitle")
    /// Timed metadata, timecode and other data (`mebx`, `tmcd`, `mett`, ...).
    public static let data = TrackKind("data")
    /// An attached file (Matroska fonts, cover art).
    public static let attachment = TrackKind("attachment")
    /// Anything else.
    public static let unknown = TrackKind("unknown")

    /// The stable short name, as written in JSON.

    public var description: String { name }

    /// Decodes the JSON form documented on the type.

    public init(from decoder: any Decoder) throws {
        self.init(try decoder.singleValueContainer().decode(String.self))
    }

    /// Encodes the JSON form documented on the type.

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(name)
    }
}
