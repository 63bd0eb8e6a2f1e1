import FoundationEssentials

extension StringProtocol {
    /// The range of the last occurrence of `needle`, or nil: what Foundation's
    /// `range(of: needle, options: .backwards)` finds.
    package func lastRange(of needle: String) -> Range<Index>? {
        guard !needle.isEmpty else { return nil }
        var found: Range<Index>?
        var from = startIndex
        while from < endIndex, let range = self[from...].firstRange(of: needle) {
            found = range
            from = index(after: range.lowerBound)
        }
        return found
    }
}
