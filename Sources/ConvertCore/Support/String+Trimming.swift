import FoundationEssentials

extension StringProtocol {
    /// The text without leading and trailing spaces and tabs: what Foundation's
    /// `trimmingCharacters(in: .whitespaces)` removes (Unicode category Zs and U+0009).
    package func trimmingWhitespace() -> String {
        trimming(where: { $0 == "\t" || $0.properties.generalCategory == .spaceSeparator })
    }

    /// The text without leading and trailing white space and line breaks: what Foundation's
    /// `trimmingCharacters(in: .whitespacesAndNewlines)` removes (Unicode categories Z*,
    /// U+0009 to U+000D and U+0085).
    package func trimmingWhitespaceAndNewlines() -> String {
        trimming(where: { scalar in
            switch scalar.properties.generalCategory {
            case .spaceSeparator, .lineSeparator, .paragraphSeparator: return true
            default: return (0x09...0x0D).contains(scalar.value) || scalar.value == 0x85
            }
        })
    }

    /// The text without the Unicode scalars at either end for which `isTrimmed` holds.
    private func trimming(where isTrimmed: (Unicode.Scalar) -> Bool) -> String {
        let scalars = unicodeScalars
        guard let first = scalars.firstIndex(where: { !isTrimmed($0) }),
            let last = scalars.lastIndex(where: { !isTrimmed($0) })
        else { return "" }
        var trimmed = String.UnicodeScalarView()
        trimmed.append(contentsOf: scalars[first...last])
        return String(trimmed)
    }
}
