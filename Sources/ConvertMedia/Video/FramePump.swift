internal import CFFmpeg
import ConvertCore

/// One kept input stream on its way to the output.
protocol PumpLane: AnyObject {
    /// Takes one packet of the lane's input stream (timestamps already zero-based).
    func consume(_ packet: Packet) throws(ConvertError)
    /// Drains everything still buffered, strictly in order: decoder, then filters, then encoder.
    func finish() throws(ConvertError)
    /// Packets the decoder rejected as damaged (and skipped).
    var damagedPackets: Int { get }
}

/// A lane that decodes, filters and re-encodes: the packet-in and packet-out ends are the same
/// for video and audio, only what happens between the decoder and the encoder differs.
protocol TranscodingLane: PumpLane {
    var decoder: CodecDecoder { get }
    var encoder: CodecEncoder { get }
    var muxer: Muxer { get }
    var output: UnsafeMutablePointer<AVStream> { get }
    var encoded: Packet { get }
    /// Pulls every frame the decoder has ready through the filters into the encoder.
    func drainDecoder() throws(ConvertError)
}

extension TranscodingLane {
    func consume(_ packet: Packet) throws(ConvertError) {
        // A full decoder takes the packet only after its frames are drained (EAGAIN is a value).
        while true {
            let accepted = try decoder.send(packet)
            try drainDecoder()
            if accepted { return }
        }
    }

    var damagedPackets: Int { decoder.rejectedPackets }

    /// Writes every packet the encoder has ready, rescaled to the output stream's time base.
    func drainEncoder() throws(ConvertError) {
        while try encoder.receive(into: encoded) == .packet {
            av_packet_rescale_ts(encoded.pointer, encoder.context.pointee.time_base, output.pointee.time_base)
            encoded.pointer.pointee.stream_index = output.pointee.index
            try muxer.write(encoded)
        }
    }
}

/// Runs a ``VideoPlan``: demux → (copy | decode → filter → encode) → mux.
///
/// Timestamps are rescaled only where they cross a stage boundary (input stream → filter graph →
/// encoder → output stream), never re-generated, so variable frame rates survive and audio and
/// video stay in sync over long clips. The packet loop checks the cancellation flag once per
/// packet; FFmpeg's interrupt callback checks the same flag during blocking reads.
final class FramePump {
    private let demuxer: Demuxer
    let muxer: Muxer
    private let plan: VideoPlan
    private let cancellation: CancellationFlag
    private var lanes: [Int: any PumpLane] = [:]
    private let progress: (Double) -> Void
    /// Container tags left out because they give a location.
    private(set) var removedLocationTags = 0
    /// Facts the lanes found while opening their streams, for the job result.
    var notes: [String] { plan.lanes.compactMap { lanes[$0.stream.index] as? VideoLane }.flatMap(\.notes) }
    /// Damaged packets the decoders skipped, over all lanes.
    var damagedPackets: Int { lanes.values.reduce(0) { $0 + $1.damagedPackets } }

    init(demuxer: Demuxer, muxer: Muxer, plan: VideoPlan, cancellation: CancellationFlag,
         progress: @escaping (Double) -> Void) throws(ConvertError) {
        self.demuxer = demuxer
        self.muxer = muxer
        self.plan = plan
        self.cancellation = cancellation
        self.progress = progress
        for lane in plan.lanes {
            let stream = demuxer.stream(lane.stream.index)
            switch lane {
            case .copy:
                lanes[lane.stream.index] = try CopyLane(
                    input: stream, muxer: muxer, format: plan.format, containerStart: demuxer.startTime,
                    editListInput: demuxer.isISOBMFF)
            case .video(_, let encoding):
                let video = try VideoLane(
                    input: stream, encoding: encoding, demuxer: demuxer, muxer: muxer,
                    format: plan.format, maxPixels: plan.maxPixels, cancellation: cancellation)
                if plan.timesByFrameRate { video.framePace = FrameRateTiming.frameTicks(stream: stream, demuxer: demuxer) }
                lanes[lane.stream.index] = video
            case .audio(_, let encoding):
                lanes[lane.stream.index] = try AudioLane(input: stream, encoding: encoding, muxer: muxer)
            }
        }
        if plan.format.muxer != "gif" {
            removedLocationTags = Metadata.copy(demuxer.context.pointee.metadata, into: &muxer.context.pointee.metadata,
                                                keepLocation: plan.keepLocation, keepIdentifiers: plan.keepIdentifiers)
        }
    }

