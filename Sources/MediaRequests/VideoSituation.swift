import ConvertCore

/// What a conversion is for. The situation decides defaults and what counts as compatible.
public enum VideoSituation: String, Sendable {
    /// An MP4 with H.264 and AAC that plays on a stock Windows PC: copied when the source already
    /// is that, re-encoded otherwise (HDR tone mapped to SDR).
    case sendToWindows = "send-to-windows"
    /// Exactly the container and codecs the request names; streams that already fit are copied.
    case convert
}
