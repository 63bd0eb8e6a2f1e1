internal import CFFmpeg
import ConvertCore

/// Owns an `AVFormatContext` for writing (`avformat_alloc_output_context2`), its I/O closed with
/// `avio_closep` and the context freed with `avformat_free_context`.
///
/// It writes to a ``StagedOutput``'s temporary path, whose `.partial` name says nothing about the
/// format, so the format is always named explicitly (`mp4`, `mov`, `matroska`, `webm`, `gif`...).
final class Muxer {
    /// The destination users see, for error messages.
    let path: String
    /// The file written (the staged temporary), for edits after the trailer.
    let temporaryPath: String
    let context: UnsafeMutablePointer<AVFormatContext>
    /// The output format's `AVFMT_*` flags.
    private let formatFlags: Int32

    /// Creates a muxer of `format` writing to `temporaryPath`; `path` names the final output.
    init(format: ContainerFormat, temporaryPath: String, path: String) throws(ConvertError) {
        self.path = path
        self.temporaryPath = temporaryPath
        var allocated: UnsafeMutablePointer<AVFormatContext>? = nil
        let code = avformat_alloc_output_context2(&allocated, nil, format.name, temporaryPath)
        guard code >= 0, let allocated else {
            throw FFmpeg.error(code, "create a \(format) file", path: path, category: .internal)
        }
        guard let outputFormat = allocated.pointee.oformat else {
            avformat_free_context(allocated)
            throw ConvertError(.internal, key: "internal.ffmpeg", message: "FFmpeg has no \(format) muxer.", path: path)
        }
        context = allocated
        formatFlags = outputFormat.pointee.flags
        if formatFlags & AVFMT_NOFILE == 0 {
            var options: OpaquePointer? = nil
            // Only the local file protocol: the faststart pass reopens the file by name.
            av_dict_set(&options, "protocol_whitelist", "file", 0)
            let opened = avio_open2(&allocated.pointee.pb, temporaryPath, AVIO_FLAG_WRITE, nil, &options)
            av_dict_free(&options)
            if opened < 0 {
                avformat_free_context(allocated)
                throw FFmpeg.error(opened, "create", path: path, category: .device)
            }
        }
    }

    deinit {
        if formatFlags & AVFMT_NOFILE == 0 {
            avio_closep(&context.pointee.pb)
        }
        avformat_free_context(context)
    }

    /// Whether encoders must put their headers in extradata (`AV_CODEC_FLAG_GLOBAL_HEADER`).
    var needsGlobalHeader: Bool { formatFlags & AVFMT_GLOBALHEADER != 0 }

    /// Whether consecutive packets of a stream may have equal DTS (`AVFMT_TS_NONSTRICT`).
    var acceptsEqualTimestamps: Bool { formatFlags & AVFMT_TS_NONSTRICT != 0 }

    /// Adds an output stream; valid only while this muxer lives.
    func addStream() throws(ConvertError) -> UnsafeMutablePointer<AVStream> {
        guard let stream = avformat_new_stream(context, nil) else {
            throw ConvertError(.internal, key: "internal.memory", message: "Out of memory adding a stream.", path: path)
        }
        return stream
    }

    /// Writes the header with muxer `options` (e.g. `movflags=+faststart`).
    func writeHeader(options: [(String, String)]) throws(ConvertError) {
        var dictionary: OpaquePointer? = nil
        for (key, value) in options { av_dict_set(&dictionary, key, value, 0) }
        let code = avformat_write_header(context, &dictionary)
        av_dict_free(&dictionary)
        try check(code, "write the header")
    }

    /// Writes `packet` (interleaved by timestamp); the muxer takes its payload.
    func write(_ packet: Packet) throws(ConvertError) {
        try check(av_interleaved_write_frame(context, packet.pointer), "write")
    }

    /// EINVAL from the muxer means the stream parameters or timestamps it was handed are
    /// impossible (a damaged input copied as it is), or, for the GIF muxer's trailer, that no
    /// frame survived them: not a bug here but an input error.
    private func check(_ code: Int32, _ action: String) throws(ConvertError) {
        if code == offc_averror(EINVAL) {
            throw ConvertError(
                .input, key: "input.corrupt",
                message: "\(path) cannot be written: the input's codec parameters or timestamps are damaged.",
                path: path, underlying: "\(action): \(FFmpeg.describe(code))")
        }
        try FFmpeg.check(code, action, path: path, category: .internal)
    }

    /// Flushes interleaving queues and writes the trailer (and, for faststart, moves the index).
    /// Then closes the file, so it can be committed.
    func finish() throws(ConvertError) {
        try check(av_write_trailer(context), "finish")
        if formatFlags & AVFMT_NOFILE == 0 {
            try FFmpeg.check(avio_closep(&context.pointee.pb), "close", path: path, category: .device)
        }
    }
}
