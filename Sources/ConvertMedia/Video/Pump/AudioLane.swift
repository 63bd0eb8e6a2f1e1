internal import CFFmpeg
import ConvertCore

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
