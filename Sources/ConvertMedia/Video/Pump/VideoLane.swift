internal import CFFmpeg
import ConvertCore

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
