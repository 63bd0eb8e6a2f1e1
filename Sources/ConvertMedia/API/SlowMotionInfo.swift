import ConvertCore

/// A phone's slow motion as ``MediaProbe`` finds it in a video: a Samsung clip's slowed segments
/// (its SEF trailer) and the rate Android says it was captured at (`com.android.capture.fps`).
///
/// JSON object:
/// ```
/// {
///   "captureFramesPerSecond": 240,             // absent when the file does not say
///   "segments": [{"startSeconds": 0.088, "endSeconds": 0.879, "speedDivisor": 2}, ...],
///   "damage": "its slow-motion entry points outside the file"  // absent for readable markers
/// }
/// ```
public struct SlowMotionInfo: Sendable, Codable, Hashable {
    /// One slowed part, in seconds of the file's timeline.
    public struct Segment: Sendable, Codable, Hashable {
        /// Where the part starts.
        public var startSeconds: Double
        /// Where the part ends.
        public var endSeconds: Double
        /// How many times slower than the rest of the clip the phone plays it.
        public var speedDivisor: Int

        /// Creates a segment.
        public init(startSeconds: Double, endSeconds: Double, speedDivisor: Int) {
            self.startSeconds = startSeconds
            self.endSeconds = endSeconds
            self.speedDivisor = speedDivisor
        }
    }

    /// The frame rate the clip was captured at, when the file says it.
    public var captureFramesPerSecond: Double?
    /// The slowed segments, in time order; empty for a clip that marks none.
    public var segments: [Segment]
    /// Why the slow-motion markers could not be read, when they are damaged.
    public var damage: String?

    /// Creates a description.
    public init(captureFramesPerSecond: Double? = nil, segments: [Segment] = [], damage: String? = nil) {
        self.captureFramesPerSecond = captureFramesPerSecond
        self.segments = segments
        self.damage = damage
    }

    /// "0.09–0.88 s at 1/2, 1.26–1.97 s at 1/8, captured at 240 fps"; "captured at 240 fps, no
    /// slowed segments marked" for Android's tag alone.
    public var summary: String {
        // Hundredths rounded half up from the milliseconds the phone wrote (1.255 s is 1.26 s).
        func text(_ seconds: Double) -> String { UnitText.decimal((seconds * 100 + 1e-6).rounded() / 100, 2) }
        var parts = segments.map { "\(text($0.startSeconds))–\(text($0.endSeconds)) s at 1/\($0.speedDivisor)" }
        if let rate = captureFramesPerSecond { parts.append("captured at \(UnitText.decimal(rate, 2)) fps") }
        if segments.isEmpty { parts.append(damage.map { "markers unreadable: \($0)" } ?? "no slowed segments marked") }
        return parts.joined(separator: ", ")
    }

    /// The slow motion of a snapshot's markers, or nil for a clip without any.
    init?(_ reading: SlowMotionSegments.Reading, captureRate: Double?) {
        switch reading {
        case .absent:
            guard captureRate != nil else { return nil }
            self.init(captureFramesPerSecond: captureRate)
        case .damaged(let why):
            self.init(captureFramesPerSecond: captureRate, damage: why)
        case .segments(let found):
            self.init(
                captureFramesPerSecond: captureRate,
                segments: found.segments.map {
                    Segment(
                        startSeconds: Double($0.startMilliseconds) / 1000,
                        endSeconds: Double($0.endMilliseconds) / 1000,
                        speedDivisor: $0.speedDivisor)
                })
        }
    }
}
