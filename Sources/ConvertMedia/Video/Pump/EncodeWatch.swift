import ConvertCore

/// Looks at every packet a pass's video encoder writes, and may steer or stop the pass.
///
/// A pass that speculates (a size-target encode trying a quality before it knows the result
/// fits) learns whether it will succeed while it runs: it can correct course (a rate factor for
/// the frames still to come) or stop, which costs the part already encoded instead of the whole
/// encode. The pump stops by throwing `.cancelled` out of the pass, so its staged output is
/// removed like any cancelled one's; the watch's owner, which made the decision, tells its own
/// stop from the user's cancellation by ``stopped``.
protocol EncodeWatch: AnyObject {
    /// Whether the watch has stopped the pass.
    var stopped: Bool { get }
    /// Takes the next video packet the encoder wrote (in output order) and says what to do.
    func verdict(after packet: EncodedPacket) -> EncodeVerdict
}

/// What a watch tells the pass after a packet.
enum EncodeVerdict: Equatable {
    /// Go on as it is.
    case proceed
    /// Go on with this constant rate factor (x264's `crf`) for the frames still to come.
    case rateFactor(Double)
    /// Stop the pass.
    case stop
}

/// What a watch learns of one encoded video packet.
struct EncodedPacket: Equatable {
    /// The payload's size in bytes.
    var bytes: Int
    /// Whether the packet is a keyframe.
    var isKeyframe: Bool
    /// The frame's average quantizer, when the encoder reports it.
    var quantizer: Double?
}
