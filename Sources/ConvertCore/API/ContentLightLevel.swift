/// CTA-861.3 content light level (MP4 `clli`, FFmpeg's `AVContentLightMetadata`).
///
/// JSON object: `maxCLL`, `maxFALL` (integers, cd/m²).
public struct ContentLightLevel: Hashable, Sendable, Codable {
    /// Maximum content light level, cd/m².
    public var maxCLL: Int
    /// Maximum frame-average light level, cd/m².
    public var maxFALL: Int
    /// Creates a content light level.
    public init(maxCLL: Int, maxFALL: Int) {
        self.maxCLL = maxCLL
        self.maxFALL = maxFALL
    }
}
