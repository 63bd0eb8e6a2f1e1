import Synchronization

/// Where a decode that comes in pieces (a grid's tiles) reports how far it got, so a photo job's
/// progress moves during the decode, which is most of its time, instead of sitting at its first
/// event until the picture is whole (a 12 MP iPhone photo is 48 tiles).
///
/// `report` gets the share of the picture decoded, 0...1, from whichever thread decoded the
/// tile; ``ProgressReporter`` keeps its events in order and never lets them go backwards.
package struct DecodeProgress: Sendable {
    private let report: @Sendable (Double) -> Void

    /// A progress that hands each share decoded to `report`.
    package init(_ report: @escaping @Sendable (Double) -> Void) {
        self.report = report
    }

    /// A counter for a picture of `tiles` pieces.
    func counter(tiles: Int) -> TileCounter {
        TileCounter(total: tiles, report: report)
    }
}

/// Counts one picture's decoded tiles (``DecodeProgress/counter(tiles:)``); safe to call from
/// every worker at once.
final class TileCounter: Sendable {
    private let total: Int
    private let done = Atomic<Int>(0)
    private let report: @Sendable (Double) -> Void

    fileprivate init(total: Int, report: @escaping @Sendable (Double) -> Void) {
        self.total = max(total, 1)
        self.report = report
    }

    /// Counts one more tile decoded.
    func tileDone() {
        let count = done.wrappingAdd(1, ordering: .relaxed).newValue
        report(Double(min(count, total)) / Double(total))
    }
}
