/// A chromaticity coordinate in CIE 1931 xy.
///
/// JSON object: `x`, `y` (numbers).
public struct Chromaticity: Hashable, Sendable, Codable {
    /// CIE x.
    public var x: Double
    /// CIE y.
    public var y: Double
    /// Creates a coordinate.
    public init(x: Double, y: Double) {
        self.x = x
        self.y = y
    }
}
