import ConvertCore

/// Thins `--json` progress lines so a script reading them is not flooded: the library reports up
/// to ~200 steps a job, and a batch of small photos would print thousands of lines a second. A
/// line goes out when an item enters a new stage, reaches the end, or `interval` has passed since
/// its last line.
package final class ProgressThrottle: Sendable {
    private let interval: Duration
    private let last = PthreadLocked<[Int: (stage: JobStage, at: ContinuousClock.Instant)]>([:])

    package init(interval: Duration) {
        self.interval = interval
    }

    /// Whether `progress` of item `index` should be printed now (and records it if so).
    func admit(_ index: Int, _ progress: JobProgress, now: ContinuousClock.Instant = .now) -> Bool {
        last.withLock { last in
            if let previous = last[index], previous.stage == progress.stage, progress.fraction < 1,
                now - previous.at < interval
            {
                return false
            }
            last[index] = (progress.stage, now)
            return true
        }
    }

    /// Drops what is remembered about an item that has ended.
    func forget(_ index: Int) {
        _ = last.withLock { $0.removeValue(forKey: index) }
    }
}
