internal import CFFmpeg
import ConvertCore

/// Owns a decoding `AVCodecContext` (`avcodec_alloc_context3` + `avcodec_open2`), freed with
/// `avcodec_free_context`.
///
/// Decoding is threaded (frame and slice threads, as many as FFmpeg picks for the machine).
/// The send/receive protocol's EAGAIN and EOF are values (``Step``), not errors.
final class CodecDecoder {
    /// The file being decoded, for error messages.
    let path: String
    let context: UnsafeMutablePointer<AVCodecContext>

    /// What one ``receive(into:)`` produced.
    enum Step: Equatable {
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
    init(stream: UnsafeMutablePointer<AVStream>, path: String, maxPixels: Int? = nil) throws(ConvertError) {
        self.path = path
        guard let parameters = stream.pointee.codecpar else {
            throw ConvertError(.internal, key: "internal.ffmpeg", message: "A stream of \(path) has no codec parameters.", path: path)
        }
        let codecID = parameters.pointee.codec_id
        guard let codec = avcodec_find_decoder(codecID) else {
            let name = String(cString: avcodec_get_name(codecID))
            throw ConvertError(.unsupported, key: "unsupported.codec",
                               message: "\(path) uses the \(name) codec, which this build of FFmpeg cannot decode.",
                               path: path)
        }
        guard let allocated = avcodec_alloc_context3(codec) else {
            throw ConvertError(.internal, key: "internal.memory", message: "Out of memory opening a decoder.", path: path)
        }
        context = allocated
        try FFmpeg.check(avcodec_parameters_to_context(context, parameters), "configure the decoder", path: path,
                         category: .internal)
        context.pointee.pkt_timebase = stream.pointee.time_base
        if let maxPixels { context.pointee.max_pixels = Int64(maxPixels) }
        // Zero lets FFmpeg choose one thread per core; frame threads give the biggest speedup.
        context.pointee.thread_count = 0
        context.pointee.thread_type = FF_THREAD_FRAME | FF_THREAD_SLICE
        try FFmpeg.check(avcodec_open2(context, codec, nil), "open the decoder", path: path, category: .unsupported)
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
    func send(_ packet: Packet?) throws(ConvertError) -> Bool {
        let code = avcodec_send_packet(context, packet?.pointer)
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
    private(set) var rejectedPackets = 0

    /// Receives the next decoded frame into `frame`.
    func receive(into frame: Frame) throws(ConvertError) -> Step {
        let code = avcodec_receive_frame(context, frame.pointer)
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
