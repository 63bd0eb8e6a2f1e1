/// What compressing a video to a target would do, decided before any encode (`--dry-run`).
public struct VideoCompressPreview: Sendable, Equatable {
    /// The decision.
    public enum Action: Sendable, Equatable {
        /// The source fits and plays everywhere: copied as it is (about its own size).
        case copy
        /// The source fits and its video plays everywhere: the video is copied, the sound
        /// encoded to AAC as planned (about the source's size).
        case copyVideo(audio: VideoSizePlanner.AudioPlan)
        /// Re-encoded: at the normal quality when that fits, else at the plan's average bitrate.
        case encode(VideoSizePlanner.EncodePlan)
        /// The target cannot be reached; the smallest output that can, in bytes.
        case unreachable(smallestReachableBytes: Int64)
    }

    /// The decision.
    public var action: Action
    /// The source file's size in bytes.
    public var sourceBytes: Int64
    /// The output's duration in seconds: the source's, the cut's, or the flattened timeline's
    /// when ``slowMotion`` is set.
    public var duration: Double
    /// The source's average frame rate (the flattened output's, when ``slowMotion`` is set).
    public var sourceFrameRate: Double
    /// The source's displayed width and height in pixels.
    public var sourceWidth: Int
    /// The source's displayed height in pixels.
    public var sourceHeight: Int
    /// The phone's slow motion the output plays as the phone does (``duration`` is then the
    /// flattened timeline's); nil when none is flattened.
    public var slowMotion: SlowMotionInfo?

    /// Whether the target can be met.
    public var isReachable: Bool {
        if case .unreachable = action { return false }
        return true
    }

    /// The size expected at most: the source's for a copy, the planned size at the plan's bitrate for an
    /// encode (a normal-quality encode that fits is smaller); nil when unreachable.
    public var expectedBytes: Int64? {
        switch action {
        case .copy, .copyVideo: return sourceBytes
        case .encode(let plan): return plan.plannedBytes(duration: duration)
        case .unreachable: return nil
        }
    }
}
