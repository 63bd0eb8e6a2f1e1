internal import CFFmpeg
import ConvertCore

/// Owns an encoding `AVCodecContext`, freed with `avcodec_free_context`.
///
/// Create it, set the context's fields (size, pixel or sample format, time base), then ``open(options:)``.
final class CodecEncoder {
    /// The output being written, for error messages.
    let path: String
    let context: UnsafeMutablePointer<AVCodecContext>
    private let codec: UnsafePointer<AVCodec>

    /// What one ``receive(into:)`` produced.
    enum Step: Equatable {
        /// A packet was written into the caller's packet.
        case packet
        /// The encoder needs another frame.
        case needsInput
        /// The encoder is fully drained.
        case endOfStream
    }

    /// Allocates the encoder named `name` (e.g. `libx264`).
    init(name: String, path: String) throws(ConvertError) {
        self.path = path
        guard let codec = avcodec_find_encoder_by_name(name) else {
            throw ConvertError(.unsupported, key: "unsupported.encoder",
                               message: "The \(name) encoder is not available in this build of FFmpeg.", path: path)
        }
        guard let allocated = avcodec_alloc_context3(codec) else {
            throw ConvertError(.internal, key: "internal.memory", message: "Out of memory opening an encoder.", path: path)
        }
        self.codec = codec
        context = allocated
    }

    deinit {
        var owned: UnsafeMutablePointer<AVCodecContext>? = context
        avcodec_free_context(&owned)
    }

    /// The encoder's sample rates; empty when it accepts any.
    var sampleRates: [Int32] {
        var rates: [Int32] = []
        guard var cursor = codec.pointee.supported_samplerates else { return rates }
        while cursor.pointee != 0 {
            rates.append(cursor.pointee)
            cursor += 1
        }
        return rates
    }

    /// The encoder's sample formats, in its order of preference.
    var sampleFormats: [AVSampleFormat] {
        var formats: [AVSampleFormat] = []
        guard var cursor = codec.pointee.sample_fmts else { return formats }
        while cursor.pointee != AV_SAMPLE_FMT_NONE {
            formats.append(cursor.pointee)
            cursor += 1
        }
        return formats
    }

    /// Whether the encoder takes audio frames of any size (otherwise exactly `frame_size`).
    var acceptsVariableFrameSize: Bool {
        codec.pointee.capabilities & AV_CODEC_CAP_VARIABLE_FRAME_SIZE != 0
    }

    /// Opens the encoder with private `options` (e.g. `crf`, `preset`).
    func open(options: [(String, String)]) throws(ConvertError) {
        var dictionary: OpaquePointer? = nil
        for (key, value) in options { av_dict_set(&dictionary, key, value, 0) }
        let code = avcodec_open2(context, codec, &dictionary)
        av_dict_free(&dictionary)
        try FFmpeg.check(code, "open the \(String(cString: codec.pointee.name)) encoder", path: path, category: .internal)
    }

    /// Sends one frame, or `nil` to start draining.
    func send(_ frame: Frame?) throws(ConvertError) {
        let code = avcodec_send_frame(context, frame?.pointer)
        // EOF here means draining already started; sending nil twice is harmless.
        if code == FFmpeg.endOfFile && frame == nil { return }
        if code < 0 { throw FFmpeg.encoderError(code, path: path) }
    }

    /// Receives the next encoded packet into `packet`.
    func receive(into packet: Packet) throws(ConvertError) -> Step {
        let code = avcodec_receive_packet(context, packet.pointer)
        if code == FFmpeg.again { return .needsInput }
        if code == FFmpeg.endOfFile { return .endOfStream }
        if code < 0 { throw FFmpeg.encoderError(code, path: path) }
        return .packet
    }
}
