internal import CFFmpeg
import ConvertCore

/// Passthrough: a kept stream whose packets are copied into the output unchanged.
///
/// Used for every stream of a passthrough plan (a remux, about as fast as copying the file) and
/// for compatible streams of a partial re-encode (e.g. AAC audio next to re-encoded video).
/// Only the kept streams get an output stream, so data tracks FFmpeg cannot even name (mebx,
/// mett, tmcd, APAC audio) never reach the muxer.
final class CopyLane: PumpLane {
    private let input: UnsafeMutablePointer<AVStream>
    private let output: UnsafeMutablePointer<AVStream>
    private let muxer: Muxer
    private let packetCopy: Packet
    /// The timestamps written so far, and how the next must follow them.
    private var repair: TimestampRepair
    /// The first packets of a video stream, held until ``dtsShift`` is known.
    private var pending: [Packet] = []
    /// How far DTS are moved back (output time base) so that none is after its PTS; nil until
    /// the first ``lookahead`` video packets were seen (always 0 for other streams).
    private var dtsShift: Int64?
    /// Packets looked at to find the shift: more than any reorder depth H.264/HEVC allow.
    private static let lookahead = 32

    init(input: UnsafeMutablePointer<AVStream>, muxer: Muxer, format: OutputFormat) throws(ConvertError) {
        self.input = input
        self.muxer = muxer
        packetCopy = try Packet()
        repair = TimestampRepair(nonStrict: muxer.acceptsEqualTimestamps, unset: FFmpeg.noTimestamp)
        dtsShift = input.pointee.codecpar?.pointee.codec_type == AVMEDIA_TYPE_VIDEO ? nil : 0
        output = try muxer.addStream()
        guard let source = input.pointee.codecpar, let target = output.pointee.codecpar else {
            throw ConvertError(.internal, key: "internal.ffmpeg", message: "A stream has no codec parameters.", path: muxer.path)
        }
        try FFmpeg.check(avcodec_parameters_copy(target, source), "copy the stream settings",
                         path: muxer.path, category: .internal)
        target.pointee.codec_tag = CopyLane.codecTag(for: source.pointee, in: format)
        output.pointee.time_base = input.pointee.time_base
        output.pointee.avg_frame_rate = input.pointee.avg_frame_rate
        output.pointee.disposition = input.pointee.disposition
        if let language = av_dict_get(input.pointee.metadata, "language", nil, 0) {
            av_dict_set(&output.pointee.metadata, "language", language.pointee.value, 0)
        }
        StreamSideData.copy(from: input, to: output, kinds: StreamSideData.allKept)
        if av_stream_get_side_data(input, AV_PKT_DATA_DOVI_CONF, nil) != nil {
            // movenc writes the dvcC/dvvC box only at "unofficial" compliance; without it a copied
            // Dolby Vision stream would silently lose its configuration.
            muxer.context.pointee.strict_std_compliance = FF_COMPLIANCE_UNOFFICIAL
        }
    }

    /// The codec tag for the output: MP4/MOV keep the standard sample entries (`avc1`, `hvc1`,
    /// `hev1`) that say how parameter sets are stored; everything else lets the muxer choose
    /// (tag 0), since a tag from another container is often invalid there.
    static func codecTag(for parameters: AVCodecParameters, in format: OutputFormat) -> UInt32 {
        guard format.isISOBMFF else { return 0 }
        let tag = StreamSnapshot.fourCC(parameters.codec_tag)
        if ["avc1", "avc3", "hvc1", "hev1", "av01", "mp4a"].contains(tag) { return parameters.codec_tag }
        if parameters.codec_id == AV_CODEC_ID_HEVC { return fourCC("hvc1") }
        return 0
    }

    /// A little-endian four-character code, as `MKTAG` builds it.
    static func fourCC(_ text: String) -> UInt32 {
        var value: UInt32 = 0
        for (index, byte) in text.utf8.prefix(4).enumerated() { value |= UInt32(byte) << (8 * UInt32(index)) }
        return value
    }

    func consume(_ packet: Packet) throws(ConvertError) {
        let copy = dtsShift == nil ? try Packet() : packetCopy
        // Reference, not copy, the payload; the muxer takes this reference.
        try FFmpeg.check(av_packet_ref(copy.pointer, packet.pointer), "copy a packet", path: muxer.path,
                         category: .internal)
        av_packet_rescale_ts(copy.pointer, input.pointee.time_base, output.pointee.time_base)
        copy.pointer.pointee.stream_index = output.pointee.index
        copy.pointer.pointee.pos = -1
        guard dtsShift != nil else {
            pending.append(copy)
            if pending.count >= Self.lookahead { try settle() }
            return
        }
        try write(copy)
    }

    /// Some camera files (iPhone MOVs with B-frames) give packets whose DTS is later than their
    /// PTS by a constant reorder delay. Moving every DTS back by the largest such excess, measured
    /// over the first packets, makes them valid without touching any PTS, so the display order and
    /// timing stay exactly as recorded. Muxers turn the now negative first DTS into an edit list.
    private func settle() throws(ConvertError) {
        var shift: Int64 = 0
        for packet in pending {
            let pts = packet.pointer.pointee.pts
            let dts = packet.pointer.pointee.dts
            if pts != FFmpeg.noTimestamp && dts != FFmpeg.noTimestamp { shift = max(shift, dts - pts) }
        }
        dtsShift = shift
        let held = pending
        pending.removeAll()
        for packet in held { try write(packet) }
    }

    private func write(_ packet: Packet) throws(ConvertError) {
        if let shift = dtsShift, shift > 0, packet.pointer.pointee.dts != FFmpeg.noTimestamp {
            packet.pointer.pointee.dts -= shift
        }
        repairTimestamps(packet.pointer)
        try muxer.write(packet)
    }

    /// Packets still invalid after the shift are repaired before the muxer sees them (see
    /// ``TimestampRepair``), so it neither refuses them nor warns and guesses.
    private func repairTimestamps(_ packet: UnsafeMutablePointer<AVPacket>) {
        let (pts, dts) = repair.repair(pts: packet.pointee.pts, dts: packet.pointee.dts)
        packet.pointee.pts = pts
        packet.pointee.dts = dts
    }

    func finish() throws(ConvertError) {
        if dtsShift == nil { try settle() }
    }

    var damagedPackets: Int { 0 }
}

/// Copies stream-level side data (display matrix, Dolby Vision configuration, mastering display
/// and content light level) from an input stream to an output stream.
enum StreamSideData {
    /// Everything a passthrough keeps.
    static let allKept: [AVPacketSideDataType] = [
        AV_PKT_DATA_DISPLAYMATRIX, AV_PKT_DATA_DOVI_CONF, AV_PKT_DATA_MASTERING_DISPLAY_METADATA,
        AV_PKT_DATA_CONTENT_LIGHT_LEVEL,
    ]

    /// HDR10 static metadata, kept by an HDR re-encode.
    static let hdr: [AVPacketSideDataType] = [AV_PKT_DATA_MASTERING_DISPLAY_METADATA, AV_PKT_DATA_CONTENT_LIGHT_LEVEL]

    static func copy(from input: UnsafeMutablePointer<AVStream>, to output: UnsafeMutablePointer<AVStream>,
                     kinds: [AVPacketSideDataType]) {
        for kind in kinds {
            var size = 0
            guard let data = av_stream_get_side_data(input, kind, &size), size > 0,
                  let copy = av_stream_new_side_data(output, kind, size)
            else { continue }
            copy.update(from: data, count: size)
        }
    }
}
