import ConvertCore

/// The one progress of a ``PhotoBatch``: each photo's share, summed, passed on when it moved by
/// at least half a percent or a photo ended (a batch of thousands must not call the app for
/// every tile of every photo). Passed on with the lock held, so the app gets one call at a time
/// and never a smaller fraction after a larger one.
final class BatchProgressTracker: Sendable {
    private struct State {
        var shares: [Double]
        /// The shares' sum, kept as they change (a batch of thousands, updated per tile).
        var sum = 0.0
        var ended = 0
        var lastReported = -1.0

        mutating func set(_ index: Int, _ share: Double) {
            sum += share - shares[index]
            shares[index] = share
        }
    }

    private let state: PthreadLocked<State>
    private let report: @Sendable (BatchProgress) -> Void
    private let total: Int

    init(total: Int, report: @escaping @Sendable (BatchProgress) -> Void) {
        self.total = total
        self.report = report
        state = PthreadLocked(State(shares: Array(repeating: 0, count: total)))
    }

    /// Photo `index` is `fraction` done.
    func update(_ index: Int, _ fraction: Double) {
        state.withLock { state in
            state.set(index, max(state.shares[index], min(fraction, 1)))
            pass(&state, force: false)
        }
    }

    /// Photo `index` ended, whichever way.
    func ended(_ index: Int) {
        state.withLock { state in
            state.set(index, 1)
            state.ended += 1
            pass(&state, force: true)
        }
    }

    private func pass(_ state: inout State, force: Bool) {
        let fraction = total == 0 ? 1 : min(state.sum / Double(total), 1)
        guard force || fraction - state.lastReported >= 0.005 else { return }
        state.lastReported = fraction
        report(BatchProgress(fraction: fraction, ended: state.ended, total: total))
    }
}