    /// Pumps every packet, drains every lane and writes the trailer.
    func run() throws(ConvertError) {
        try muxer.writeHeader(options: plan.format.options.map { ($0.key, $0.value) })
        let context = demuxer.context
        let startTime = demuxer.startTime
        if plan.start > 0 {
            let target = startTime + Int64(plan.start * Double(AV_TIME_BASE))
            // Seeking lands on the keyframe at or before the start; the filters trim the rest.
            if avformat_seek_file(context, -1, Int64.min, target, target, 0) < 0 {
                avformat_seek_file(context, -1, Int64.min, 0, 0, 0)
            }
        }
        guard let primary = plan.lanes.first?.stream.index else { return }
        let total = (plan.end.map { min($0, demuxer.duration ?? $0) } ?? demuxer.duration ?? 0) - plan.start
        let packet = try Packet()
        var reached = Reached()
        var stoppedAtEnd = false
        var primaryPackets = 0
        var timing = FrameRateTiming()
        while true {
            try cancellation.check()
            if try demuxer.read(into: packet) == .endOfFile { break }
            let index = Int(packet.pointer.pointee.stream_index)
            let stream = demuxer.stream(index)
            if plan.timesByFrameRate { timing.stamp(packet, stream: stream, demuxer: demuxer) }
            // Make timestamps zero-based like the ffmpeg CLI does, in the stream's own time base.
            let offset = av_rescale_q(startTime, offc_time_base_q(), stream.pointee.time_base)
            if packet.pointer.pointee.pts != FFmpeg.noTimestamp { packet.pointer.pointee.pts -= offset }
            if packet.pointer.pointee.dts != FFmpeg.noTimestamp { packet.pointer.pointee.dts -= offset }
            let time = packet.pointer.pointee.dts == FFmpeg.noTimestamp ? nil
                : Double(packet.pointer.pointee.dts) * av_q2d(stream.pointee.time_base)
            if let time { reached.anyStream = max(reached.anyStream ?? time, time) }
            guard let lane = lanes[index] else {
                packet.unref()
                continue
            }
            if index == primary {
                if let time {
                    reached.primary = max(reached.primary ?? time, time)
                    if total > 0 { progress(min(max((time - plan.start) / total, 0), 1)) }
                    // Reordering never spans more than a second; past that the clip is complete.
                    if let end = plan.end, time > end + 1 {
                        packet.unref()
                        stoppedAtEnd = true
                        break
                    }
                }
            }
            if index == primary { primaryPackets += 1 }
            try lane.consume(packet)
            packet.unref()
        }
        // An output with a header and no data is no conversion; FFmpeg's Matroska muxer even
        // writes an unreadable file for it.
        guard primaryPackets > 0 else {
            throw ConvertError(.input, key: "input.no-data",
                               message: "\(demuxer.path) has no readable data for its \(plan.format.muxer == "gif" ? "video" : "main") stream.",
                               path: demuxer.path)
        }
        if !stoppedAtEnd { try checkComplete(reached, primary: primary) }
        for index in plan.lanes.map(\.stream.index) {
            try cancellation.check()
            try lanes[index]?.finish()
        }
        try muxer.finish()
        try endEditLists()
        progress(1)
    }

    /// Ends each copied track's edit where the source's ends (see ``EditListEnd``).
    private func endEditLists() throws(ConvertError) {
        guard plan.format.isISOBMFF else { return }
        var trims: [Int: Double] = [:]
        for case let lane as CopyLane in lanes.values where lane.excessEnd > 0 { trims[lane.outputIndex] = lane.excessEnd }
        try EditListEnd.shorten(path: muxer.temporaryPath, by: trims)
    }
}

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

