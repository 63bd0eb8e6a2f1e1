import FoundationEssentials
import Glibc

/// How sizes and lengths of time read in every message, note and line offconvert prints: one
/// spelling everywhere (SI byte units, as `--target 25MB` takes them; seconds as "s", clock time
/// past a minute), so a size in an error reads like the same size in a summary.
package enum UnitText {
    /// A byte count: "999 B", "12.3 kB", "12.3 MB", "1.23 GB".
    package static func bytes(_ count: Int64) -> String {
        let value = Double(count)
        switch value {
        case ..<1_000: return "\(count) B"
        case ..<1_000_000: return fixed(value / 1_000, digits: 1) + " kB"
        case ..<1_000_000_000: return fixed(value / 1_000_000, digits: 1) + " MB"
        default: return fixed(value / 1_000_000_000, digits: 2) + " GB"
        }
    }

    /// A length of time: "4 s", "4.5 s" (at most `places` decimals, trailing zeros dropped)
    /// below a minute, then clock time, "2:05" or "1:02:03"; "?" for a time not known.
    package static func duration(_ seconds: Double, places: Int = 1) -> String {
        guard seconds.isFinite, seconds >= 0 else { return "?" }
        // Rounded first, so 59.96 s reads as the minute it rounds to, not "60 s".
        let factor = pow(10, Double(places))
        let rounded = (seconds * factor).rounded() / factor
        if rounded < 60 { return decimal(rounded, places) + " s" }
        let total = Int(seconds.rounded())
        let (hours, minutes, rest) = (total / 3600, total / 60 % 60, total % 60)
        let clock = "\(zeroPadded(minutes, width: hours > 0 ? 2 : 1)):\(zeroPadded(rest, width: 2))"
        return hours > 0 ? "\(hours):" + clock : clock
    }

    /// `value` with at most `places` decimals, trailing zeros removed: "4", "4.5", "0.125".
    package static func decimal(_ value: Double, _ places: Int = 3) -> String {
        var text = fixed(value, digits: places)
        if text.contains(".") {
            while text.hasSuffix("0") { text.removeLast() }
            if text.hasSuffix(".") { text.removeLast() }
        }
        return text
    }
}
