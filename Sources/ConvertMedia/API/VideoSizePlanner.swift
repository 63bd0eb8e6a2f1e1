import ConvertCore

/// The arithmetic of "compress this video to at most N bytes": audio budget, container overhead,
/// video bitrate and the resolution/frame-rate ladder. Pure functions, no codecs, so every
/// boundary is unit-tested.
///
/// Why not a flat percentage for overhead: an MP4's index grows with the number of samples (every
/// frame costs a size entry, a composition offset and a chunk offset), so a long 60 fps clip has
/// megabytes of `moov` that a short one does not. Peers that guess overshoot by 1.4–15%.
///
/// Public only as the namespace of the plans a ``VideoCompressPreview`` describes (``EncodePlan``,
/// ``AudioPlan``); the planner's policy, its ladders and tuning constants are `package`, free to
/// change without breaking a library user.
public enum VideoSizePlanner {
    /// What the output's audio will be.
    public enum AudioPlan: Sendable, Equatable {
        /// No audio.
        case none
        /// Packets copied; costs exactly `bytes`.
        case copy(bytes: Int64)
        /// Encoded to AAC at `bitrate` bits/s with `channels` channels.
        case encode(bitrate: Int, channels: Int)
    }

    /// Settings for an encode that lands under the target: the normal quality when that fits,
    /// else x264's average bitrate at ``videoBitrate``.
    public struct EncodePlan: Sendable, Equatable {
        /// Average video bitrate of an encode that spends the target, bits/s.
        public var videoBitrate: Int
        /// VBV cap (maxrate), bits/s: keeps peaks bounded so players don't stall.
        public var maxRate: Int
        /// VBV buffer size, bits: 2 s of ``videoBitrate``, an eighth of a clip shorter than 16 s
        /// (at least a quarter second), as x264 may spend a full buffer at once.
        public var bufferSize: Int
        /// Output width (even).
        public var width: Int
        /// Output height (even).
        public var height: Int
        /// Output frame rate.
        public var frameRate: Double
        /// The audio.
        public var audio: AudioPlan
        /// Estimated container overhead, bytes.
        public var overheadBytes: Int64
        /// Bytes the audio will take (estimate for encoded audio, exact for copied).
        public var audioBytes: Int64
        /// The size the output is held under: the target, or the source's own size when that
        /// is smaller and a re-encode can stay under it.
        public var ceilingBytes: Int64

        /// The planned size of an encode at ``videoBitrate`` over `duration` seconds.
        public func plannedBytes(duration: Double) -> Int64 {
            Int64((Double(videoBitrate) * duration / 8).rounded(.up)) + audioBytes + overheadBytes
        }
    }
}
