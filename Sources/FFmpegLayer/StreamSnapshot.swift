internal import CFFmpeg
import ConvertCore

/// A `Sendable` copy of what the pipeline needs to know about one demuxed stream, taken while the
/// demuxer is open so nothing points into FFmpeg's memory afterwards.
package struct StreamSnapshot: Sendable, Equatable {
    /// The kind of a stream; an open set so an unknown FFmpeg media type never crashes.
    package enum Kind: Sendable, Equatable {
        case video, audio, subtitle, data, attachment
        case other(Int32)

        fileprivate init(_ type: AVMediaType) {
            switch type {
            case AVMEDIA_TYPE_VIDEO: self = .video
            case AVMEDIA_TYPE_AUDIO: self = .audio
            case AVMEDIA_TYPE_SUBTITLE: self = .subtitle
            case AVMEDIA_TYPE_DATA: self = .data
            case AVMEDIA_TYPE_ATTACHMENT: self = .attachment
            default: self = .other(type.rawValue)
            }
        }
    }

    /// Index in the input file.
    package var index: Int
    /// The container's track ID (`tkhd` in MP4/MOV; FFmpeg's `AVStream.id`), 0 when none.
    package var trackID: Int
    package var kind: Kind
    /// The codec; ``CodecID/none`` for tracks FFmpeg cannot name (mebx, mett).
    package var codec: CodecID
    /// The container's four-character code (`hvc1`, `mebx`), empty when none.
    package var codecTag: String
    /// Codec profile (FFmpeg's number), or a negative value when unknown.
    package var profile: Int32
    /// FFmpeg's name for the profile (`Main 10`), when it has one.
    package var profileName: String?
    /// The bit rate the stream's parameters declare, when they declare one.
    package var bitRate: Int?
    package var width: Int32
    package var height: Int32
    /// The pixel format of a video stream, ``PixelFormat/none`` when unknown (and for other kinds).
    package var pixelFormat: PixelFormat
    /// The colour the stream's parameters give (FFmpeg's `color_primaries`, `color_trc`,
    /// `colorspace`, `color_range`); never an ICC profile, which only the container's boxes carry.
    package var color: ColorDescription
    /// Rotation from the display matrix in degrees, counter-clockwise, as FFmpeg reports it (−90 for
    /// a portrait iPhone clip), 0 when none.
    package var rotation: Double
    /// Whether the display matrix mirrors the picture (a negative determinant).
    package var mirrored = false
    /// The frames per second the container states (the average rate, else the base rate).
    package var frameRate: Double?
    /// Whether the stream's frames are interlaced (two fields, top or bottom first), as its
    /// decoder or parser found them (`field_order`): a camcorder's 1080i50.
    package var isInterlaced = false
    /// For an interlaced stream, whether the top field is shown first (`tt`, or `bt`: bottom coded
    /// first, top shown first); the bottom otherwise.
    package var topFieldFirst = false
    /// The Dolby Vision configuration record FFmpeg read (`dvcC`/`dvvC`), when it read one.
    package var dolbyVision: DolbyVisionConfiguration?
    /// Dolby Vision profile and base-layer compatibility: FFmpeg's record, or the probe's own box
    /// reader's where FFmpeg has none (``MediaSnapshot``).
    package var doviProfile: Int32?
    package var doviCompatibility: Int32?
    package var sampleRate: Int32
    package var channels: Int32
    /// FFmpeg's description of the channel layout (`stereo`, `5.1(side)`), when it has channels.
    package var channelLayout: String?
    /// The audio sample format, ``SampleFormat/none`` for other kinds.
    package var sampleFormat = SampleFormat.none
    /// Seconds per tick of the stream's timestamps.
    var timeBase: Double
    /// Stream duration in seconds, when known.
    package var duration: Double?
    /// Whether this FFmpeg build has a decoder for the stream.
    package var decodable: Bool
    /// Whether the stream is cover art (an attached picture), never the movie.
    package var isAttachedPicture = false
    /// Whether this is a QuickTime chapter track, which FFmpeg reads as the container's
    /// chapters (and then discards): kept as chapters, not as a track.
    package var isChapterTrack = false
    /// Packets the container's edit list hides (decoded for reference, never shown or heard):
    /// the frames before a trimmed clip's start, an AAC encoder's priming. Only MP4/MOV can say
    /// so in a copy; any other container would show them.
    package var hiddenPackets = 0
    /// A spatial (3D, MV-HEVC) video: FFmpeg 5.1 decodes and copies only its first (left) view.
    package var isStereo = false
    /// The stream's `language` tag (ISO 639-2), when it has one other than `und`.
    package var language: String?

    /// The transfer function the stream's parameters give (an H.273 code).
    package var transfer: TransferCharacteristics { color.transfer }

    /// Whether this is AAC audio.
    package var isAAC: Bool { kind == .audio && codec == .aac }

    /// FFmpeg's short codec name (`h264`, `aac`), or `none` for tracks it cannot name.
    package var codecName: String { codec.name }

    /// Takes the snapshot of `stream`; nil for a stream without codec parameters (which FFmpeg
    /// never makes, but a nil is not worth a crash).
    init?(_ stream: UnsafeMutablePointer<AVStream>) {
        guard let parameters = stream.pointee.codecpar?.pointee else { return nil }
        index = Int(stream.pointee.index)
        trackID = Int(stream.pointee.id)
        kind = Kind(parameters.codec_type)
        codec = CodecID(rawValue: parameters.codec_id.rawValue)
        codecTag = StreamSnapshot.fourCC(parameters.codec_tag)
        profile = parameters.profile
        profileName = avcodec_profile_name(parameters.codec_id, parameters.profile).map { String(cString: $0) }
        bitRate = parameters.bit_rate > 0 ? Int(parameters.bit_rate) : nil
        width = parameters.width
        height = parameters.height
        pixelFormat = kind == .video ? PixelFormat(rawValue: parameters.format) : .none
        color = StreamSnapshot.color(parameters)
        rotation = 0
        sampleRate = parameters.sample_rate
        channels = parameters.ch_layout.nb_channels
        let base = stream.pointee.time_base
        timeBase = base.den != 0 ? Double(base.num) / Double(base.den) : 0
        let ticks = stream.pointee.duration
        duration = ticks != FFmpeg.noTimestamp && ticks > 0 && timeBase > 0 ? Double(ticks) * timeBase : nil
        decodable = codec.hasDecoder
        isChapterTrack = kind == .data && stream.pointee.discard == AVDISCARD_ALL
        hiddenPackets = StreamSnapshot.hiddenPackets(stream)
        language = Metadata.value(stream.pointee.metadata, "language").flatMap(StreamSnapshot.knownLanguage)
        readDisplayMatrix(stream)
        readDolbyVision(stream)
        if kind == .video {
            frameRate = StreamSnapshot.frameRate(stream)
            isInterlaced = [AV_FIELD_TT, AV_FIELD_BB, AV_FIELD_TB, AV_FIELD_BT].contains(parameters.field_order)
            topFieldFirst = [AV_FIELD_TT, AV_FIELD_BT].contains(parameters.field_order)
        }
        if kind == .audio { readAudioLayout(parameters) }
    }

    /// Rotation and mirroring from the stream's display matrix.
    private mutating func readDisplayMatrix(_ stream: UnsafeMutablePointer<AVStream>) {
        var size = 0
        guard let data = av_stream_get_side_data(stream, AV_PKT_DATA_DISPLAYMATRIX, &size), size >= 36 else { return }
        data.withMemoryRebound(to: Int32.self, capacity: 9) { values in
            let angle = av_display_rotation_get(values)
            rotation = angle.isFinite ? angle : 0
            mirrored = Int64(values[0]) * Int64(values[4]) - Int64(values[1]) * Int64(values[3]) < 0
        }
    }

    /// The Dolby Vision configuration record FFmpeg read, if any.
    private mutating func readDolbyVision(_ stream: UnsafeMutablePointer<AVStream>) {
        var size = 0
        guard let raw = av_stream_get_side_data(stream, AV_PKT_DATA_DOVI_CONF, &size),
            size >= MemoryLayout<AVDOVIDecoderConfigurationRecord>.size
        else { return }
        let record = UnsafeRawPointer(raw).loadUnaligned(as: AVDOVIDecoderConfigurationRecord.self)
        dolbyVision = DolbyVisionConfiguration(
            versionMajor: Int(record.dv_version_major), versionMinor: Int(record.dv_version_minor),
            profile: Int(record.dv_profile), level: Int(record.dv_level), rpuPresent: record.rpu_present_flag != 0,
            enhancementLayerPresent: record.el_present_flag != 0, baseLayerPresent: record.bl_present_flag != 0,
            baseLayerCompatibilityID: Int(record.dv_bl_signal_compatibility_id))
        doviProfile = Int32(record.dv_profile)
        doviCompatibility = Int32(record.dv_bl_signal_compatibility_id)
    }

    /// The channel layout's description and the sample format of an audio stream.
    private mutating func readAudioLayout(_ parameters: AVCodecParameters) {
        var layout = parameters.ch_layout
        if layout.nb_channels > 0 {
            var buffer = [CChar](repeating: 0, count: 128)
            if av_channel_layout_describe(&layout, &buffer, buffer.count) > 0 {
                channelLayout = String(nulTerminated: buffer)
            }
        }
        sampleFormat = SampleFormat(rawValue: parameters.format)
    }

    private static func color(_ parameters: AVCodecParameters) -> ColorDescription {
        let range: ColorRange =
            switch parameters.color_range {
            case AVCOL_RANGE_JPEG: .full
            case AVCOL_RANGE_MPEG: .limited
            default: .unspecified
            }
        return ColorDescription(
            primaries: ColorPrimaries(code: Int(parameters.color_primaries.rawValue)),
            transfer: TransferCharacteristics(code: Int(parameters.color_trc.rawValue)),
            matrix: MatrixCoefficients(code: Int(parameters.color_space.rawValue)), range: range)
    }

    /// A language tag that names a language: ISO 639-2 ("eng") or a BCP 47 tag ("en-US"), not
    /// "und" (undetermined) nor the "???" or spaces some writers leave.
    static func knownLanguage(_ tag: String) -> String? {
        let parts = tag.split(separator: "-", omittingEmptySubsequences: false)
        guard tag != "und", let first = parts.first, (2...3).contains(first.count),
            first.unicodeScalars.allSatisfy({ ("a"..."z").contains($0) || ("A"..."Z").contains($0) }),
            parts.dropFirst().allSatisfy({
                !$0.isEmpty
                    && $0.unicodeScalars.allSatisfy {
                        $0.isASCII && $0.properties.isAlphabetic || ("0"..."9").contains($0)
                    }
            })
        else { return nil }
        return tag
    }

    /// The stream's frame rate: the average FFmpeg measured, else the base rate, but never a
    /// rate that is only the time base's tick rate (Matroska's 1000, MP4's 90000 for a track
    /// without samples), which says nothing about the frames.
    private static func frameRate(_ stream: UnsafeMutablePointer<AVStream>) -> Double? {
        let ticksPerSecond = stream.pointee.time_base.num > 0 ? av_q2d(av_inv_q(stream.pointee.time_base)) : 0
        for rate in [stream.pointee.avg_frame_rate, stream.pointee.r_frame_rate] where rate.num > 0 && rate.den > 0 {
            let value = av_q2d(rate)
            if value >= 1000 && abs(value - ticksPerSecond) < 0.5 { continue }
            return value
        }
        return nil
    }

    /// Index entries the MP4/MOV demuxer marked `AVINDEX_DISCARD_FRAME` for the edit list.
    private static func hiddenPackets(_ stream: UnsafeMutablePointer<AVStream>) -> Int {
        var hidden = 0
        for entry in 0..<avformat_index_get_entries_count(stream) {
            if let item = avformat_index_get_entry(stream, entry), item.pointee.flags & AVINDEX_DISCARD_FRAME != 0 {
                hidden += 1
            }
        }
        return hidden
    }

    /// The four printable characters of a codec tag, or empty.
    static func fourCC(_ tag: UInt32) -> String {
        guard tag != 0 else { return "" }
        let bytes = (0..<4).map { UInt8((tag >> (8 * UInt32($0))) & 0xFF) }
        guard bytes.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) else { return "" }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Whether the display matrix turns the picture sideways (±90°), so width and height swap.
    package var isSideways: Bool {
        let quarter = (abs(rotation).truncatingRemainder(dividingBy: 180))
        return abs(quarter - 90) < 1
    }
}