extension FramePump {
    /// The latest packet times (seconds) the loop read.
    struct Reached {
        /// Of the primary (first kept) stream.
        var primary: Double?
        /// Of any stream, kept or not.
        var anyStream: Double?
    }

    /// Throws `input.truncated` when the file ended well before the duration its index
    /// announces: the end of the data is missing (a copy or download cut short), and converting
    /// what is there would silently drop the rest.
    ///
    /// The primary stream is held to its own duration when the container states one; otherwise
    /// (Matroska) the latest packet of any stream is held to the container's duration, so a video
    /// track that simply ends before its sound is not mistaken for a cut.
    private func checkComplete(_ reached: Reached, primary: Int) throws(ConvertError) {
        let expected: Double
        let last: Double
        if let own = StreamSnapshot(demuxer.stream(primary))?.duration, own > 0 {
            (expected, last) = (own, reached.primary ?? 0)
        } else if let container = demuxer.duration, container > 0 {
            (expected, last) = (container, reached.anyStream ?? 0)
        } else {
            return
        }
        // The last packet starts one frame before the end; half a second (or 2 %) more is slack
        // for long final frames and edit lists.
        if last + max(0.5, expected * 0.02) < expected {
            throw ConvertError(.input, key: "input.truncated",
                               message: "\(demuxer.path) is incomplete: its data ends at \(Int(last)) s of \(Int(expected.rounded())) s.",
                               path: demuxer.path)
        }
    }
}

/// Decode → filter → encode for a video stream.
final class VideoLane: TranscodingLane {
    let decoder: CodecDecoder
    private var graph: FilterGraph
    /// What the current graph was built for; a decoded frame that differs gets a new graph.
    private var graphInput: FilterGraph.VideoInput
    private let encoding: VideoEncoding
    let encoder: CodecEncoder
    let muxer: Muxer
    let output: UnsafeMutablePointer<AVStream>
    private let decoded: Frame
    /// The table tone mapper, for HDR to SDR when the decoder's frames are ones it covers; the
    /// zscale chain in `encoding.filter` stays the fallback for frames it does not.
    private let toneMapper: LUTToneMapper?
    /// A decoded frame after the table tone mapper.
    private let mapped: Frame
    /// Whether the current graph takes the table tone mapper's frames (else decoded ones).
    private var graphTakesMapped: Bool
    private let filtered: Frame
    let encoded: Packet
    private var lastPts = Int64.min
    private var decodedFrames = 0
    private let path: String
    /// For a stream without timestamps: one frame's duration (input time base); decoded frames,
    /// which come in display order, are timed by their count.
    var framePace: Int64?
    /// Facts for the job result that only opening the stream reveals.
    private(set) var notes: [String] = []
    /// The source's HDR10+ metadata on its way into an x265 re-encode (see ``HDR10PlusCarry``).
    private var hdr10Plus: HDR10PlusCarry?
    /// Checked per filtered frame too: at the end of a GIF, palettegen releases every buffered
    /// frame at once, and encoders with deep lookahead flush many frames.
    private let cancellation: CancellationFlag

