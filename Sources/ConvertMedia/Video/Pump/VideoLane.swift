import ConvertCore
internal import FFmpegLayer

/// Decode → filter → encode for a video stream.
final class VideoLane: TranscodingLane {
    let decoder: CodecDecoder
    private var graph: FilterGraph
    /// What the current graph was built for; a decoded frame that differs gets a new graph.
    private var graphInput: FilterGraph.VideoInput
    private let encoding: VideoEncoding
    let encoder: CodecEncoder
    let muxer: Muxer
    let output: Muxer.Stream
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
    /// Sees every packet the encoder writes and may stop the pass (see ``EncodeWatch``).
    var watch: (any EncodeWatch)?

    init(
        input: Demuxer.Stream, encoding: VideoEncoding, demuxer: Demuxer,
        muxer: Muxer, format: OutputFormat, maxPixels: Int, cancellation: CancellationFlag
    ) throws(ConvertError) {
        path = demuxer.path
        self.cancellation = cancellation
        self.muxer = muxer
        self.encoding = encoding
        decoded = try Frame()
        mapped = try Frame()
        filtered = try Frame()
        encoded = try Packet()
        decoder = try CodecDecoder(stream: input, path: demuxer.path, maxPixels: maxPixels)
        let source = decoder.video
        // A damaged header can leave the stream without a size or pixel format; the filter graph
        // would fail on it with an unhelpful internal error.
        guard source.width > 0, source.height > 0, source.pixelFormat != .none else {
            throw ConvertError(
                code: .inputCorrupt,
                message: "\(demuxer.path) is damaged: its video stream has no readable picture size or pixel format.",
                path: demuxer.path)
        }
        // The encoder and the muxer header need the output size before the first frame is decoded,
        // so the first graph is built from the stream parameters; ``drainDecoder()`` replaces it
        // if the decoder's frames turn out different.
        if case .toneMap(let range) = encoding.dynamicRange, LUTToneMapper.covers(pixelFormat: source.pixelFormat) {
            toneMapper = LUTToneMapper(source: range, path: demuxer.path)
        } else {
            toneMapper = nil
        }
        graphTakesMapped = toneMapper != nil
        graphInput = FilterGraph.VideoInput(
            width: source.width, height: source.height,
            pixelFormat: toneMapper != nil ? .yuv420p : source.pixelFormat,
            timeBase: input.timeBase, sampleAspect: source.sampleAspect)
        graph = try FilterGraph(
            video: graphInput, description: VideoLane.description(encoding, mapped: graphTakesMapped),
            path: demuxer.path)
        encoder = try CodecEncoder(name: encoding.encoder, path: muxer.path)
        let graphRate = graph.outputFrameRate
        encoder.configure(
            video: .init(
                width: graph.outputWidth, height: graph.outputHeight, pixelFormat: graph.outputPixelFormat,
                sampleAspect: graph.outputSampleAspect, timeBase: graph.outputTimeBase,
                frameRate: graphRate.numerator > 0 ? graphRate : input.guessedFrameRate,
                color: VideoLane.color(encoding, source: source), globalHeader: muxer.needsGlobalHeader))
        var options = encoding.options.map { ($0.key, $0.value) }
        // PQ kept as PQ: the HDR10 static metadata, from the container or the first frame's SEI.
        var hdr: HDRStaticMetadata? = nil
        if case .keepHDR(.pq) = encoding.dynamicRange {
            hdr = HDRStaticMetadata.read(input, path: demuxer.path, maxPixels: maxPixels)
        }
        options += X265Parameters.encoderOptions(encoder: encoding.encoder, hdr: hdr)
        if let hdr, hdr.hasHDR10Plus {
            let (carry, note) = VideoLane.hdr10Plus(from: input, encoding: encoding)
            hdr10Plus = carry
            notes.append(note)
        }
        try encoder.open(options: options)
        // Apple players require hvc1 (parameter sets in the sample entry), which global headers give.
        let tag = format.isISOBMFF && encoding.encoder == "libx265" ? CopyLane.fourCC("hvc1") : 0
        var kept: [StreamSideData.Kind] = []
        if encoding.keepsDisplayMatrix { kept.append(.displayMatrix) }
        if case .keepHDR = encoding.dynamicRange { kept += StreamSideData.hdr }
        output = try muxer.addStream(
            encoder: encoder, codecTag: tag, input: input, keepsLanguage: false, sideData: kept)
    }

    /// The colour description the encoder writes: BT.709 for a tone-mapped picture, the source's
    /// otherwise; nil (the encoder's own) for GIF.
    private static func color(_ encoding: VideoEncoding, source: CodecDecoder.VideoParameters) -> CodecEncoder.Color? {
        switch encoding.dynamicRange {
        case .toneMap:
            return .bt709
        case .none where source.transfer == .pq || source.transfer == .hlg:
            // The stream says HDR but its Dolby Vision record says the base layer is SDR
            // (compatibility 2): that base is BT.709, and an SDR file must not claim PQ or HLG.
            return .bt709
        case .keepHDR, .none:
            guard encoding.encoder != "gif" else { return nil }
            return CodecEncoder.Color(primaries: source.primaries, transfer: source.transfer, matrix: source.matrix)
        }
    }

