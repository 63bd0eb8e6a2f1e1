import Testing

@testable import ConvertMedia

/// The normal-quality watch of compress on made-up packet sizes: when it lets an encode go on,
/// when it stops it (at its first look, or once its packets pass the budget), how it eases the
/// rate factor, and that it never goes below the normal quality.
@Suite("compress: the normal quality's size watch")
struct QualityFitWatchTests {
    /// Feeds `frames` packets (a 10 000-byte keyframe, then `size(index)`) and returns the
    /// verdicts that were not `.proceed`, with the packet count at each.
    static func run(_ watch: QualityFitWatch, frames: Int, size: (Int) -> Int) -> [(Int, EncodeVerdict)] {
        var seen: [(Int, EncodeVerdict)] = []
        for index in 0..<frames {
            let packet = EncodedPacket(bytes: index == 0 ? 10_000 : size(index), isKeyframe: index == 0, quantizer: nil)
            let verdict = watch.verdict(after: packet)
            if verdict != .proceed { seen.append((index + 1, verdict)) }
            if verdict == .stop { break }
        }
        return seen
    }

    @Test("an encode that fits goes on at the normal quality to its end")
    func fits() {
        // 1000 frames of 900 bytes after the keyframe: 909 kB against a 1 MB budget.
        let watch = QualityFitWatch(videoBudget: 1_000_000, expectedFrames: 1000, rateFactor: 23)
        #expect(Self.run(watch, frames: 1000) { _ in 900 }.isEmpty)
        #expect(!watch.stopped && watch.rateFactor == 23 && watch.firstRaisedAt == nil)
    }

    @Test("one far over its budget stops at the first look, after 3 % of its frames, and no later")
    func hopeless() {
        let watch = QualityFitWatch(videoBudget: 1_000_000, expectedFrames: 1000, rateFactor: 23)
        let verdicts = Self.run(watch, frames: 1000) { _ in 1_500 }
        #expect(verdicts.count == 1 && verdicts[0].0 == 30 && verdicts[0].1 == .stop, "\(verdicts)")
        #expect(watch.stopped && watch.fraction == 0.03)
        // Its projection: the keyframe once, 1500 bytes for each frame after it.
        #expect(watch.projectedBytes == 10_000 + 1_500 * 999)
    }

    @Test(
        "one that drifts over after a good start is eased up half a step a look, at most 4 over, and stopped only once its packets pass the budget"
    )
    func drifts() throws {
        // Easy for the first 300 frames, then twice as hard (these sizes ignore the easing): the
        // packets pass 1 MB at the 858th (10 000 + 299 × 700 + 558 × 1 400 bytes).
        let watch = QualityFitWatch(videoBudget: 1_000_000, expectedFrames: 1000, rateFactor: 23)
        let verdicts = Self.run(watch, frames: 1000) { $0 < 300 ? 700 : 1_400 }
        #expect(watch.stopped)
        #expect(verdicts.last?.0 == 858 && verdicts.last?.1 == .stop, "\(verdicts.suffix(2))")
        #expect(verdicts.dropLast().allSatisfy { $0.1 != .stop })
        let factors = verdicts.compactMap { verdict -> Double? in
            if case .rateFactor(let value) = verdict.1 { return value }
            return nil
        }
        #expect(!factors.isEmpty)
        #expect(zip([23.0] + factors, factors).allSatisfy { abs($1 - $0) == QualityFitWatch.step }, "\(factors)")
        #expect(factors.allSatisfy { $0 >= 23 && $0 <= 23 + QualityFitWatch.largestRise }, "\(factors)")
        #expect(try #require(watch.firstRaisedAt) > 0.3)
    }

    @Test("eased up, it comes back toward the normal quality when the frames get easy again, never below it")
    func returns() {
        let watch = QualityFitWatch(videoBudget: 1_000_000, expectedFrames: 1000, rateFactor: 23)
        _ = Self.run(watch, frames: 1000) { $0 < 300 ? 800 : $0 < 500 ? 2_000 : 200 }
        #expect(watch.highestSteered > 23)
        #expect(watch.rateFactor == 23, "\(watch.rateFactor)")
    }

    @Test("a watch that only measures never steers or stops")
    func measuresOnly() {
        let watch = QualityFitWatch(videoBudget: 1_000, expectedFrames: 100, rateFactor: 23, projects: false)
        #expect(Self.run(watch, frames: 100) { _ in 5_000 }.isEmpty)
        #expect(watch.packets == 100 && watch.bytes == 10_000 + 99 * 5_000)
    }
}
