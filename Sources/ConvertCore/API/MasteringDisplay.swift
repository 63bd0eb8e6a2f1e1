/// SMPTE ST 2086 mastering display colour volume (MP4 `mdcv`, HEVC/AV1 metadata, FFmpeg's
/// `AVMasteringDisplayMetadata`).
///
/// JSON object: `red`, `green`, `blue`, `whitePoint` (``Chromaticity``, absent when the file gave
/// no primaries), `minLuminance`, `maxLuminance` (cd/m², absent when not given).
public struct MasteringDisplay: Hashable, Sendable, Codable {
    /// Red primary.
    public var red: Chromaticity?
    /// Green primary.
    public var green: Chromaticity?
    /// Blue primary.
    public var blue: Chromaticity?
    /// White point.
    public var whitePoint: Chromaticity?
    /// Minimum luminance of the mastering display, cd/m².
    public var minLuminance: Double?
    /// Maximum luminance of the mastering display, cd/m².
    public var maxLuminance: Double?

    /// Creates a mastering display description.
    public init(
        red: Chromaticity? = nil, green: Chromaticity? = nil, blue: Chromaticity? = nil,
        whitePoint: Chromaticity? = nil, minLuminance: Double? = nil, maxLuminance: Double? = nil
    ) {
        self.red = red
        self.green = green
        self.blue = blue
        self.whitePoint = whitePoint
        self.minLuminance = minLuminance
        self.maxLuminance = maxLuminance
    }

    /// Whether `other` describes the same display within rounding (FFmpeg keeps rationals, boxes
    /// keep integers in 0.00002 and 0.0001 cd/m² steps).
    package func approximatelyEqual(_ other: MasteringDisplay) -> Bool {
        func close(_ a: Double?, _ b: Double?, _ tolerance: Double) -> Bool {
            switch (a, b) {
            case (nil, nil): true
            case (let a?, let b?): abs(a - b) <= tolerance
            default: false
            }
        }
        let points = [(red, other.red), (green, other.green), (blue, other.blue), (whitePoint, other.whitePoint)]
        return points.allSatisfy { close($0.0?.x, $0.1?.x, 0.0001) && close($0.0?.y, $0.1?.y, 0.0001) }
            && close(minLuminance, other.minLuminance, 0.001) && close(maxLuminance, other.maxLuminance, 0.5)
    }
}