    /// Debian's x265 is built without HDR10+ (its dhdr10-info is disabled), and FFmpeg 5.1's
    /// libx265 and libsvtav1 wrappers pass no T.35 side data on. An HEVC source's own SEI
    /// messages can be carried into x265's output; an AV1 encode (or a cut, whose first output
    /// picture is not at a known source time) loses them.
    private static func hdr10Plus(from input: Demuxer.Stream, encoding: VideoEncoding) -> (HDR10PlusCarry?, String) {
        let fromHEVC = input.codec == .hevc
        if encoding.encoder == "libx265" && fromHEVC && !encoding.filter.hasPrefix("trim=") {
            return (
                HDR10PlusCarry(source: input, offset: 0),
                "HDR10+ dynamic metadata kept (the source's, picture by picture)"
            )
        } else if encoding.encoder == "libx265" && fromHEVC {
            return (
                nil,
                "HDR10+ dynamic metadata dropped: a cut's pictures cannot be matched to the source's "
                    + "(HDR10 static metadata kept)"
            )
        }
        return (
            nil,
            "HDR10+ dynamic metadata dropped: the \(encoding.encoder == "libx265" ? "HEVC" : "AV1") encoder "
                + "cannot write it (HDR10 static metadata kept)"
        )
    }

    func consume(_ packet: Packet) throws(ConvertError) {
        hdr10Plus?.take(packet)
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
            let timeBase = encoder.timeBase
            let carried = try hdr10Plus?.packet(adding: encoded, timeBase: timeBase)
            if carried != nil { encoded.unref() }
            let packet = carried ?? encoded
            let seen = EncodedPacket(
                bytes: packet.size, isKeyframe: packet.isKeyframe, quantizer: packet.encoderQuantizer)
            packet.rescaleTimestamps(from: timeBase, to: output.timeBase)
            packet.streamIndex = output.index
            try muxer.write(packet)
            switch watch?.verdict(after: seen) ?? .proceed {
            case .proceed: break
            case .rateFactor(let value): try encoder.setOption("crf", to: value)
            case .stop: throw .cancelled()
            }
        }
    }

    func finish() throws(ConvertError) {
        _ = try decoder.send(nil)
        try drainDecoder()
        if decodedFrames == 0 {
            throw ConvertError(
                code: .inputCorrupt,
                message: "\(path) could not be read: no picture in it could be decoded.", path: path)
        }
        try graph.push(nil)
        try drainGraph()
        try encoder.send(nil)
        try drainEncoder()
    }

    func drainDecoder() throws(ConvertError) {
        while try decoder.receive(into: decoded) == .frame {
            decoded.pts = framePace.map { Int64(decodedFrames) * $0 } ?? decoded.bestEffortTimestamp
            decodedFrames += 1
            let picture = try toneMapped(decoded)
            let takesMapped = picture === mapped
            if picture.width != graphInput.width || picture.height != graphInput.height
                || picture.pixelFormat != graphInput.pixelFormat || takesMapped != graphTakesMapped
            {
                try replaceGraph(
                    width: picture.width, height: picture.height, pixelFormat: picture.pixelFormat,
                    sampleAspect: picture.sampleAspect, mapped: takesMapped)
            }
            try graph.push(picture)
            decoded.unref()
            mapped.unref()
            try drainGraph()
        }
    }

    /// Flushes the current graph and builds one for frames of a new size or pixel format. A final
    /// scale keeps the encoder's size and format, which cannot change once the header is written.
    private func replaceGraph(
        width: Int32, height: Int32, pixelFormat: PixelFormat, sampleAspect: Rational,
        mapped: Bool
    ) throws(ConvertError) {
        try graph.push(nil)
        try drainGraph()
        graphInput.width = width
        graphInput.height = height
        graphInput.pixelFormat = pixelFormat
        graphInput.sampleAspect = sampleAspect
        graphTakesMapped = mapped
        var description = VideoLane.description(encoding, mapped: mapped)
        if encoding.encoder != "gif", let name = encoder.pixelFormat.name {
            description += ",scale=w=\(encoder.width):h=\(encoder.height),format=\(name)"
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
            if filtered.pts != Packet.noTimestamp {
                filtered.pts = graph.outputTimeBase.rescale(filtered.pts, to: encoder.timeBase)
            }
            let pts = filtered.pts
            // Encoders and MP4 need strictly increasing timestamps; a duplicate (from a broken
            // source) is dropped rather than re-timed, so the rest of the clip keeps its timing.
            if pts != Packet.noTimestamp {
                if pts <= lastPts {
                    filtered.unref()
                    continue
                }
                lastPts = pts
            }
            filtered.clearPictureType()
            try encoder.send(filtered)
            filtered.unref()
            try drainEncoder()
        }
    }

}
