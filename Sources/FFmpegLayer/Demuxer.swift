internal import CFFmpeg
import ConvertCore

/// Owns an `AVFormatContext` opened for reading (`avformat_open_input`), freed with
/// `avformat_close_input`.
///
/// Only local files can be opened: the protocol whitelist is `file` (and `pipe`), so a crafted
/// playlist, a `concat:` URL or a file named `http://…` can never make FFmpeg reach the network.
/// And only the file itself: demuxers that open other files named inside the input (HLS and DASH
/// playlists, ffconcat lists, image sequences) are left out of the format whitelist, so a
/// playlist named `.mp4` cannot make FFmpeg read anything else on the disk.
/// The interrupt callback checks the job's ``CancellationFlag``, so a blocked read returns promptly
/// when the job is cancelled.
package final class Demuxer {
    /// The file this demuxer reads.
    package let path: String
    private let context: UnsafeMutablePointer<AVFormatContext>
    private let cancellation: Unmanaged<CancellationFlag>

    /// Demuxers that open other files or URLs named inside their input.
    static let referencingDemuxers: Set<String> = [
        "hls", "applehttp", "dash", "concat", "image2", "webm_dash_manifest",
    ]

    /// Every demuxer of this FFmpeg build except ``referencingDemuxers``, as FFmpeg's
    /// `format_whitelist` option wants them (comma-separated names).
    static let formatWhitelist: String = {
        var names: [String] = []
        var state: UnsafeMutableRawPointer? = nil
        while let format = av_demuxer_iterate(&state) {
            let name = String(cString: format.pointee.name)
            // Aliases share one entry ("mov,mp4,m4a,3gp,3g2,mj2"); FFmpeg matches any of them.
            if name.split(separator: ",").contains(where: { referencingDemuxers.contains(String($0)) }) { continue }
            names.append(name)
        }
        return names.joined(separator: ",")
    }()

    /// Opens `path` and reads its stream information. Reading it decodes a few frames of each
    /// stream; `maxPixels` stops those decoders from allocating frames larger than that, so a
    /// stream whose headers claim a huge picture costs nothing before the plan refuses it.
    ///
    /// A raw elementary stream is timed by `rawFrameRate` (frames per second) when given, else
    /// by its own timing information (H.264/HEVC VUI), else at ``assumedFrameRate``
    /// (``rawTiming`` says which).
    package init(
        path: String, cancellation flag: CancellationFlag = CancellationFlag(),
        maxPixels: Int = PixelLimit.defaultMaxPixels, rawFrameRate: Double? = nil
    ) throws(ConvertError) {
        self.path = path
        // Checked before FFmpeg sees the path: it would call an empty file or a folder damaged
        // or unrecognised (the probe and the photo reader say input.empty, input.not-a-file),
        // and wait forever on a FIFO.
        if let problem = ConvertError.inputProblem(path) { throw problem }
        // FFmpeg's ico, psd, pcx, j2k and pnm readers open such a still picture as a one-frame
        // video (a 48x48 MP4 "at 90000 fps" from an icon); every video job opens its input here,
        // so the picture is refused here, with the name of its format (a photo engine's one or
        // one offconvert does not read).
        if let head = RawFile.head(of: path, count: 64) {
            switch MediaSniffer.kind(of: head, path: path) {
            case .foreignImage(let format): throw ConvertError.foreignImage(format, path: path)
            case .image(let format) where format.isStillOnly:
                throw ConvertError(
                    code: .unsupportedImageFormat, message: "\(path) is a \(format.name), a photo: not a video.",
                    path: path)
            default: break
            }
        }
        guard let allocated = avformat_alloc_context() else {
            throw ConvertError(code: .internalMemory, message: "Out of memory opening \(path).", path: path)
        }
        let retained = Unmanaged.passRetained(flag)
        allocated.pointee.interrupt_callback = AVIOInterruptCB(
            callback: { opaque in
                guard let opaque else { return 0 }
                return Unmanaged<CancellationFlag>.fromOpaque(opaque).takeUnretainedValue().isCancelled ? 1 : 0
            },
            opaque: retained.toOpaque())
        var options: OpaquePointer? = nil
        av_dict_set(&options, "protocol_whitelist", "file,pipe", 0)
        av_dict_set(&options, "format_whitelist", Demuxer.formatWhitelist, 0)
        // Sources with several hundred tracks or absurd sizes are not worth analysing for minutes.
        av_dict_set(&options, "max_streams", "64", 0)
        // The raw readers' own default rate (25) cannot be told from a stream that says 25; a
        // rate no stream says can. Other readers leave the option unused.
        av_dict_set(&options, "framerate", Demuxer.unsaidRate, 0)
        var contextPointer: UnsafeMutablePointer<AVFormatContext>? = allocated
        let opened = PathEncoding.withCString(path) { avformat_open_input(&contextPointer, $0, nil, &options) }
        av_dict_free(&options)
        guard opened >= 0, let contextPointer else {
            // avformat_open_input frees the context on failure.
            retained.release()
            if opened == offc_averror(ENOENT) {
                throw ConvertError(code: .inputMissing, message: "\(path) does not exist.", path: path)
            }
            if opened == offc_averror(EACCES) {
                throw ConvertError(
                    code: .inputDenied, message: "\(path) cannot be read (permission denied).", path: path)
            }
            if opened == offc_averror_invaliddata() {
                // The same code the probe gives: a cut MP4 is incomplete, not unrecognised.
                if MovieEnding.lacksMovie(path: path) {
                    throw ConvertError(
                        code: .inputTruncated, message: "\(path) is incomplete: the file ends before its movie data.",
                        path: path, underlying: FFmpeg.describe(opened))
                }
                throw ConvertError(
                    code: .inputUnrecognised,
                    message: "\(path) is not a media file offconvert recognises.", path: path,
                    underlying: FFmpeg.describe(opened))
            }
            throw FFmpeg.error(opened, "open", path: path)
        }
        context = contextPointer
        cancellation = retained
        Demuxer.nameDolbyVisionAV1(contextPointer)
        // One options dictionary per stream, as avformat_find_stream_info expects; it frees nothing
        // of ours, so each is freed here.
        let streamCount = Int(contextPointer.pointee.nb_streams)
        var streamOptions = [OpaquePointer?](repeating: nil, count: streamCount)
        for index in 0..<streamCount { av_dict_set(&streamOptions[index], "max_pixels", String(maxPixels), 0) }
        let found = streamOptions.withUnsafeMutableBufferPointer { buffer in
            avformat_find_stream_info(contextPointer, buffer.baseAddress)
        }
        for index in 0..<streamCount { av_dict_free(&streamOptions[index]) }
        // Every stored property is set by now, so throwing runs deinit, which closes the context
        // and releases the flag; freeing them here as well would free them twice.
        try FFmpeg.check(found, "read the stream information", path: path)
        rawTiming = timeRawStreams(rate: rawFrameRate)
    }

    /// How a raw elementary stream's frames are timed; nil for every other file.
    package enum RawTiming: Equatable {
        /// By the rate the user gave.
        case given
        /// By the stream's own timing information.
        case stream
        /// At ``Demuxer/assumedFrameRate``: nothing says the rate.
        case assumed
    }

    /// How this file's frames are timed, when it is a raw elementary stream.
    package private(set) var rawTiming: RawTiming?

    /// The rate a raw stream that does not say its own is played at.
    static let assumedFrameRate = 30
    /// The raw readers' `framerate` while reading the stream information: 19/7 fps, which no
    /// stream's timing information says, so a stream still at it said nothing.
    private static let unsaidRate = "19/7"

    /// FFmpeg's raw video bitstream readers: their packets carry no timestamps.
    static let elementaryStreamFormats: Set<String> = [
        "h264", "hevc", "m4v", "mpegvideo", "obu", "vc1", "cavsvideo", "h261", "h263",
    ]

    /// Whether the file is a raw elementary stream (`AVFMT_NOTIMESTAMPS`, or a raw video reader).
    package var isElementaryStream: Bool {
        guard let format = context.pointee.iformat?.pointee else { return false }
        return format.flags & AVFMT_NOTIMESTAMPS != 0
            || Self.elementaryStreamFormats.contains(String(cString: format.name))
    }

    /// Sets the frame rate of a raw stream's video (`rate`, else its own, else 30 fps) where the
    /// pump and the encoder read it (`r_frame_rate`, `avg_frame_rate`).
    private func timeRawStreams(rate: Double?) -> RawTiming? {
        guard isElementaryStream else { return nil }
        var timing = RawTiming.stream
        for index in 0..<Int(context.pointee.nb_streams) {
            guard let stream = context.pointee.streams[index],
                stream.pointee.codecpar?.pointee.codec_type == AVMEDIA_TYPE_VIDEO
            else { continue }
            let own = stream.pointee.r_frame_rate
            let unsaid = own.num <= 0 || own.den <= 0 || av_cmp_q(own, av_make_q(19, 7)) == 0
            let chosen: AVRational
            if let rate {
                chosen = av_d2q(rate, 100_000)
                timing = .given
            } else if unsaid {
                chosen = AVRational(num: Int32(Self.assumedFrameRate), den: 1)
                timing = .assumed
            } else {
                continue
            }
            stream.pointee.r_frame_rate = chosen
            stream.pointee.avg_frame_rate = chosen
        }
        return timing
    }

    /// FFmpeg 5.1's MP4 reader does not know the `dav1` sample entry (Dolby Vision profile 10 over
    /// AV1; later FFmpeg reads it as AV1): its stream would have no codec, so it could neither be
    /// copied nor decoded. The payload is plain AV1 with its `av1C` record, so it is named AV1
    /// before the stream information is read.
    private static func nameDolbyVisionAV1(_ context: UnsafeMutablePointer<AVFormatContext>) {
        let dav1 = UInt32(0x64) | UInt32(0x61) << 8 | UInt32(0x76) << 16 | UInt32(0x31) << 24
        for index in 0..<Int(context.pointee.nb_streams) {
            guard let parameters = context.pointee.streams[index]?.pointee.codecpar,
                parameters.pointee.codec_id == AV_CODEC_ID_NONE, parameters.pointee.codec_tag == dav1
            else { continue }
            parameters.pointee.codec_id = AV_CODEC_ID_AV1
        }
    }

    deinit {
        var owned: UnsafeMutablePointer<AVFormatContext>? = context
        avformat_close_input(&owned)
        cancellation.release()
    }

    /// Number of streams in the file.
    package var streamCount: Int { Int(context.pointee.nb_streams) }

    /// The stream at `index`, a view that keeps this demuxer alive.
    package func stream(_ index: Int) -> Stream {
        precondition(index >= 0 && index < streamCount, "stream index out of range")
        return Stream(demuxer: self, index: index)
    }

    /// FFmpeg's name of the reader (`mov,mp4,m4a,3gp,3g2,mj2`, `matroska,webm`), empty when none.
    package var formatName: String { context.pointee.iformat.map { String(cString: $0.pointee.name) } ?? "" }

    /// FFmpeg's readable name of the reader (`QuickTime / MOV`), nil when none.
    package var formatLongName: String? { context.pointee.iformat?.pointee.long_name.map { String(cString: $0) } }

    /// The container's overall bit rate, nil when unknown.
    package var bitRate: Int? { context.pointee.bit_rate > 0 ? Int(context.pointee.bit_rate) : nil }

    /// The container's metadata tags, in file order.
    package var metadata: [(key: String, value: String)] { Metadata.entries(context.pointee.metadata) }

    /// The container's chapters, in order, timed from its start (as the pump times packets, so
    /// that they stay with the frames they mark).
    package var chapters: [Chapter] {
        let origin = Double(startTime) / Double(AV_TIME_BASE)
        return storedChapters.map { Chapter(start: $0.start - origin, end: $0.end - origin, tags: $0.tags) }
    }

    /// The container's chapters, in order, timed as the file states them (as ffprobe shows
    /// them): an MKV whose Opus sound starts at −0.007 s still has its first chapter at 0.
    package var storedChapters: [Chapter] {
        guard let list = context.pointee.chapters else { return [] }
        return (0..<Int(context.pointee.nb_chapters)).compactMap { index in
            guard let chapter = list[index]?.pointee, chapter.time_base.den > 0 else { return nil }
            let unit = Double(chapter.time_base.num) / Double(chapter.time_base.den)
            return Chapter(
                start: Double(chapter.start) * unit, end: Double(chapter.end) * unit,
                tags: Metadata.entries(chapter.metadata).map { Chapter.Tag(key: $0.key, value: $0.value) })
        }
    }

    /// Moves reading to the keyframe at or before `seconds` from the container's start, or back
    /// to the beginning when the file cannot seek there.
    package func seek(to seconds: Double) {
        let target = startTime + Int64(seconds * Double(AV_TIME_BASE))
        if avformat_seek_file(context, -1, Int64.min, target, target, 0) < 0 {
            avformat_seek_file(context, -1, Int64.min, 0, 0, 0)
        }
    }

    /// One stream of the file: its index, its timing and, for what the pipeline plans with, a
    /// ``StreamSnapshot``. A view, not an owner: it holds the demuxer, so it never outlives it.
    package struct Stream {
        let demuxer: Demuxer
        /// Index in the input file.
        package let index: Int

        private var pointer: UnsafeMutablePointer<AVStream> { demuxer.context.pointee.streams[index]! }

        /// Lends the `AVStream` to `body`, which must not keep it: only the other owner types in
        /// this folder (decoder, muxer, side-data readers) take it; everything above reads a
        /// ``StreamSnapshot``.
        func withUnsafeStream<Result, Failure: Error>(
            _ body: (UnsafeMutablePointer<AVStream>) throws(Failure) -> Result
        ) throws(Failure) -> Result {
            try body(pointer)
        }

        /// The snapshot of the stream's parameters; nil for a stream without any.
        package var snapshot: StreamSnapshot? { StreamSnapshot(pointer) }

        /// Seconds per tick of the stream's timestamps.
        package var timeBase: Rational { Rational(pointer.pointee.time_base) }
        /// The stream's average frame rate, 0/0 when unknown.
        package var averageFrameRate: Rational { Rational(pointer.pointee.avg_frame_rate) }
        /// The stream's base frame rate (`r_frame_rate`), the one a raw stream is timed by.
        package var baseFrameRate: Rational { Rational(pointer.pointee.r_frame_rate) }
        /// FFmpeg's best guess of the frame rate (`av_guess_frame_rate`), 0/1 when none.
        package var guessedFrameRate: Rational { Rational(av_guess_frame_rate(demuxer.context, pointer, nil)) }
        /// The stream's first timestamp, ``Packet/noTimestamp`` when unknown.
        package var startTime: Int64 { pointer.pointee.start_time }
        /// The stream's duration in ticks, ``Packet/noTimestamp`` when unknown.
        package var duration: Int64 { pointer.pointee.duration }
        /// The container's track ID (`tkhd` in MP4/MOV).
        package var trackID: Int { Int(pointer.pointee.id) }
        /// The bit rate the stream's parameters declare, 0 when they say none.
        package var bitRate: Int64 { pointer.pointee.codecpar?.pointee.bit_rate ?? 0 }
        /// Whether the stream carries video.
        package var isVideo: Bool { pointer.pointee.codecpar?.pointee.codec_type == AVMEDIA_TYPE_VIDEO }
        /// Whether the stream is cover art (an attached picture), never the movie.
        package var isAttachedPicture: Bool { pointer.pointee.disposition & AV_DISPOSITION_ATTACHED_PIC != 0 }
        /// The stream's metadata tags, in order.
        package var metadata: [(key: String, value: String)] { Metadata.entries(pointer.pointee.metadata) }
        /// The codec.
        package var codec: CodecID { CodecID(rawValue: pointer.pointee.codecpar?.pointee.codec_id.rawValue ?? 0) }
        /// The codec's out-of-band set-up bytes (an `avcC`/`hvcC` record), empty when none.
        package var extradata: [UInt8] {
            guard let parameters = pointer.pointee.codecpar, let bytes = parameters.pointee.extradata,
                parameters.pointee.extradata_size > 0
            else { return [] }
            return Array(UnsafeBufferPointer(start: bytes, count: Int(parameters.pointee.extradata_size)))
        }
        /// Whether the stream has a Dolby Vision configuration record.
        package var hasDolbyVisionConfiguration: Bool {
            av_stream_get_side_data(pointer, AV_PKT_DATA_DOVI_CONF, nil) != nil
        }

        /// Where the stream's data in the first `fileSize` bytes ends (seconds after the stream's
        /// start): the time of the first sample of its index (MP4/MOV sample tables, in time
        /// order) whose bytes are not all in the file, which is when the last whole one ends. Nil
        /// when every sample is there or the stream has no index.
        package func dataEnd(fileSize: Int64) -> Double? {
            let base = timeBase.doubleValue
            guard base > 0 else { return nil }
            for entry in 0..<avformat_index_get_entries_count(pointer) {
                guard let item = avformat_index_get_entry(pointer, entry) else { continue }
                if item.pointee.pos < 0 || item.pointee.pos + Int64(item.pointee.size) > fileSize {
                    let start = startTime == Packet.noTimestamp ? 0 : startTime
                    return Double(max(0, item.pointee.timestamp - start)) * base
                }
            }
            return nil
        }

        /// Where each of the stream's samples lies in the file (byte offset, size), in the
        /// demuxer's index order: an MP4/MOV's sample tables, all known once the file is open,
        /// so no packet is read. Empty for a stream without an index; entries with a negative
        /// position or size are left out.
        package var indexedSamples: [(offset: Int64, size: Int)] {
            var samples: [(offset: Int64, size: Int)] = []
            for entry in 0..<avformat_index_get_entries_count(pointer) {
                guard let item = avformat_index_get_entry(pointer, entry), item.pointee.pos >= 0,
                    item.pointee.size >= 0
                else { continue }
                samples.append((item.pointee.pos, Int(item.pointee.size)))
            }
            return samples
        }

        /// Makes the demuxer drop this stream's packets before they are read out (`AVDISCARD_ALL`).
        package func discard() { pointer.pointee.discard = AVDISCARD_ALL }
    }

    /// The result of one read.
    package enum ReadStep { case packet, endOfFile }

    /// Reads the next packet into `packet`. End of file is a value, not an error.
    package func read(into packet: Packet) throws(ConvertError) -> ReadStep {
        let code = packet.withUnsafePointer { av_read_frame(context, $0) }
        if code == FFmpeg.endOfFile { return .endOfFile }
        try FFmpeg.check(code, "read a packet", path: path)
        return .packet
    }

    /// The container's start time (`AV_TIME_BASE` units), 0 when unknown; the pump subtracts it
    /// from every timestamp.
    package var startTime: Int64 {
        context.pointee.start_time == FFmpeg.noTimestamp ? 0 : context.pointee.start_time
    }

    /// Whether FFmpeg's MOV/MP4/HEIF demuxer reads the file (edit lists honoured, stream
    /// durations those of the edits).
    package var isISOBMFF: Bool {
        guard let name = context.pointee.iformat?.pointee.name else { return false }
        return String(cString: name).split(separator: ",").contains("mov")
    }

    /// Container duration in seconds, when known.
    package var duration: Double? {
        let value = context.pointee.duration
        guard value != FFmpeg.noTimestamp, value > 0 else { return nil }
        return Double(value) / Double(AV_TIME_BASE)
    }
}