    init(input: UnsafeMutablePointer<AVStream>, encoding: VideoEncoding, demuxer: Demuxer,
         muxer: Muxer, format: OutputFormat, maxPixels: Int, cancellation: CancellationFlag) throws(ConvertError) {
        path = demuxer.path
        self.cancellation = cancellation
        self.muxer = muxer
        self.encoding = encoding
        decoded = try Frame()
        mapped = try Frame()
        filtered = try Frame()
        encoded = try Packet()
        decoder = try CodecDecoder(stream: input, path: demuxer.path, maxPixels: maxPixels)
        let source = decoder.context.pointee
        // A damaged header can leave the stream without a size or pixel format; the filter graph
        // would fail on it with an unhelpful internal error.
        guard source.width > 0, source.height > 0, source.pix_fmt != AV_PIX_FMT_NONE else {
            throw ConvertError(.input, key: "input.corrupt",
                               message: "\(demuxer.path) is damaged: its video stream has no readable picture size or pixel format.",
                               path: demuxer.path)
        }
        // The encoder and the muxer header need the output size before the first frame is decoded,
        // so the first graph is built from the stream parameters; ``drainDecoder()`` replaces it
        // if the decoder's frames turn out different.
        if case .toneMap(let range) = encoding.dynamicRange, LUTToneMapper.covers(pixelFormat: source.pix_fmt) {
            toneMapper = LUTToneMapper(source: range, path: demuxer.path)
        } else {
            toneMapper = nil
        }
        graphTakesMapped = toneMapper != nil
        graphInput = FilterGraph.VideoInput(width: source.width, height: source.height,
                                            pixelFormat: toneMapper != nil ? AV_PIX_FMT_YUV420P.rawValue : source.pix_fmt.rawValue,
                                            timeBase: input.pointee.time_base, sampleAspect: source.sample_aspect_ratio)
        graph = try FilterGraph(video: graphInput, description: VideoLane.description(encoding, mapped: graphTakesMapped),
                                path: demuxer.path)
        encoder = try CodecEncoder(name: encoding.encoder, path: muxer.path)
        let context = encoder.context
        context.pointee.width = graph.outputWidth
        context.pointee.height = graph.outputHeight
        context.pointee.pix_fmt = AVPixelFormat(rawValue: graph.outputFormat)
        context.pointee.sample_aspect_ratio = graph.outputSampleAspect
        context.pointee.time_base = graph.outputTimeBase
        let graphRate = graph.outputFrameRate
        context.pointee.framerate = graphRate.num > 0 ? graphRate : av_guess_frame_rate(demuxer.context, input, nil)
        switch encoding.dynamicRange {
        case .toneMap:
            context.pointee.color_primaries = AVCOL_PRI_BT709
            context.pointee.color_trc = AVCOL_TRC_BT709
            context.pointee.colorspace = AVCOL_SPC_BT709
            context.pointee.color_range = AVCOL_RANGE_MPEG
        case .none where source.color_trc == AVCOL_TRC_SMPTE2084 || source.color_trc == AVCOL_TRC_ARIB_STD_B67:
            // The stream says HDR but its Dolby Vision record says the base layer is SDR
            // (compatibility 2): that base is BT.709, and an SDR file must not claim PQ or HLG.
            context.pointee.color_primaries = AVCOL_PRI_BT709
            context.pointee.color_trc = AVCOL_TRC_BT709
            context.pointee.colorspace = AVCOL_SPC_BT709
            context.pointee.color_range = AVCOL_RANGE_MPEG
        case .keepHDR, .none:
            if encoding.encoder != "gif" {
                context.pointee.color_primaries = source.color_primaries
                context.pointee.color_trc = source.color_trc
                context.pointee.colorspace = source.colorspace
                context.pointee.color_range = AVCOL_RANGE_MPEG
            }
        }
        if muxer.needsGlobalHeader { context.pointee.flags |= AV_CODEC_FLAG_GLOBAL_HEADER }
        var options = encoding.options.map { ($0.key, $0.value) }
        // PQ kept as PQ: the HDR10 static metadata, from the container or the first frame's SEI.
        var hdr: HDRStaticMetadata? = nil
        if case .keepHDR(.pq) = encoding.dynamicRange {
            hdr = HDRStaticMetadata.read(input, path: demuxer.path, maxPixels: maxPixels)
        }
        if encoding.encoder == "libx265" {
            options.append(("x265-params", VideoLane.x265Parameters(hdr: hdr)))
        }
        if encoding.encoder == "libsvtav1", let hdr, !hdr.svtAV1Parameters.isEmpty {
            options.append(("svtav1-params", (["enable-hdr=1"] + hdr.svtAV1Parameters).joined(separator: ":")))
        }
        // Debian's x265 is built without HDR10+ (its dhdr10-info is disabled), and FFmpeg 5.1's
        // libx265 and libsvtav1 wrappers pass no T.35 side data on. An HEVC source's own SEI
        // messages can be carried into x265's output; an AV1 encode (or a cut, whose first
        // output picture is not at a known source time) loses them.
        if hdr?.hasHDR10Plus == true {
            let fromHEVC = input.pointee.codecpar?.pointee.codec_id == AV_CODEC_ID_HEVC
            if encoding.encoder == "libx265" && fromHEVC && !encoding.filter.hasPrefix("trim=") {
                hdr10Plus = HDR10PlusCarry(source: input, offset: 0)
                notes.append("HDR10+ dynamic metadata kept (the source's, picture by picture)")
            } else if encoding.encoder == "libx265" && fromHEVC {
                notes.append("HDR10+ dynamic metadata dropped: a cut's pictures cannot be matched to the source's "
                    + "(HDR10 static metadata kept)")
            } else {
                notes.append("HDR10+ dynamic metadata dropped: the \(encoding.encoder == "libx265" ? "HEVC" : "AV1") encoder "
                    + "cannot write it (HDR10 static metadata kept)")
            }
        }
        try encoder.open(options: options)
        output = try muxer.addStream()
        try FFmpeg.check(avcodec_parameters_from_context(output.pointee.codecpar, context), "set up the output stream",
                         path: muxer.path, category: .internal)
        if format.isISOBMFF && encoding.encoder == "libx265" {
            // Apple players require hvc1 (parameter sets in the sample entry), which global headers give.
            output.pointee.codecpar?.pointee.codec_tag = CopyLane.fourCC("hvc1")
        }
        output.pointee.time_base = context.pointee.time_base
        output.pointee.avg_frame_rate = context.pointee.framerate
        var kept: [AVPacketSideDataType] = []
        if encoding.keepsDisplayMatrix { kept.append(AV_PKT_DATA_DISPLAYMATRIX) }
        if case .keepHDR = encoding.dynamicRange { kept += StreamSideData.hdr }
        StreamSideData.copy(from: input, to: output, kinds: kept)
    }

