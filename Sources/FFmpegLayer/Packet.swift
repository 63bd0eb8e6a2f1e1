internal import CFFmpeg
import ConvertCore

/// Owns an `AVPacket` (`av_packet_alloc`), freed with `av_packet_free`.
///
/// Its timing and flags are Swift properties; the pointer is lent only to the owner types that
/// hand the packet to FFmpeg (``withUnsafePointer(_:)``).
package final class Packet {
    private let pointer: UnsafeMutablePointer<AVPacket>

    /// `AV_NOPTS_VALUE`: a packet without this timestamp.
    package static let noTimestamp: Int64 = FFmpeg.noTimestamp

    package init() throws(ConvertError) {
        guard let pointer = av_packet_alloc() else {
            throw ConvertError(code: .internalMemory, message: "Out of memory.")
        }
        self.pointer = pointer
    }

    deinit {
        var owned: UnsafeMutablePointer<AVPacket>? = pointer
        av_packet_free(&owned)
    }

    /// A packet with a payload of `size` bytes (`av_new_packet`), nil when out of memory.
    static func allocated(size: Int) -> Packet? {
        guard let packet = try? Packet(), av_new_packet(packet.pointer, Int32(size)) == 0 else { return nil }
        return packet
    }

    /// Lends the `AVPacket` to `body`, which must not keep it.
    func withUnsafePointer<Result, Failure: Error>(
        _ body: (UnsafeMutablePointer<AVPacket>) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        try body(pointer)
    }

    /// Lends the payload to `body`; nil when the packet has none.
    package func withPayload<Result, Failure: Error>(
        _ body: (UnsafeBufferPointer<UInt8>) throws(Failure) -> Result
    ) throws(Failure) -> Result? {
        guard let data = pointer.pointee.data else { return nil }
        return try body(UnsafeBufferPointer(start: data, count: Int(pointer.pointee.size)))
    }

    /// A new packet holding `payload`, with this packet's properties (timestamps, flags, side
    /// data: `av_packet_copy_props`).
    package func replacingPayload(with payload: [UInt8]) throws(ConvertError) -> Packet {
        guard let packet = Packet.allocated(size: payload.count), let target = packet.pointer.pointee.data,
            av_packet_copy_props(packet.pointer, pointer) >= 0
        else {
            throw ConvertError(code: .internalMemory, message: "Out of memory.")
        }
        payload.withUnsafeBufferPointer { target.update(from: $0.baseAddress!, count: payload.count) }
        return packet
    }

    /// Where the payload lies in the input file (`AVPacket.pos`: the sample's offset for MP4 and
    /// MOV), nil when the demuxer does not know.
    package var filePosition: Int64? { pointer.pointee.pos >= 0 ? pointer.pointee.pos : nil }

    /// Drops the packet's payload so it can be reused.
    package func unref() { av_packet_unref(pointer) }

    /// Presentation time in the stream's time base, ``noTimestamp`` when unknown.
    package var pts: Int64 {
        get { pointer.pointee.pts }
        set { pointer.pointee.pts = newValue }
    }

    /// Decoding time in the stream's time base, ``noTimestamp`` when unknown.
    package var dts: Int64 {
        get { pointer.pointee.dts }
        set { pointer.pointee.dts = newValue }
    }

    /// Duration in the stream's time base, 0 when unknown.
    package var duration: Int64 {
        get { pointer.pointee.duration }
        set { pointer.pointee.duration = newValue }
    }

    /// The stream the packet belongs to.
    package var streamIndex: Int {
        get { Int(pointer.pointee.stream_index) }
        set { pointer.pointee.stream_index = Int32(newValue) }
    }

    /// Payload size in bytes.
    package var size: Int { Int(pointer.pointee.size) }

    /// Whether the container's edit list hides this packet (`AV_PKT_FLAG_DISCARD`): decoded for
    /// reference, never shown or heard.
    package var isDiscarded: Bool { pointer.pointee.flags & AV_PKT_FLAG_DISCARD != 0 }

    /// The end of its presentation (PTS + duration), nil without a PTS.
    package var presentationEnd: Int64? {
        pts == Self.noTimestamp ? nil : pts + max(duration, 0)
    }

    /// Whether the packet holds a keyframe (`AV_PKT_FLAG_KEY`).
    package var isKeyframe: Bool { pointer.pointee.flags & AV_PKT_FLAG_KEY != 0 }

    /// The average quantizer the encoder coded this packet's frame at, nil when it reports none.
    /// Encoders that report it (x264, x265) attach `AV_PKT_DATA_QUALITY_STATS`, whose first field
    /// is a little-endian 32-bit quality in lambda units: the quantizer times `FF_QP2LAMBDA`.
    package var encoderQuantizer: Double? {
        var size = 0
        guard let data = av_packet_get_side_data(pointer, AV_PKT_DATA_QUALITY_STATS, &size), size >= 4 else {
            return nil
        }
        let raw = UnsafeRawBufferPointer(start: data, count: size)
        let quality = UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: 0, as: UInt32.self))
        return Double(quality) / Double(FF_QP2LAMBDA)
    }

    /// Samples the decoder drops from the end of this packet (`AV_PKT_DATA_SKIP_SAMPLES`: Matroska's
    /// DiscardPadding, an Ogg stream's last granule), 0 when none.
    package var endTrimSamples: Int {
        var size = 0
        // The side data is two little-endian 32-bit counts (skipped at the start, at the end),
        // then a reason byte each for start and end.
        guard let data = av_packet_get_side_data(pointer, AV_PKT_DATA_SKIP_SAMPLES, &size), size >= 8 else { return 0 }
        let raw = UnsafeRawBufferPointer(start: data, count: size)
        return Int(UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: 4, as: UInt32.self)))
    }

    /// Moves both timestamps back by `ticks`, leaving unknown ones unknown.
    package func shiftTimestamps(by ticks: Int64) {
        if pts != Self.noTimestamp { pts -= ticks }
        if dts != Self.noTimestamp { dts -= ticks }
    }

    /// Converts timestamps and duration from time base `source` to `target` (`av_packet_rescale_ts`).
    package func rescaleTimestamps(from source: Rational, to target: Rational) {
        av_packet_rescale_ts(pointer, source.av, target.av)
    }

    /// Makes this packet a new reference to `other`'s payload and properties (`av_packet_ref`),
    /// without copying the bytes; its file position is forgotten (a copy is written elsewhere).
    package func reference(_ other: Packet, path: String) throws(ConvertError) {
        try FFmpeg.check(av_packet_ref(pointer, other.pointer), "copy a packet", path: path, category: .internal)
        pointer.pointee.pos = -1
    }

    /// Takes `other`'s payload and properties, leaving `other` empty (`av_packet_move_ref`).
    package func take(_ other: Packet) {
        av_packet_move_ref(pointer, other.pointer)
    }

    /// What ``reference(_:path:)`` makes of `other`, without the new reference: its payload and
    /// properties move here (nothing allocated, nothing freed), `other` is left empty, and the
    /// byte position is cleared as for a copy. For a packet whose reader has no further use for it.
    package func takeForWriting(_ other: Packet) {
        av_packet_move_ref(pointer, other.pointer)
        pointer.pointee.pos = -1
    }
}
