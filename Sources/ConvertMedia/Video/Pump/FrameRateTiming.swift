internal import CFFmpeg
import ConvertCore

/// Decoding times for the packets of a raw elementary stream, which have none: packet n of a
/// video stream decodes at n frame durations (for progress and the end check); the decoded
/// frames are timed by their display order (``VideoLane/framePace``).
struct FrameRateTiming {
    private var counts: [Int32: Int64] = [:]

    mutating func stamp(_ packet: Packet, stream: UnsafeMutablePointer<AVStream>, demuxer: Demuxer) {
        let pointer = packet.pointer
        guard pointer.pointee.dts == FFmpeg.noTimestamp, pointer.pointee.pts == FFmpeg.noTimestamp,
              stream.pointee.codecpar?.pointee.codec_type == AVMEDIA_TYPE_VIDEO
        else { return }
        let index = pointer.pointee.stream_index
        let count = counts[index, default: 0]
        let frame = Self.frameTicks(stream: stream, demuxer: demuxer)
        pointer.pointee.dts = count * frame
        pointer.pointee.duration = frame
        counts[index] = count + 1
    }

    /// One frame's duration in the stream's time base, from its frame rate (25 fps when unknown).
    static func frameTicks(stream: UnsafeMutablePointer<AVStream>, demuxer: Demuxer) -> Int64 {
        var rate = av_guess_frame_rate(demuxer.context, stream, nil)
        if rate.num <= 0 || rate.den <= 0 { rate = AVRational(num: 25, den: 1) }
        return max(1, av_rescale_q(1, AVRational(num: rate.den, den: rate.num), stream.pointee.time_base))
    }
}