    /// libx265's own options: quiet logging and, for HDR10, the static metadata as SEI
    /// (FFmpeg 5.1's wrapper does not pass mastering or light-level side data on by itself).
    static func x265Parameters(hdr: HDRStaticMetadata?) -> String {
        var parameters = ["log-level=error"]
        if let hdr { parameters += ["hdr10=1", "hdr10-opt=1", "repeat-headers=1"] + hdr.x265Parameters }
        return parameters.joined(separator: ":")
    }

    func consume(_ packet: Packet) throws(ConvertError) {
        hdr10Plus?.take(packet.pointer)
        // A full decoder takes the packet only after its frames are drained (EAGAIN is a value).
        while true {
            let accepted = try decoder.send(packet)
            try drainDecoder()
            if accepted { return }
        }
    }

    /// Writes every packet the encoder has ready, with the source's HDR10+ SEI when carried.
    func drainEncoder() throws(ConvertError) {
        while try encoder.receive(into: encoded) == .packet {
            let timeBase = encoder.context.pointee.time_base
            let carried = try hdr10Plus?.packet(adding: encoded, timeBase: timeBase)
            if carried != nil { encoded.unref() }
            let packet = carried ?? encoded
            av_packet_rescale_ts(packet.pointer, timeBase, output.pointee.time_base)
            packet.pointer.pointee.stream_index = output.pointee.index
            try muxer.write(packet)
        }
    }

    func finish() throws(ConvertError) {
        _ = try decoder.send(nil)
        try drainDecoder()
        if decodedFrames == 0 {
            throw ConvertError(.input, key: "input.corrupt",
                               message: "\(path) could not be read: no picture in it could be decoded.", path: path)
        }
        try graph.push(nil)
        try drainGraph()
        try encoder.send(nil)
        try drainEncoder()
    }

