import ConvertCore

/// A video codec offconvert encodes.
public enum VideoCodec: String, Sendable, CaseIterable {
    /// H.264 (libx264): plays everywhere. SDR only.
    case h264
    /// HEVC (libx265): smaller; keeps HDR (10-bit).
    case hevc
    /// VP9 (libvpx-vp9): for WebM. SDR only here.
    case vp9
    /// AV1 (SVT-AV1): smallest; keeps HDR (10-bit).
    case av1
}
