import ConvertCore
internal import FFmpegLayer

/// Decode → resample → encode for an audio stream.
final class AudioLane: TranscodingLane {
    let decoder: CodecDecoder
    private let graph: FilterGraph
    let encoder: CodecEncoder
    let muxer: Muxer
    let output: Muxer.Stream
    private let decoded: Frame
    private let filtered: Frame
    let encoded: Packet

    /// A lane decoding `input` (a stream of the file at `inputPath`, which errors about the
    /// source name) and encoding it as `encoding` says into `muxer`.
    init(input: Demuxer.Stream, inputPath: String, encoding: AudioEncoding, muxer: Muxer) throws(ConvertError) {
        self.muxer = muxer
        decoded = try Frame()
        filtered = try Frame()
        encoded = try Packet()
        decoder = try CodecDecoder(stream: input, path: inputPath)
        let source = decoder.audio
        // As for video: damaged parameters would otherwise surface as an internal filter error.
        guard source.sampleRate > 0, source.sampleFormat != .none else {
            throw ConvertError(
                code: .inputCorrupt,
                message: "\(inputPath) is damaged: its sound has no readable sample rate or format.",
                path: inputPath)
        }
        encoder = try CodecEncoder(name: encoding.encoder, path: muxer.path)
        let rates = encoder.sampleRates
        var rate = encoding.sampleRate ?? source.sampleRate
        if !rates.isEmpty && !rates.contains(rate) { rate = rates.contains(48000) ? 48000 : rates[0] }
        // The encoder's first format, or for a deeper source (24-bit TrueHD or PCM) one as deep:
        // FLAC's first is s16, which would make a lossless copy lossy.
        let formats = encoder.sampleFormats
        let deep = source.sampleFormat.bytesPerSample > 2 ? formats.first { $0.bytesPerSample > 2 } : nil
        guard let sampleFormat = deep ?? formats.first, rate > 0 else {
            throw ConvertError(
                code: .internalEncoder, message: "The \(encoding.encoder) encoder has no usable format.",
                path: muxer.path)
        }
        encoder.configure(
            audio: .init(
                sampleRate: rate, sampleFormat: sampleFormat, channels: encoding.channels,
                bitRate: encoding.bitRate, globalHeader: muxer.needsGlobalHeader))
        try encoder.open(options: [])
        let frameSize = encoder.acceptsVariableFrameSize ? 0 : encoder.frameSize
        let resample =
            "aresample=\(rate),aformat=sample_fmts=\(sampleFormat.name ?? "fltp")"
            + ":channel_layouts=\(encoder.channelLayoutName)"
        graph = try FilterGraph(
            audio: .init(
                sampleRate: source.sampleRate, sampleFormatName: source.sampleFormat.name ?? "fltp",
                channelLayout: source.channelLayout, timeBase: input.timeBase),
            description: (encoding.trim.isEmpty ? "" : encoding.trim + ",") + resample,
            frameSize: frameSize, path: muxer.path)
        output = try muxer.addStream(encoder: encoder, input: input, sideData: [])
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
            decoded.pts = decoded.bestEffortTimestamp
            try graph.push(decoded)
            decoded.unref()
            try drainGraph()
        }
    }

    private func drainGraph() throws(ConvertError) {
        while try graph.pull(into: filtered) == .frame {
            if filtered.pts != Packet.noTimestamp {
                filtered.pts = graph.outputTimeBase.rescale(filtered.pts, to: encoder.timeBase)
            }
            try encoder.send(filtered)
            filtered.unref()
            try drainEncoder()
        }
    }

}
