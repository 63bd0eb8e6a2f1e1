import Foundation

/// The unit a size target was given in, so messages speak it back: a "50kB" target is reported
/// as "50 kB" and its smallest reachable size in kB too, not as "0.050 MB".
public struct SizeUnit: Sendable, Equatable {
    /// The symbol shown after a number ("kB", "MiB").
    public var symbol: String
    /// Bytes in one unit.
    public var bytes: Int64

    /// A unit of `bytes` bytes shown as `symbol`.
    public init(symbol: String, bytes: Int64) {
        precondition(bytes > 0, "a unit is at least one byte")
        self.symbol = symbol
        self.bytes = bytes
    }

    /// Bytes.
    public static let byte = SizeUnit(symbol: "B", bytes: 1)
    /// 1000 bytes.
    public static let kilobyte = SizeUnit(symbol: "kB", bytes: 1000)
    /// 10⁶ bytes.
    public static let megabyte = SizeUnit(symbol: "MB", bytes: 1_000_000)
    /// 10⁹ bytes.
    public static let gigabyte = SizeUnit(symbol: "GB", bytes: 1_000_000_000)
    /// 1024 bytes.
    public static let kibibyte = SizeUnit(symbol: "KiB", bytes: 1024)
    /// 2²⁰ bytes.
    public static let mebibyte = SizeUnit(symbol: "MiB", bytes: 1_048_576)
    /// 2³⁰ bytes.
    public static let gibibyte = SizeUnit(symbol: "GiB", bytes: 1_073_741_824)

    /// The unit written after the number in a size such as "25MB", "8 MiB" or "500k" (case does
    /// not matter, as for `--target`); nil when there is none or it is not a size unit.
    public init?(ofSize text: String) {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        let suffix = trimmed.drop { $0.isNumber || $0 == "." }.trimmingCharacters(in: .whitespaces).lowercased()
        let units: [String: SizeUnit] = [
            "b": .byte, "k": .kilobyte, "kb": .kilobyte, "m": .megabyte, "mb": .megabyte, "g": .gigabyte,
            "gb": .gigabyte,
            "kib": .kibibyte, "mib": .mebibyte, "gib": .gibibyte,
        ]
        guard let unit = units[suffix] else { return nil }
        self = unit
    }

    /// `byteCount` in this unit with its symbol ("50 kB", "7.25 MB", "0.404 MB"): about three
    /// significant digits, trailing zeros dropped, rounded by `rounding` so that a limit reads
    /// down and a smallest size reads up.
    public func format(_ byteCount: Int64, rounding: FloatingPointRoundingRule) -> String {
        let value = Double(byteCount) / Double(bytes)
        let decimals = self == .byte ? 0 : value < 1 ? 3 : value < 10 ? 2 : value < 100 ? 1 : 0
        let scale = pow(10, Double(decimals))
        // A hair of slack so that 1.15 MB (1.1499999... in binary) does not read 1.14 going down.
        let nudged = value * scale * (rounding == .up ? 1 - 1e-9 : 1 + 1e-9)
        var text = String(format: "%.\(decimals)f", nudged.rounded(rounding) / scale)
        if text.contains(".") {
            while text.hasSuffix("0") { text.removeLast() }
            if text.hasSuffix(".") { text.removeLast() }
        }
        return "\(text) \(symbol)"
    }
}