    func drainDecoder() throws(ConvertError) {
        while try decoder.receive(into: decoded) == .frame {
            decoded.pointer.pointee.pts = framePace.map { Int64(decodedFrames) * $0 } ?? decoded.pointer.pointee.best_effort_timestamp
            decodedFrames += 1
            let picture = try toneMapped(decoded)
            let frame = picture.pointer.pointee
            let takesMapped = picture === mapped
            if frame.width != graphInput.width || frame.height != graphInput.height || frame.format != graphInput.pixelFormat
                || takesMapped != graphTakesMapped {
                try replaceGraph(width: frame.width, height: frame.height, pixelFormat: frame.format,
                                 sampleAspect: frame.sample_aspect_ratio, mapped: takesMapped)
            }
            try graph.push(picture)
            decoded.unref()
            mapped.unref()
            try drainGraph()
        }
    }

    /// Flushes the current graph and builds one for frames of a new size or pixel format. A final
    /// scale keeps the encoder's size and format, which cannot change once the header is written.
    private func replaceGraph(width: Int32, height: Int32, pixelFormat: Int32, sampleAspect: AVRational,
                              mapped: Bool) throws(ConvertError) {
        try graph.push(nil)
        try drainGraph()
        graphInput.width = width
        graphInput.height = height
        graphInput.pixelFormat = pixelFormat
        graphInput.sampleAspect = sampleAspect
        graphTakesMapped = mapped
        let context = encoder.context.pointee
        var description = VideoLane.description(encoding, mapped: mapped)
        if encoding.encoder != "gif", let name = av_get_pix_fmt_name(context.pix_fmt) {
            description += ",scale=w=\(context.width):h=\(context.height),format=\(String(cString: name))"
        }
        graph = try FilterGraph(video: graphInput, description: description, path: path)
    }

    /// The graph for `encoding`: after the table tone mapper, its float chain is left out.
    private static func description(_ encoding: VideoEncoding, mapped: Bool) -> String {
        guard mapped, case .toneMap(let source) = encoding.dynamicRange else { return encoding.filter }
        return ToneMapDecision.filterAfterTable(encoding.filter, source: source)
    }

    /// `frame` tone mapped by the table when there is one and it covers the frame, else `frame`.
    private func toneMapped(_ frame: Frame) throws(ConvertError) -> Frame {
        guard let toneMapper, LUTToneMapper.covers(frame) else { return frame }
        try toneMapper.map(frame, into: mapped)
        return mapped
    }

    private func drainGraph() throws(ConvertError) {
        while try graph.pull(into: filtered) == .frame {
            try cancellation.check()
            if filtered.pointer.pointee.pts != FFmpeg.noTimestamp {
                filtered.pointer.pointee.pts = av_rescale_q(filtered.pointer.pointee.pts, graph.outputTimeBase,
                                                            encoder.context.pointee.time_base)
            }
            let pts = filtered.pointer.pointee.pts
            // Encoders and MP4 need strictly increasing timestamps; a duplicate (from a broken
            // source) is dropped rather than re-timed, so the rest of the clip keeps its timing.
            if pts != FFmpeg.noTimestamp {
                if pts <= lastPts {
                    filtered.unref()
                    continue
                }
                lastPts = pts
            }
            filtered.pointer.pointee.pict_type = AV_PICTURE_TYPE_NONE
            try encoder.send(filtered)
            filtered.unref()
            try drainEncoder()
        }
    }

}

/// Decode → resample → encode for an audio stream.
final class AudioLane: TranscodingLane {
    let decoder: CodecDecoder
    private let graph: FilterGraph
    let encoder: CodecEncoder
    let muxer: Muxer
    let output: UnsafeMutablePointer<AVStream>
    private let decoded: Frame
    private let filtered: Frame
    let encoded: Packet

