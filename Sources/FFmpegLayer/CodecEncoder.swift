internal import CFFmpeg
import ConvertCore

/// Owns an encoding `AVCodecContext`, freed with `avcodec_free_context`.
///
/// Create it, ``configure(video:)`` or ``configure(audio:)`` it, then ``open(options:)``.
package final class CodecEncoder {
    /// The output being written, for error messages.
    let path: String
    private let context: UnsafeMutablePointer<AVCodecContext>
    private let codec: UnsafePointer<AVCodec>
    /// Whether ``open(options:)`` succeeded.
    private var isOpen = false
    /// How many frames the encoder has taken, and whether draining has started.
    private var framesSent = 0
    private var draining = false

    /// What one ``receive(into:)`` produced.
    package enum Step: Equatable {
        /// A packet was written into the caller's packet.
        case packet
        /// The encoder needs another frame.
        case needsInput
        /// The encoder is fully drained.
        case endOfStream
    }

    /// Allocates the encoder named `name` (e.g. `libx264`).
    package init(name: String, path: String) throws(ConvertError) {
        self.path = path
        guard let codec = avcodec_find_encoder_by_name(name) else {
            throw ConvertError(
                code: .unsupportedEncoder,
                message: "The \(name) encoder is not available in this build of FFmpeg.", path: path)
        }
        guard let allocated = avcodec_alloc_context3(codec) else {
            throw ConvertError(code: .internalMemory, message: "Out of memory opening an encoder.", path: path)
        }
        self.codec = codec
        context = allocated
        needsLifecycleLock = String(cString: codec.pointee.name) == "libsvtav1"
    }

    deinit {
        var owned: UnsafeMutablePointer<AVCodecContext>? = context
        withLifecycleLock {
            // SVT-AV1 1.4's teardown waits for an end of stream that an encoder given no frame
            // never puts out (a job cancelled, or whose input failed, before its first frame):
            // one blank frame and a drain let it close.
            if isOpen && isIdleSVT { drainBlankFrame() }
            avcodec_free_context(&owned)
        }
    }

    /// Sends one blank frame of the opened size and format, then drains, discarding the packets.
    private func drainBlankFrame() {
        guard let frame = try? Frame(), let packet = try? Packet() else { return }
        let sent = frame.withUnsafePointer { frame -> Bool in
            frame.pointee.format = context.pointee.pix_fmt.rawValue
            (frame.pointee.width, frame.pointee.height) = (context.pointee.width, context.pointee.height)
            guard av_frame_get_buffer(frame, 0) >= 0 else { return false }
            withUnsafeBytes(of: &frame.pointee.buf) { buffers in
                for case let buffer? in buffers.bindMemory(to: UnsafeMutablePointer<AVBufferRef>?.self) {
                    buffer.pointee.data.update(repeating: 0, count: Int(buffer.pointee.size))
                }
            }
            return avcodec_send_frame(context, frame) >= 0
        }
        guard sent, avcodec_send_frame(context, nil) >= 0 else { return }
        // A few packets at most come out of one frame; the bound only guards against a loop.
        for _ in 0..<64 {
            guard packet.withUnsafePointer({ avcodec_receive_packet(context, $0) }) >= 0 else { return }
            packet.unref()
        }
    }

    /// Serialises opening and freeing SVT-AV1 encoders across the process. SVT-AV1 (1.4 in
    /// Debian 12, and later releases) keeps its CPU topology in one unguarded global: every
    /// encoder's set-up fills it in and every encoder's teardown frees it, whatever other encoders
    /// are alive, so two jobs opening or closing AV1 encoders at once crash inside the library.
    private static let svtLifecycle = PthreadLocked(())

    /// Whether this encoder is SVT-AV1, whose set-up and teardown must not overlap another's.
    private let needsLifecycleLock: Bool

    /// An SVT-AV1 encoder that has been given no frame: SVT-AV1 1.4 never ends its stream.
    private var isIdleSVT: Bool { needsLifecycleLock && framesSent == 0 }

    private func withLifecycleLock<T>(_ body: () -> T) -> T {
        guard needsLifecycleLock else { return body() }
        return CodecEncoder.svtLifecycle.withLock { _ in body() }
    }

    /// The encoder's sample rates; empty when it accepts any.
    package var sampleRates: [Int32] {
        var rates: [Int32] = []
        guard var cursor = codec.pointee.supported_samplerates else { return rates }
        while cursor.pointee != 0 {
            rates.append(cursor.pointee)
            cursor += 1
        }
        return rates
    }

    /// The encoder's sample formats, in its order of preference.
    package var sampleFormats: [SampleFormat] {
        var formats: [SampleFormat] = []
        guard var cursor = codec.pointee.sample_fmts else { return formats }
        while cursor.pointee != AV_SAMPLE_FMT_NONE {
            formats.append(SampleFormat(rawValue: cursor.pointee.rawValue))
            cursor += 1
        }
        return formats
    }

    /// The picture a video encoder is opened for.
    package struct VideoSettings {
        var width: Int32
        var height: Int32
        var pixelFormat: PixelFormat
        var sampleAspect: Rational
        var timeBase: Rational
        var frameRate: Rational
        /// The colour description written into the stream; nil leaves the encoder's defaults
        /// (GIF has none). The range is always limited (video levels).
        var color: Color?
        /// Headers in extradata (``Muxer/needsGlobalHeader``).
        var globalHeader: Bool

        package init(
            width: Int32, height: Int32, pixelFormat: PixelFormat, sampleAspect: Rational, timeBase: Rational,
            frameRate: Rational, color: Color?, globalHeader: Bool
        ) {
            self.width = width
            self.height = height
            self.pixelFormat = pixelFormat
            self.sampleAspect = sampleAspect
            self.timeBase = timeBase
            self.frameRate = frameRate
            self.color = color
            self.globalHeader = globalHeader
        }
    }

    /// Primaries, transfer and matrix, by H.273 code (FFmpeg's enums use the same numbers).
    package struct Color: Equatable {
        var primaries: ColorPrimaries
        var transfer: TransferCharacteristics
        var matrix: MatrixCoefficients

        package init(primaries: ColorPrimaries, transfer: TransferCharacteristics, matrix: MatrixCoefficients) {
            self.primaries = primaries
            self.transfer = transfer
            self.matrix = matrix
        }

        /// BT.709, what an SDR output says.
        package static let bt709 = Color(
            primaries: ColorPrimaries(code: 1), transfer: .bt709, matrix: MatrixCoefficients(code: 1))
    }

    /// Sets the picture fields before ``open(options:)``.
    package func configure(video settings: VideoSettings) {
        context.pointee.width = settings.width
        context.pointee.height = settings.height
        context.pointee.pix_fmt = settings.pixelFormat.avValue
        context.pointee.sample_aspect_ratio = settings.sampleAspect.av
        context.pointee.time_base = settings.timeBase.av
        context.pointee.framerate = settings.frameRate.av
        if let color = settings.color {
            context.pointee.color_primaries = AVColorPrimaries(rawValue: UInt32(color.primaries.code))
            context.pointee.color_trc = AVColorTransferCharacteristic(rawValue: UInt32(color.transfer.code))
            context.pointee.colorspace = AVColorSpace(rawValue: UInt32(color.matrix.code))
            context.pointee.color_range = AVCOL_RANGE_MPEG
        }
        if settings.globalHeader { context.pointee.flags |= AV_CODEC_FLAG_GLOBAL_HEADER }
    }

    /// The sound an audio encoder is opened for.
    package struct AudioSettings {
        var sampleRate: Int32
        var sampleFormat: SampleFormat
        /// Channels, in FFmpeg's default layout for that many.
        var channels: Int32
        var bitRate: Int64?
        var globalHeader: Bool

        package init(
            sampleRate: Int32, sampleFormat: SampleFormat, channels: Int32, bitRate: Int64?, globalHeader: Bool
        ) {
            self.sampleRate = sampleRate
            self.sampleFormat = sampleFormat
            self.channels = channels
            self.bitRate = bitRate
            self.globalHeader = globalHeader
        }
    }

    /// Sets the sound fields (and a time base of one sample) before ``open(options:)``.
    package func configure(audio settings: AudioSettings) {
        context.pointee.sample_rate = settings.sampleRate
        context.pointee.sample_fmt = settings.sampleFormat.avValue
        av_channel_layout_default(&context.pointee.ch_layout, settings.channels)
        context.pointee.time_base = AVRational(num: 1, den: settings.sampleRate)
        if let bitRate = settings.bitRate { context.pointee.bit_rate = bitRate }
        if settings.globalHeader { context.pointee.flags |= AV_CODEC_FLAG_GLOBAL_HEADER }
    }

    /// The configured channel layout as FFmpeg names it (`stereo`, `5.1`), for the filter that
    /// feeds the encoder: both then agree on the layout, not only on the count.
    package var channelLayoutName: String {
        var buffer = [CChar](repeating: 0, count: 64)
        _ = av_channel_layout_describe(&context.pointee.ch_layout, &buffer, buffer.count)
        return String(nulTerminated: buffer)
    }

    /// Sets a text subtitle encoder's time base and the ASS header its decoder made, before
    /// ``open(options:)``.
    package func configure(subtitleTimeBase timeBase: Rational, header: [UInt8]) throws(ConvertError) {
        context.pointee.time_base = timeBase.av
        guard !header.isEmpty else { return }
        // The encoder frees it with the context; one more byte keeps it a C string.
        guard let copy = av_mallocz(header.count + 1)?.bindMemory(to: UInt8.self, capacity: header.count + 1) else {
            throw ConvertError(code: .internalMemory, message: "Out of memory opening an encoder.", path: path)
        }
        header.withUnsafeBufferPointer { copy.update(from: $0.baseAddress!, count: header.count) }
        context.pointee.subtitle_header = copy
        context.pointee.subtitle_header_size = Int32(header.count)
    }

    /// Encodes one decoded subtitle; nil when the encoder cannot write it (a picture cue for a
    /// text format, say).
    package func encode(_ subtitle: DecodedSubtitle) -> [UInt8]? {
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        let size = subtitle.withUnsafeSubtitle { cue in
            buffer.withUnsafeMutableBufferPointer {
                avcodec_encode_subtitle(context, $0.baseAddress, Int32($0.count), cue)
            }
        }
        return size > 0 ? Array(buffer.prefix(Int(size))) : nil
    }

    /// The time base of the encoder's frames and packets.
    package var timeBase: Rational { Rational(context.pointee.time_base) }
    /// The frame rate it was configured with.
    var frameRate: Rational { Rational(context.pointee.framerate) }
    package var width: Int32 { context.pointee.width }
    package var height: Int32 { context.pointee.height }
    package var pixelFormat: PixelFormat { PixelFormat(rawValue: context.pointee.pix_fmt.rawValue) }
    /// Samples per frame an audio encoder takes once open (0: any).
    package var frameSize: Int32 { context.pointee.frame_size }

    /// Lends the `AVCodecContext` to `body` (the muxer copies its parameters), which must not keep it.
    func withUnsafeContext<Result>(_ body: (UnsafeMutablePointer<AVCodecContext>) -> Result) -> Result {
        body(context)
    }

    /// Whether the encoder takes audio frames of any size (otherwise exactly `frame_size`).
    package var acceptsVariableFrameSize: Bool {
        codec.pointee.capabilities & AV_CODEC_CAP_VARIABLE_FRAME_SIZE != 0
    }

    /// Opens the encoder with private `options` (e.g. `crf`, `preset`).
    package func open(options: [(String, String)]) throws(ConvertError) {
        var dictionary: OpaquePointer? = nil
        // A value may be a path (x264's `stats`): its bytes, as PathEncoding keeps them.
        for (key, value) in options { PathEncoding.withCString(value) { _ = av_dict_set(&dictionary, key, $0, 0) } }
        let code = withLifecycleLock { avcodec_open2(context, codec, &dictionary) }
        av_dict_free(&dictionary)
        try FFmpeg.check(
            code, "open the \(String(cString: codec.pointee.name)) encoder", path: path, category: .internal)
        isOpen = true
    }

    /// Changes the open encoder's private option `key` to `value` for the frames sent from now
    /// on. Only options the encoder re-reads while it runs take effect: libx264 compares its
    /// `crf` with its running parameters before each frame and calls `x264_encoder_reconfig`
    /// when they differ.
    package func setOption(_ key: String, to value: Double) throws(ConvertError) {
        precondition(isOpen, "an option changed mid-encode needs an open encoder")
        let code = av_opt_set_double(context.pointee.priv_data, key, value, 0)
        try FFmpeg.check(code, "set the encoder's \(key)", path: path, category: .internal)
    }

    /// Sends one frame, or `nil` to start draining.
    package func send(_ frame: Frame?) throws(ConvertError) {
        if frame == nil { draining = true }
        // SVT-AV1 1.4 never ends a stream it was given no frame of (see deinit): nothing to drain.
        if frame == nil && isIdleSVT { return }
        let code = frame?.withUnsafePointer { avcodec_send_frame(context, $0) } ?? avcodec_send_frame(context, nil)
        // EOF here means draining already started; sending nil twice is harmless.
        if code == FFmpeg.endOfFile && frame == nil { return }
        if code < 0 { throw FFmpeg.encoderError(code, path: path) }
        if frame != nil { framesSent += 1 }
    }

    /// Receives the next encoded packet into `packet`.
    package func receive(into packet: Packet) throws(ConvertError) -> Step {
        if draining && isIdleSVT { return .endOfStream }
        let code = packet.withUnsafePointer { avcodec_receive_packet(context, $0) }
        if code == FFmpeg.again { return .needsInput }
        if code == FFmpeg.endOfFile { return .endOfStream }
        if code < 0 { throw FFmpeg.encoderError(code, path: path) }
        return .packet
    }
}
