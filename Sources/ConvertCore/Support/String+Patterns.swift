import FoundationEssentials

/// Regular expressions given as text (ICU syntax, as `NSRegularExpression` took them), matched
/// with Swift's `Regex` over Unicode scalars, as `NSRegularExpression` matched code points
/// rather than whole characters. An invalid pattern matches nothing.
extension String {
    /// `pattern` compiled, or nil when it is not a valid regular expression.
    private static func regex(_ pattern: String) -> Regex<AnyRegexOutput>? {
        (try? Regex(pattern))?.matchingSemantics(.unicodeScalar)
    }

    /// Whether `pattern` matches anywhere in the text.
    package func containsMatch(of pattern: String) -> Bool {
        guard let regex = Self.regex(pattern) else { return false }
        return (try? regex.firstMatch(in: self)) != nil
    }

    /// How many non-overlapping matches of `pattern` the text holds; nil for an invalid pattern.
    package func matchCount(of pattern: String) -> Int? {
        guard let regex = Self.regex(pattern) else { return nil }
        return matches(of: regex).count
    }

    /// The text of capture group 1 of the first match of `pattern`, or nil.
    package func firstCapture(of pattern: String) -> Substring? {
        guard let regex = Self.regex(pattern), let match = try? regex.firstMatch(in: self),
            match.output.count > 1
        else { return nil }
        return match.output[1].substring
    }

    /// Where each match of `pattern` starts, in order; empty for an invalid pattern.
    package func matchStarts(of pattern: String) -> [Index] {
        guard let regex = Self.regex(pattern) else { return [] }
        return matches(of: regex).map(\.range.lowerBound)
    }

    /// The text with every match of `pattern` removed; unchanged for an invalid pattern.
    package func removingMatches(of pattern: String) -> String {
        guard let regex = Self.regex(pattern) else { return self }
        return replacing(regex, with: "")
    }
}
