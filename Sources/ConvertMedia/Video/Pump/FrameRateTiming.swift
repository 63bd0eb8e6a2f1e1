import ConvertCore
internal import FFmpegLayer

/// Decoding times for the packets of a raw elementary stream, which have none: packet n of a
/// video stream decodes at n frame durations (for progress and the end check); the decoded
/// frames are timed by their display order (``VideoLane/framePace``).
struct FrameRateTiming {
    private var counts: [Int: Int64] = [:]

    mutating func stamp(_ packet: Packet, stream: Demuxer.Stream) {
        guard packet.dts == Packet.noTimestamp, packet.pts == Packet.noTimestamp, stream.isVideo else { return }
        let count = counts[packet.streamIndex, default: 0]
        let frame = Self.frameTicks(stream: stream)
        packet.dts = count * frame
        packet.duration = frame
        counts[packet.streamIndex] = count + 1
    }

    /// One frame's duration in the stream's time base, from its frame rate (25 fps when unknown).
    static func frameTicks(stream: Demuxer.Stream) -> Int64 {
        frameTicks(rate: stream.guessedFrameRate, timeBase: stream.timeBase)
    }

    /// One frame at `rate` in ticks of `timeBase`, at least one tick; 25 fps for an unknown rate.
    static func frameTicks(rate: Rational, timeBase: Rational) -> Int64 {
        let rate = rate.isPositive ? rate : Rational(25, 1)
        return max(1, rate.inverted.rescale(1, to: timeBase))
    }
}
