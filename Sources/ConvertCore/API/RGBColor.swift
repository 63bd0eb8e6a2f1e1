/// An opaque 8-bit sRGB colour, used as the background alpha is flattened onto.
public struct RGBColor: Sendable, Equatable, Codable {
    /// Red, 0...255.
    public var red: UInt8
    /// Green, 0...255.
    public var green: UInt8
    /// Blue, 0...255.
    public var blue: UInt8

    /// Creates a colour from its components.
    public init(red: UInt8, green: UInt8, blue: UInt8) {
        self.red = red
        self.green = green
        self.blue = blue
    }

    /// White, the default background.
    public static let white = RGBColor(red: 255, green: 255, blue: 255)
    /// Black.
    public static let black = RGBColor(red: 0, green: 0, blue: 0)

    /// Parses `white`, `black`, `#RRGGBB` or `RRGGBB`; nil when the text is none of these.
    public init?(parsing text: String) {
        switch text.lowercased() {
        case "white": self = .white
        case "black": self = .black
        default:
            let hex = text.hasPrefix("#") ? String(text.dropFirst()) : text
            guard hex.count == 6, let value = UInt32(hex, radix: 16) else { return nil }
            self.init(red: UInt8(value >> 16), green: UInt8((value >> 8) & 0xFF), blue: UInt8(value & 0xFF))
        }
    }
}