    init(input: UnsafeMutablePointer<AVStream>, encoding: AudioEncoding, muxer: Muxer) throws(ConvertError) {
        self.muxer = muxer
        decoded = try Frame()
        filtered = try Frame()
        encoded = try Packet()
        decoder = try CodecDecoder(stream: input, path: muxer.path)
        let source = decoder.context
        // As for video: damaged parameters would otherwise surface as an internal filter error.
        guard source.pointee.sample_rate > 0, source.pointee.sample_fmt != AV_SAMPLE_FMT_NONE else {
            throw ConvertError(.input, key: "input.corrupt",
                               message: "The sound of the input for \(muxer.path) is damaged: no readable sample rate or format.",
                               path: muxer.path)
        }
        encoder = try CodecEncoder(name: encoding.encoder, path: muxer.path)
        let context = encoder.context
        let rates = encoder.sampleRates
        var rate = encoding.sampleRate ?? source.pointee.sample_rate
        if !rates.isEmpty && !rates.contains(rate) { rate = rates.contains(48000) ? 48000 : rates[0] }
        guard let sampleFormat = encoder.sampleFormats.first, rate > 0 else {
            throw ConvertError(.internal, key: "internal.encoder", message: "The \(encoding.encoder) encoder has no usable format.",
                               path: muxer.path)
        }
        context.pointee.sample_rate = rate
        context.pointee.sample_fmt = sampleFormat
        av_channel_layout_default(&context.pointee.ch_layout, encoding.channels)
        context.pointee.time_base = AVRational(num: 1, den: rate)
        if let bitRate = encoding.bitRate { context.pointee.bit_rate = bitRate }
        if muxer.needsGlobalHeader { context.pointee.flags |= AV_CODEC_FLAG_GLOBAL_HEADER }
        try encoder.open(options: [])
        var layout = AVChannelLayout()
        if source.pointee.ch_layout.order == AV_CHANNEL_ORDER_UNSPEC || source.pointee.ch_layout.nb_channels == 0 {
            av_channel_layout_default(&layout, max(source.pointee.ch_layout.nb_channels, 1))
        } else {
            av_channel_layout_copy(&layout, &source.pointee.ch_layout)
        }
        var description = [CChar](repeating: 0, count: 128)
        av_channel_layout_describe(&layout, &description, description.count)
        av_channel_layout_uninit(&layout)
        let inputFormat = av_get_sample_fmt_name(source.pointee.sample_fmt).map { String(cString: $0) } ?? "fltp"
        let outputFormat = av_get_sample_fmt_name(sampleFormat).map { String(cString: $0) } ?? "fltp"
        let frameSize = encoder.acceptsVariableFrameSize ? 0 : context.pointee.frame_size
        graph = try FilterGraph(
            audio: .init(sampleRate: source.pointee.sample_rate, sampleFormatName: inputFormat,
                         channelLayout: String(nulTerminated: description), timeBase: input.pointee.time_base),
            description: (encoding.trim.isEmpty ? "" : encoding.trim + ",") + "aresample=\(rate),aformat=sample_fmts=\(outputFormat):channel_layouts=\(encoding.channels == 1 ? "mono" : "stereo")",
            frameSize: frameSize, path: muxer.path)
        output = try muxer.addStream()
        try FFmpeg.check(avcodec_parameters_from_context(output.pointee.codecpar, context), "set up the output stream",
                         path: muxer.path, category: .internal)
        output.pointee.time_base = context.pointee.time_base
        if let language = av_dict_get(input.pointee.metadata, "language", nil, 0) {
            av_dict_set(&output.pointee.metadata, "language", language.pointee.value, 0)
        }
    }

    func finish() throws(ConvertError) {
        _ = try decoder.send(nil)
        try drainDecoder()
        try graph.push(nil)
        try drainGraph()
        try encoder.send(nil)
        try drainEncoder()
    }

    func drainDecoder() throws(ConvertError) {
        while try decoder.receive(into: decoded) == .frame {
            decoded.pointer.pointee.pts = decoded.pointer.pointee.best_effort_timestamp
            try graph.push(decoded)
            decoded.unref()
            try drainGraph()
        }
    }

    private func drainGraph() throws(ConvertError) {
        while try graph.pull(into: filtered) == .frame {
            if filtered.pointer.pointee.pts != FFmpeg.noTimestamp {
                filtered.pointer.pointee.pts = av_rescale_q(filtered.pointer.pointee.pts, graph.outputTimeBase,
                                                            encoder.context.pointee.time_base)
            }
            try encoder.send(filtered)
            filtered.unref()
            try drainEncoder()
        }
    }

}
