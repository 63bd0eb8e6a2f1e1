internal import CFFmpeg
import ConvertCore

/// Owns a decoding `AVCodecContext` (`avcodec_alloc_context3` + `avcodec_open2`), freed with
/// `avcodec_free_context`.
///
/// Decoding is threaded (frame and slice threads, as many as FFmpeg picks for the machine).
/// The send/receive protocol's EAGAIN and EOF are values (``Step``), not errors.
package final class CodecDecoder {
    /// The file being decoded, for error messages.
    let path: String
    private let context: UnsafeMutablePointer<AVCodecContext>

    /// What one ``receive(into:)`` produced.
    package enum Step: Equatable {
        /// A frame was written into the caller's frame.
        case frame
        /// The decoder needs another packet before it can produce a frame.
        case needsInput
        /// The decoder is fully drained.
        case endOfStream
    }

    /// Opens a decoder for `stream` of a demuxed file. `maxPixels` (video) makes FFmpeg refuse
    /// frames larger than that before allocating them, even when the bitstream's own headers
    /// claim a different size than the container did.
    ///
    /// `threaded` false decodes on the calling thread alone (the probe wants one frame, not
    /// throughput).
    package init(stream: Demuxer.Stream, path: String, maxPixels: Int? = nil, threaded: Bool = true)
        throws(ConvertError)
    {
        self.path = path
        let codecID = stream.codec
        guard let codec = avcodec_find_decoder(codecID.avValue) else {
            throw ConvertError(
                code: .unsupportedCodec,
                message: "\(path) uses the \(codecID.name) codec, which this build of FFmpeg cannot decode.",
                path: path)
        }
        guard let allocated = avcodec_alloc_context3(codec) else {
            throw ConvertError(code: .internalMemory, message: "Out of memory opening a decoder.", path: path)
        }
        context = allocated
        let configured = stream.withUnsafeStream { input in
            input.pointee.codecpar.map { avcodec_parameters_to_context(allocated, $0) } ?? offc_averror(EINVAL)
        }
        try FFmpeg.check(configured, "configure the decoder", path: path, category: .internal)
        context.pointee.pkt_timebase = stream.timeBase.av
        if let maxPixels { context.pointee.max_pixels = Int64(maxPixels) }
        // Zero lets FFmpeg choose one thread per core; frame threads give the biggest speedup.
        context.pointee.thread_count = threaded ? 0 : 1
        if threaded { context.pointee.thread_type = FF_THREAD_FRAME | FF_THREAD_SLICE }
        try FFmpeg.check(avcodec_open2(context, codec, nil), "open the decoder", path: path, category: .unsupported)
    }

    /// Decodes one subtitle packet; nil when it holds no cue or is damaged.
    package func decodeSubtitle(_ packet: Packet) -> DecodedSubtitle? {
        DecodedSubtitle.decode(packet, with: context)
    }

    /// The ASS header a text subtitle decoder made (styles, play size), which a text subtitle
    /// encoder needs; empty for others.
    package var subtitleHeader: [UInt8] {
        guard let header = context.pointee.subtitle_header, context.pointee.subtitle_header_size > 0 else { return [] }
        return Array(UnsafeBufferPointer(start: header, count: Int(context.pointee.subtitle_header_size)))
    }

    /// What the decoder says about its pictures before the first is decoded (from the stream
    /// parameters).
    package struct VideoParameters {
        package var width: Int32
        package var height: Int32
        package var pixelFormat: PixelFormat
        package var sampleAspect: Rational
        package var primaries: ColorPrimaries
        package var transfer: TransferCharacteristics
        package var matrix: MatrixCoefficients
    }

    package var video: VideoParameters {
        let source = context.pointee
        return VideoParameters(
            width: source.width, height: source.height, pixelFormat: PixelFormat(rawValue: source.pix_fmt.rawValue),
            sampleAspect: Rational(source.sample_aspect_ratio),
            primaries: ColorPrimaries(code: Int(source.color_primaries.rawValue)),
            transfer: TransferCharacteristics(code: Int(source.color_trc.rawValue)),
            matrix: MatrixCoefficients(code: Int(source.colorspace.rawValue)))
    }

    /// What the decoder says about its sound before the first frame is decoded.
    package struct AudioParameters {
        package var sampleRate: Int32
        package var sampleFormat: SampleFormat
        /// FFmpeg's description of the channel layout (`stereo`, `5.1(side)`); an unspecified
        /// layout is described as the default one for its channel count (at least one).
        package var channelLayout: String
    }

    package var audio: AudioParameters {
        var layout = AVChannelLayout()
        let source = context.pointee.ch_layout
        if source.order == AV_CHANNEL_ORDER_UNSPEC || source.nb_channels == 0 {
            av_channel_layout_default(&layout, max(source.nb_channels, 1))
        } else {
            av_channel_layout_copy(&layout, &context.pointee.ch_layout)
        }
        var description = [CChar](repeating: 0, count: 128)
        av_channel_layout_describe(&layout, &description, description.count)
        av_channel_layout_uninit(&layout)
        return AudioParameters(
            sampleRate: context.pointee.sample_rate,
            sampleFormat: SampleFormat(rawValue: context.pointee.sample_fmt.rawValue),
            channelLayout: String(nulTerminated: description))
    }

    deinit {
        var owned: UnsafeMutablePointer<AVCodecContext>? = context
        avcodec_free_context(&owned)
    }

    /// Sends one packet, or `nil` to start draining. Returns false when the decoder must be
    /// emptied with ``receive(into:)`` first (the packet was not consumed).
    ///
    /// A packet the decoder rejects as invalid data is skipped and counted in
    /// ``rejectedPackets``: one damaged packet should not stop a conversion, a file of them does.
    package func send(_ packet: Packet?) throws(ConvertError) -> Bool {
        let code = packet?.withUnsafePointer { avcodec_send_packet(context, $0) } ?? avcodec_send_packet(context, nil)
        if code == FFmpeg.again { return false }
        if code == FFmpeg.endOfFile { return true }
        if code == offc_averror_invaliddata() {
            rejectedPackets += 1
            return true
        }
        try FFmpeg.check(code, "decode", path: path)
        return true
    }

    /// Packets the decoder rejected as invalid data.
    package private(set) var rejectedPackets = 0

    /// Receives the next decoded frame into `frame`.
    package func receive(into frame: Frame) throws(ConvertError) -> Step {
        let code = frame.withUnsafePointer { avcodec_receive_frame(context, $0) }
        if code == FFmpeg.again { return .needsInput }
        if code == FFmpeg.endOfFile { return .endOfStream }
        if code == offc_averror_invaliddata() {
            rejectedPackets += 1
            return .needsInput
        }
        try FFmpeg.check(code, "decode", path: path)
        return .frame
    }
}
