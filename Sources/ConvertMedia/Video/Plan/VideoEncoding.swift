import ConvertCore

/// How one video stream is re-encoded.
struct VideoEncoding: Sendable, Equatable {
    /// FFmpeg encoder name (`libx264`, `libx265`, `libvpx-vp9`, `libsvtav1`, `gif`).
    var encoder: String
    /// Encoder private options (`crf`, `preset`, ...).
    var options: [OutputFormat.Option]
    /// The libavfilter chain between decoder and encoder (scale, rotation, tone map, format).
    var filter: String
    /// The dynamic-range handling the filter implements.
    var dynamicRange: ToneMapDecision.Action
    /// Whether the output keeps the source's display matrix (false when pixels are rotated).
    var keepsDisplayMatrix: Bool
    /// Whether the filter deinterlaces an interlaced source (see ``VideoPlanner/deinterlace(_:mode:)``).
    var deinterlaces = false
}
