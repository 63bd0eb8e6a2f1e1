@testable import ConvertCore

extension Array where Element == JobNote {
    /// The notes' messages, for tests that check what a note says (its kind is checked apart).
    var messages: [String] { map(\.message) }
}
