internal import CFFmpeg
import ConvertCore

/// Owns an `AVFormatContext` for writing (`avformat_alloc_output_context2`), its I/O closed with
/// `avio_closep` and the context freed with `avformat_free_context`.
///
/// It writes to a ``StagedOutput``'s temporary path, whose `.partial` name says nothing about the
/// format, so the format is always named explicitly (`mp4`, `mov`, `matroska`, `webm`, `gif`...).
package final class Muxer {
    /// The destination users see, for error messages.
    package let path: String
    /// The file written (the staged temporary), for edits after the trailer.
    package let temporaryPath: String
    private let context: UnsafeMutablePointer<AVFormatContext>
    /// The output format's `AVFMT_*` flags.
    private let formatFlags: Int32

    /// Creates a muxer of `format` writing to `temporaryPath`; `path` names the final output.
    package init(format: ContainerFormat, temporaryPath: String, path: String) throws(ConvertError) {
        self.path = path
        self.temporaryPath = temporaryPath
        var allocated: UnsafeMutablePointer<AVFormatContext>? = nil
        let code = PathEncoding.withCString(temporaryPath) {
            avformat_alloc_output_context2(&allocated, nil, format.name, $0)
        }
        guard code >= 0, let allocated else {
            throw FFmpeg.error(code, "create a \(format) file", path: path, category: .internal)
        }
        guard let outputFormat = allocated.pointee.oformat else {
            avformat_free_context(allocated)
            throw ConvertError(code: .internalFfmpeg, message: "FFmpeg has no \(format) muxer.", path: path)
        }
        context = allocated
        formatFlags = outputFormat.pointee.flags
        if formatFlags & AVFMT_NOFILE == 0 {
            var options: OpaquePointer? = nil
            // Only the local file protocol: the faststart pass reopens the file by name.
            av_dict_set(&options, "protocol_whitelist", "file", 0)
            let opened = PathEncoding.withCString(temporaryPath) {
                avio_open2(&allocated.pointee.pb, $0, AVIO_FLAG_WRITE, nil, &options)
            }
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
    package var needsGlobalHeader: Bool { formatFlags & AVFMT_GLOBALHEADER != 0 }

    /// Whether consecutive packets of a stream may have equal DTS (`AVFMT_TS_NONSTRICT`).
    package var acceptsEqualTimestamps: Bool { formatFlags & AVFMT_TS_NONSTRICT != 0 }

    /// One output stream, a view that keeps the muxer alive.
    package struct Stream {
        let muxer: Muxer
        /// The stream's index, the muxer's track number.
        package let index: Int

        private var pointer: UnsafeMutablePointer<AVStream> { muxer.context.pointee.streams[index]! }

        /// The stream's time base; the muxer may change it when it writes the header, so it is
        /// read each time.
        package var timeBase: Rational { Rational(pointer.pointee.time_base) }

        /// Sets the codec tag (a little-endian four-character code; 0 lets the muxer choose).
        func setCodecTag(_ tag: UInt32) { pointer.pointee.codecpar?.pointee.codec_tag = tag }

        /// Lends the `AVStream` to `body`, which must not keep it.
        fileprivate func withUnsafeStream<Result>(_ body: (UnsafeMutablePointer<AVStream>) -> Result) -> Result {
            body(pointer)
        }
    }

    private func newStream() throws(ConvertError) -> UnsafeMutablePointer<AVStream> {
        guard let stream = avformat_new_stream(context, nil) else {
            throw ConvertError(code: .internalMemory, message: "Out of memory adding a stream.", path: path)
        }
        return stream
    }

    /// Adds a stream that copies `input` as it is: its codec parameters (with `codecTag`), time
    /// base, frame rate, disposition, language and the stream side data in `sideData`.
    package func addStream(
        copying input: Demuxer.Stream, codecTag: (StreamSnapshot) -> UInt32,
        sideData: [StreamSideData.Kind]
    ) throws(ConvertError) -> Stream {
        let output = try newStream()
        try input.withUnsafeStream { (source: UnsafeMutablePointer<AVStream>) throws(ConvertError) in
            guard let parameters = source.pointee.codecpar, let target = output.pointee.codecpar else {
                throw ConvertError(code: .internalFfmpeg, message: "A stream has no codec parameters.", path: path)
            }
            try FFmpeg.check(
                avcodec_parameters_copy(target, parameters), "copy the stream settings",
                path: path, category: .internal)
            if let snapshot = input.snapshot { target.pointee.codec_tag = codecTag(snapshot) }
            output.pointee.time_base = source.pointee.time_base
            output.pointee.avg_frame_rate = source.pointee.avg_frame_rate
            output.pointee.disposition = source.pointee.disposition
            Self.copyLanguage(from: source, to: output)
            StreamSideData.copy(from: source, to: output, kinds: sideData)
        }
        return Stream(muxer: self, index: Int(output.pointee.index))
    }

    /// Adds a stream for what `encoder` writes (its parameters, time base and frame rate), with
    /// `codecTag` when not 0, the language of `input`, its disposition (default, forced, for the
    /// hearing impaired: a player's choice of track stays the same after a re-encode; not
    /// "attached picture", which says how the packets were stored) and its stream side data in
    /// `sideData`.
    package func addStream(
        encoder: CodecEncoder, codecTag: UInt32 = 0, input: Demuxer.Stream, keepsLanguage: Bool = true,
        sideData: [StreamSideData.Kind]
    ) throws(ConvertError) -> Stream {
        let output = try newStream()
        let code = encoder.withUnsafeContext { avcodec_parameters_from_context(output.pointee.codecpar, $0) }
        try FFmpeg.check(code, "set up the output stream", path: path, category: .internal)
        if codecTag != 0 { output.pointee.codecpar?.pointee.codec_tag = codecTag }
        output.pointee.time_base = encoder.timeBase.av
        if encoder.frameRate.isPositive { output.pointee.avg_frame_rate = encoder.frameRate.av }
        input.withUnsafeStream { source in
            output.pointee.disposition = source.pointee.disposition & ~AV_DISPOSITION_ATTACHED_PIC
            if keepsLanguage { Self.copyLanguage(from: source, to: output) }
            StreamSideData.copy(from: source, to: output, kinds: sideData)
        }
        return Stream(muxer: self, index: Int(output.pointee.index))
    }

    /// Adds `picture` (an attached picture: cover art) as a file attachment, as Matroska keeps
    /// covers: FFmpeg 5.1's Matroska muxer writes an attached-picture stream as a one-frame video
    /// track, and only an attachment stream (its bytes in the extradata, named and typed by its
    /// `filename` and `mimetype` tags) as an attachment, which players and FFmpeg read back as
    /// the cover. Nothing more is written to it; its packets are not wanted.
    package func addAttachment(picture: Demuxer.Stream, fileName: String, mimeType: String) throws(ConvertError) {
        let bytes = picture.withUnsafeStream { source in
            let packet = source.pointee.attached_pic
            return packet.data.map { Array(UnsafeBufferPointer(start: $0, count: Int(packet.size))) } ?? []
        }
        guard !bytes.isEmpty else {
            throw ConvertError(code: .internalFfmpeg, message: "The cover art has no picture.", path: path)
        }
        let output = try newStream()
        guard let parameters = output.pointee.codecpar,
            let memory = av_mallocz(bytes.count + Int(AV_INPUT_BUFFER_PADDING_SIZE))
        else {
            throw ConvertError(code: .internalMemory, message: "Out of memory adding the cover art.", path: path)
        }
        memory.copyMemory(from: bytes, byteCount: bytes.count)
        // avformat_free_context frees the extradata with the stream's parameters.
        parameters.pointee.extradata = memory.bindMemory(to: UInt8.self, capacity: bytes.count)
        parameters.pointee.extradata_size = Int32(bytes.count)
        parameters.pointee.codec_type = AVMEDIA_TYPE_ATTACHMENT
        parameters.pointee.codec_id = picture.codec.avValue
        av_dict_set(&output.pointee.metadata, "filename", fileName, 0)
        av_dict_set(&output.pointee.metadata, "mimetype", mimeType, 0)
    }

    /// Sets the container tags `tags` (after ``copyMetadata(from:keepLocation:keepIdentifiers:)``,
    /// whose tags of the same names they replace).
    package func setTags(_ tags: [(key: String, value: String)]) {
        for tag in tags { av_dict_set(&context.pointee.metadata, tag.key, tag.value, 0) }
    }

    private static func copyLanguage(
        from input: UnsafeMutablePointer<AVStream>, to output: UnsafeMutablePointer<AVStream>
    ) {
        if let language = av_dict_get(input.pointee.metadata, "language", nil, 0) {
            av_dict_set(&output.pointee.metadata, "language", language.pointee.value, 0)
        }
    }

    /// Lets the muxer write boxes FFmpeg calls unofficial: movenc writes the Dolby Vision
    /// `dvcC`/`dvvC` box only at that compliance level.
    package func allowUnofficialBoxes() {
        context.pointee.strict_std_compliance = FF_COMPLIANCE_UNOFFICIAL
    }

    /// Sets the container tags from `demuxer`'s (see ``Metadata/copy(_:into:keepLocation:keepIdentifiers:)``);
    /// returns how many location tags were left out.
    package func copyMetadata(from demuxer: Demuxer, keepLocation: Bool, keepIdentifiers: Bool) -> Int {
        Metadata.copy(
            demuxer.metadata, into: &context.pointee.metadata, keepLocation: keepLocation,
            keepIdentifiers: keepIdentifiers)
    }

    /// Adds `chapters` (before ``writeHeader(options:)``: MP4 and MOV write them as a chapter
    /// track and `chpl`, which the muxer sets up when the header is written). Timed in
    /// milliseconds, as ffmpeg's CLI writes them.
    package func addChapters(_ chapters: [Chapter]) throws(ConvertError) {
        for (index, chapter) in chapters.enumerated() {
            guard let memory = av_mallocz(MemoryLayout<AVChapter>.size) else {
                throw FFmpeg.error(offc_averror(ENOMEM), "add the chapters", path: path, category: .internal)
            }
            let entry = memory.bindMemory(to: AVChapter.self, capacity: 1)
            entry.pointee.id = Int64(index)
            entry.pointee.time_base = AVRational(num: 1, den: 1000)
            entry.pointee.start = Int64((chapter.start * 1000).rounded())
            entry.pointee.end = Int64((chapter.end * 1000).rounded())
            for tag in chapter.tags { av_dict_set(&entry.pointee.metadata, tag.key, tag.value, 0) }
            // avformat_free_context frees each chapter, its tags and the array.
            let added = withUnsafeMutablePointer(to: &context.pointee.chapters) { list in
                withUnsafeMutablePointer(to: &context.pointee.nb_chapters) { count in
                    count.withMemoryRebound(to: Int32.self, capacity: 1) { count in
                        av_dynarray_add_nofree(list, count, entry)
                    }
                }
            }
            guard added >= 0 else {
                av_dict_free(&entry.pointee.metadata)
                av_free(entry)
                throw FFmpeg.error(offc_averror(ENOMEM), "add the chapters", path: path, category: .internal)
            }
        }
    }

    /// Writes the header with muxer `options` (e.g. `movflags=+faststart`).
    package func writeHeader(options: [(String, String)]) throws(ConvertError) {
        var dictionary: OpaquePointer? = nil
        for (key, value) in options { av_dict_set(&dictionary, key, value, 0) }
        let code = avformat_write_header(context, &dictionary)
        av_dict_free(&dictionary)
        try check(code, "write the header")
    }

    /// Writes `packet` (interleaved by timestamp); the muxer takes its payload.
    package func write(_ packet: Packet) throws(ConvertError) {
        try check(packet.withUnsafePointer { av_interleaved_write_frame(context, $0) }, "write")
    }

    /// EINVAL from the muxer means the stream parameters or timestamps it was handed are
    /// impossible (a damaged input copied as it is), or, for the GIF muxer's trailer, that no
    /// frame survived them: not a bug here but an input error. So is INVALIDDATA, and so is
    /// PATCHWELCOME: the muxer's bitstream filter (AAC's ADTS to MP4's configuration) meeting a
    /// copied packet that uses what FFmpeg 5.1 does not implement (found by the mutation suite).
    private func check(_ code: Int32, _ action: String) throws(ConvertError) {
        if code == offc_averror(EINVAL) || code == offc_averror_invaliddata() {
            throw ConvertError(
                code: .inputCorrupt,
                message: "\(path) cannot be written: the input's codec parameters or timestamps are damaged.",
                path: path, underlying: "\(action): \(FFmpeg.describe(code))")
        }
        if code == offc_averror_patchwelcome() {
            throw ConvertError(
                code: .unsupportedFfmpeg,
                message:
                    "\(path) cannot be written: a stream copied from the input uses a feature FFmpeg cannot write.",
                path: path, underlying: "\(action): \(FFmpeg.describe(code))")
        }
        try FFmpeg.check(code, action, path: path, category: .internal)
    }

    /// Flushes interleaving queues and writes the trailer (and, for faststart, moves the index).
    /// Then closes the file, so it can be committed.
    package func finish() throws(ConvertError) {
        try check(av_write_trailer(context), "finish")
        if formatFlags & AVFMT_NOFILE == 0 {
            try FFmpeg.check(avio_closep(&context.pointee.pb), "close", path: path, category: .device)
        }
    }
}
