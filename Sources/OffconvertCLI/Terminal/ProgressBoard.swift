import ConvertCore
import FoundationEssentials
import Glibc

/// Live progress on a terminal: one line per running item (name, stage, percent, elapsed time,
/// speed, ETA) and an overall bar for batches, redrawn in place on stderr at most ten times a
/// second, and at least once a second so a long decode or encode that reports no steps (a C
/// codec working on a whole photo) shows its time moving and says "working…" instead of a frozen
/// percentage.
///
/// Draws nothing unless stderr is a terminal (and not with `--quiet`), so pipes and scripts see
/// only results. Safe to call from several tasks at once.
package final class ProgressBoard: Sendable {
    private struct Item {
        package var name: String
        package var progress: JobProgress
        package var started: Date
        package var inputBytes: Int64
        /// When the fraction or stage last changed.
        package var changed: Date
    }

    private struct State {
        package var items: [Int: Item] = [:]
        package var finished = 0
        var linesDrawn = 0
        var lastDraw = Date.distantPast
    }

    private let console: Console
    private let total: Int
    private let enabled: Bool
    private let state = PthreadLocked(State())
    /// Redraws once a second while items run.
    /// Whether the once-a-second redraw runs, and which start of it is the current one.
    private let ticker = PthreadLocked<(running: Bool, generation: Int)>((false, 0))

    /// After this long without a new step, an item's line says it is working instead of
    /// showing a stale percentage and ETA.
    static let quietInterval: TimeInterval = 1.5

    /// A board for `total` items; `enabled` false makes every call a no-op.
    package init(console: Console, total: Int, enabled: Bool) {
        self.console = console
        self.total = total
        self.enabled = enabled && console.stderrIsTTY
    }

    /// An item started.
    package func begin(_ index: Int, name: String, inputBytes: Int64) {
        guard enabled else { return }
        state.withLock {
            $0.items[index] = Item(
                name: name.terminalSafe, progress: JobProgress(stage: .probing, fraction: 0),
                started: Date(), inputBytes: inputBytes, changed: Date())
        }
        startTicking()
        redraw(force: true)
    }

    private func startTicking() {
        let generation: Int? = ticker.withLock { ticker in
            guard !ticker.running else { return nil }
            ticker.running = true
            ticker.generation += 1
            return ticker.generation
        }
        guard let generation else { return }
        // A thread of its own rather than a Dispatch timer: Dispatch's queues run on the threads
        // of Swift's global executor on Linux. It ends within a second of being stopped.
        DetachedThread.start(name: "offc-progress") { [weak self] in
            while true {
                usleep(1_000_000)
                guard let self, self.ticker.withLock({ $0.running && $0.generation == generation }) else { return }
                self.redraw(force: false)
            }
        }
    }

    private func stopTicking() {
        ticker.withLock { $0.running = false }
    }

    /// An item advanced.
    package func update(_ index: Int, _ progress: JobProgress) {
        guard enabled else { return }
        state.withLock { state in
            guard let old = state.items[index]?.progress else { return }
            if old.stage != progress.stage || Int(old.fraction * 100) != Int(progress.fraction * 100) {
                state.items[index]?.changed = Date()
            }
            state.items[index]?.progress = progress
        }
        redraw(force: false)
    }

    /// An item ended; `stdout` and `stderr` lines (already formatted) are printed above the
    /// live lines, to stay.
    package func end(_ index: Int, stdout: [String] = [], stderr: [String] = []) {
        let text: String? = state.withLock { state in
            state.items[index] = nil
            state.finished += 1
            guard enabled else { return nil }
            let clear = Self.clearing(state.linesDrawn)
            state.linesDrawn = 0
            return clear
        }
        if let text { console.errRaw(text) }
        for line in stdout { console.out(line) }
        for line in stderr { console.err(line) }
        redraw(force: true)
    }

    /// Removes the live lines (before a summary or on exit).
    package func clear() {
        guard enabled else { return }
        stopTicking()
        let text = state.withLock { state -> String in
            let clear = Self.clearing(state.linesDrawn)
            state.linesDrawn = 0
            return clear
        }
        console.errRaw(text)
    }

    private func redraw(force: Bool) {
        guard enabled else { return }
        let text: String? = state.withLock { state in
            let now = Date()
            guard force || now.timeIntervalSince(state.lastDraw) >= 0.1 else { return nil }
            state.lastDraw = now
            var lines: [String] = []
            for (_, item) in state.items.sorted(by: { $0.key < $1.key }) {
                lines.append(Self.line(for: item, now: now))
            }
            if total > 1 {
                let inFlight = state.items.values.reduce(0.0) { $0 + $1.progress.fraction }
                let overall = (Double(state.finished) + inFlight) / Double(total)
                lines.append("\(Self.bar(overall)) \(state.finished)/\(total) done")
            }
            let output = Self.clearing(state.linesDrawn) + lines.map { $0 + "\n" }.joined()
            state.linesDrawn = lines.count
            return output
        }
        if let text { console.errRaw(text) }
    }

    private static func line(for item: Item, now: Date) -> String {
        let fraction = item.progress.fraction
        let elapsed = now.timeIntervalSince(item.started)
        var text = "\(truncate(item.name, 32)) \(item.progress.stage.name)"
        if now.timeIntervalSince(item.changed) >= quietInterval {
            // No step reported for a while: the codec is busy on one big call. Say so, honestly.
            return text + " working… \(clock(elapsed))"
        }
        text += " \(Int(fraction * 100))%"
        if elapsed >= 1 { text += " \(clock(elapsed))" }
        if elapsed > 0.5, fraction > 0.01 {
            if item.inputBytes > 0 {
                let speed = Double(item.inputBytes) * fraction / elapsed
                text += " \(UnitText.bytes(Int64(speed)))/s"
            }
            let remaining = elapsed * (1 - fraction) / fraction
            text += " ETA \(clock(remaining))"
        }
        return text
    }

    /// Whole seconds, rounded up (a job 0.2 s from done is not "0 s" away).
    private static func clock(_ seconds: Double) -> String {
        UnitText.duration(seconds.rounded(.up), places: 0)
    }

    private static func bar(_ fraction: Double) -> String {
        let width = 30
        let filled = Int((min(max(fraction, 0), 1) * Double(width)).rounded(.down))
        return "[" + String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled) + "]"
    }

    private static func truncate(_ text: String, _ limit: Int) -> String {
        text.count <= limit ? text : "…" + text.suffix(limit - 1)
    }

    /// ANSI: move up `lines` lines and clear to the end of the screen.
    private static func clearing(_ lines: Int) -> String {
        lines > 0 ? "\u{1B}[\(lines)A\u{1B}[J" : ""
    }
}
