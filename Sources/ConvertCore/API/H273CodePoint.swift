/// An ITU-T H.273 code point (colour primaries, transfer, matrix): an open set of integer codes
/// with FFmpeg's short names for JSON and readable names for people. Unknown codes print as
/// `code-N` and survive a JSON round trip.
public protocol H273CodePoint: Hashable, Sendable, Codable, CustomStringConvertible {
    /// The H.273 value.
    var code: Int { get }
    /// Creates a value from its H.273 code.
    init(code: Int)
    /// Short (JSON) and readable names of the known codes.
    static var names: [Int: (String, String)] { get }
    /// The codes that mean "not given by the file" (unspecified, reserved).
    static var unspecifiedCodes: Set<Int> { get }
}

extension H273CodePoint {
    /// The short, stable name used in JSON (FFmpeg's spelling), e.g. `bt2020`.
    public var name: String { Self.names[code]?.0 ?? "code-\(code)" }
    /// A readable name, e.g. `BT.2020`.
    public var displayName: String { Self.names[code]?.1 ?? "Code \(code)" }
    /// Whether the file gave no value (unspecified or reserved).
    public var isUnspecified: Bool { Self.unspecifiedCodes.contains(code) }
    /// The stable short name, as written in JSON.
    public var description: String { name }

    /// Decodes the short name (or `code-N`); an unknown name decodes as unspecified (2).
    public init(from decoder: any Swift.Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        if let match = Self.names.first(where: { $0.value.0 == text }) {
            self.init(code: match.key)
        } else if text.hasPrefix("code-"), let code = Int(text.dropFirst(5)) {
            self.init(code: code)
        } else {
            self.init(code: 2)
        }
    }

    /// Encodes the short name.
    public func encode(to encoder: any Swift.Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(name)
    }
}
