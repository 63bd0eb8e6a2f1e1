import ConvertCore

/// Tells early whether a normal-quality (CRF) encode fits its budget, and keeps one that does
/// from drifting over: an encode that fits costs one encode, and one that does not costs the
/// sliver of an encode before the one that spends the target.
///
/// At the first look (a few percent of the frames) the size is projected: the first keyframe
/// counted once (it is several times the size of the frames after it), the rest extrapolated to
/// the expected frame count. Over the budget, the encode stops: x264's own rate control, aimed
/// at the budget, then spends it better than any correction of a constant rate factor could
/// (a controller that reset the rate factor from the recent frames' sizes swung between CRF 23
/// and 37 on a 10 s street clip that needed 23.3 overall). Under it, the encode goes on, and at
/// each later look a projection over the budget eases the rate factor up by a small step for
/// the frames still to come (as x264 lets a running encode change it); back under, it returns
/// toward the normal quality, never below it: the target is a ceiling, never a goal. An encode
/// whose packets so far already pass the budget stops there; one that still ends over is
/// measured and replaced by the one at the target's bitrate.
final class QualityFitWatch: EncodeWatch {
    /// The share of the frames, and the fewest packets, seen before the first look.
    static let firstShare = 0.03
    static let firstPackets = 15
    /// How often the projection is looked at again after the first look: a share of the frames,
    /// and the fewest packets between two looks.
    static let stepShare = 0.03
    static let stepPackets = 10
    /// The share of the budget steered to: the frames in the encoder when the last correction
    /// lands cannot be corrected.
    static let aim = 0.985
    /// The most the rate factor moves at one look, and the most it rises over the normal quality.
    static let step = 0.5
    static let largestRise = 4.0

    private let videoBudget: Int64
    private let expectedFrames: Int
    private let projects: Bool
    private let baseRateFactor: Double
    /// The rate factor the frames are now encoded at.
    private(set) var rateFactor: Double
    /// The highest rate factor it was steered to, and how far into the encode it first rose.
    private(set) var highestSteered: Double
    private(set) var firstRaisedAt: Double?
    private(set) var packets = 0
    private(set) var bytes: Int64 = 0
    private var firstBytes: Int64 = 0
    private var nextLook: Int
    private var looked = false
    private(set) var stopped = false

    /// A watch over an encode of about `expectedFrames` frames at `rateFactor` whose video may
    /// take `videoBudget` bytes; `projects` false only measures (tests run a whole over-target
    /// encode with it).
    init(videoBudget: Int64, expectedFrames: Int, rateFactor: Double, projects: Bool = true) {
        self.videoBudget = videoBudget
        self.expectedFrames = max(expectedFrames, 1)
        self.projects = projects
        baseRateFactor = rateFactor
        self.rateFactor = rateFactor
        highestSteered = rateFactor
        nextLook = max(Self.firstPackets, Int(Double(expectedFrames) * Self.firstShare))
    }

    /// How far the encode got, 0...1.
    var fraction: Double { min(Double(packets) / Double(expectedFrames), 1) }

    /// The video's projected size in bytes from the packets so far.
    var projectedBytes: Double {
        guard packets > 1 else { return Double(bytes) * Double(expectedFrames) }
        let perFrame = Double(bytes - firstBytes) / Double(packets - 1)
        return Double(firstBytes) + perFrame * Double(max(expectedFrames, packets) - 1)
    }

    func verdict(after packet: EncodedPacket) -> EncodeVerdict {
        packets += 1
        bytes += Int64(packet.bytes)
        if packets == 1 { firstBytes = Int64(packet.bytes) }
        // Past the budget already, it cannot fit whatever comes: a picture that was easy at the
        // first look and turned hard after it (a still title, then camera footage) would
        // otherwise run to its end, several times over the target, only to be thrown away.
        if projects, bytes > videoBudget, packets < expectedFrames {
            stopped = true
            return .stop
        }
        guard projects, packets >= nextLook, packets < expectedFrames else { return .proceed }
        nextLook = packets + max(Self.stepPackets, Int(Double(expectedFrames) * Self.stepShare))
        let over = projectedBytes / (Double(videoBudget) * Self.aim)
        if !looked {
            looked = true
            if projectedBytes > Double(videoBudget) {
                stopped = true
                return .stop
            }
        }
        let eased = over > 1 ? rateFactor + Self.step : over < 0.97 ? rateFactor - Self.step : rateFactor
        let bounded = min(max(eased, baseRateFactor), baseRateFactor + Self.largestRise)
        guard bounded != rateFactor else { return .proceed }
        rateFactor = bounded
        if rateFactor > baseRateFactor, firstRaisedAt == nil { firstRaisedAt = fraction }
        highestSteered = max(highestSteered, rateFactor)
        return .rateFactor(rateFactor)
    }
}
