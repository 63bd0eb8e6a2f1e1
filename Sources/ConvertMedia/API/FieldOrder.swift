/// Which field of an interlaced picture is shown first: what a camcorder's 1080i or a TV
/// recording stores, and what a player or deinterlacer must know to show motion in order.
///
/// JSON: `"top-first"` or `"bottom-first"`, under ``VideoTrackInfo``'s `interlaced` key.
public enum FieldOrder: String, Sendable, Codable, Hashable {
    /// The top field is shown first (AVCHD, most HD camcorders and broadcasts).
    case topFirst = "top-first"
    /// The bottom field is shown first (DV and most standard-definition tape).
    case bottomFirst = "bottom-first"

    /// How `info` says it: "interlaced, top field first".
    public var summary: String {
        switch self {
        case .topFirst: "interlaced, top field first"
        case .bottomFirst: "interlaced, bottom field first"
        }
    }
}
