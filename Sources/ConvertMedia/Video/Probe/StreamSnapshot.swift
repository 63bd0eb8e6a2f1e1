internal import CFFmpeg
import ConvertCore

/// A `Sendable` copy of what the pipeline needs to know about one demuxed stream, taken while the
/// demuxer is open so nothing points into FFmpeg's memory afterwards.
struct StreamSnapshot: Sendable, Equatable {
    /// The kind of a stream; an open set so an unknown FFmpeg media type never crashes.
    enum Kind: Sendable, Equatable {
        case video, audio, subtitle, data, attachment
        case other(Int32)
    }

    /// Index in the input file.
    var index: Int
    var kind: Kind
    /// The codec; ``CodecID/none`` for tracks FFmpeg cannot name (mebx, mett).
    var codec: CodecID
    /// The container's four-character code (`hvc1`, `mebx`), empty when none.
    var codecTag: String
    /// Codec profile (FFmpeg's number), or a negative value when unknown.
    var profile: Int32
    var width: Int32
    var height: Int32
    /// The pixel format of a video stream, ``PixelFormat/none`` when unknown (and for other kinds).
    var pixelFormat: PixelFormat
    /// The transfer function the stream's parameters give (FFmpeg's `color_trc`, an H.273 code).
    var transfer: TransferCharacteristics
    /// Rotation from the display matrix in degrees, counter-clockwise, as FFmpeg reports it (−90 for
    /// a portrait iPhone clip), 0 when none.
    var rotation: Double
    /// Dolby Vision configuration (`dvcC`/`dvvC`) when the stream has one.
    var doviProfile: Int32?
    var doviCompatibility: Int32?
    var sampleRate: Int32
    var channels: Int32
    /// Seconds per tick of the stream's timestamps.
    var timeBase: Double
    /// Stream duration in seconds, when known.
    var duration: Double?
    /// Whether this FFmpeg build has a decoder for the stream.
    var decodable: Bool
    /// Whether the stream is cover art (an attached picture), never the movie.
    var isAttachedPicture = false
    /// Packets the container's edit list hides (decoded for reference, never shown or heard):
    /// the frames before a trimmed clip's start, an AAC encoder's priming. Only MP4/MOV can say
    /// so in a copy; any other container would show them.
    var hiddenPackets = 0
    /// A spatial (3D, MV-HEVC) video: FFmpeg 5.1 decodes and copies only its first (left) view.
    var isStereo = false
    /// The stream's `language` tag (ISO 639-2), when it has one other than `und`.
    var language: String?

    /// Whether this is AAC audio.
    var isAAC: Bool { kind == .audio && codec == .aac }

    /// FFmpeg's short codec name (`h264`, `aac`), or `none` for tracks it cannot name.
    var codecName: String { codec.name }

    /// Takes the snapshot of `stream`; nil for a stream without codec parameters (which FFmpeg
    /// never makes, but a nil is not worth a crash).
    init?(_ stream: UnsafeMutablePointer<AVStream>) {
        guard let parameters = stream.pointee.codecpar?.pointee else { return nil }
        index = Int(stream.pointee.index)
        switch parameters.codec_type {
        case AVMEDIA_TYPE_VIDEO: kind = .video
        case AVMEDIA_TYPE_AUDIO: kind = .audio
        case AVMEDIA_TYPE_SUBTITLE: kind = .subtitle
        case AVMEDIA_TYPE_DATA: kind = .data
        case AVMEDIA_TYPE_ATTACHMENT: kind = .attachment
        default: kind = .other(parameters.codec_type.rawValue)
        }
        codec = CodecID(rawValue: parameters.codec_id.rawValue)
        codecTag = StreamSnapshot.fourCC(parameters.codec_tag)
        profile = parameters.profile
        width = parameters.width
        height = parameters.height
        pixelFormat = kind == .video ? PixelFormat(rawValue: parameters.format) : .none
        transfer = TransferCharacteristics(code: Int(parameters.color_trc.rawValue))
        var size = 0
        if let matrixData = av_stream_get_side_data(stream, AV_PKT_DATA_DISPLAYMATRIX, &size), size >= 36 {
            let angle = matrixData.withMemoryRebound(to: Int32.self, capacity: 9) { av_display_rotation_get($0) }
            rotation = angle.isFinite ? angle : 0
        } else {
            rotation = 0
        }
        if let dovi = av_stream_get_side_data(stream, AV_PKT_DATA_DOVI_CONF, &size),
           size >= MemoryLayout<AVDOVIDecoderConfigurationRecord>.size
        {
            let record = UnsafeRawPointer(dovi).loadUnaligned(as: AVDOVIDecoderConfigurationRecord.self)
            doviProfile = Int32(record.dv_profile)
            doviCompatibility = Int32(record.dv_bl_signal_compatibility_id)
        } else {
            doviProfile = nil
            doviCompatibility = nil
        }
        sampleRate = parameters.sample_rate
        channels = parameters.ch_layout.nb_channels
        let base = stream.pointee.time_base
        timeBase = base.den != 0 ? Double(base.num) / Double(base.den) : 0
        let ticks = stream.pointee.duration
        duration = ticks != FFmpeg.noTimestamp && ticks > 0 ? Double(ticks) * timeBase : nil
        decodable = codec.hasDecoder
        hiddenPackets = StreamSnapshot.hiddenPackets(stream)
        if let tag = av_dict_get(stream.pointee.metadata, "language", nil, 0) {
            let text = String(cString: tag.pointee.value)
            language = text == "und" || text.isEmpty ? nil : text
        }
    }

    /// Index entries the MP4/MOV demuxer marked `AVINDEX_DISCARD_FRAME` for the edit list.
    private static func hiddenPackets(_ stream: UnsafeMutablePointer<AVStream>) -> Int {
        var hidden = 0
        for entry in 0..<avformat_index_get_entries_count(stream) {
            if let item = avformat_index_get_entry(stream, entry), item.pointee.flags & AVINDEX_DISCARD_FRAME != 0 { hidden += 1 }
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
    var isSideways: Bool {
        let quarter = (abs(rotation).truncatingRemainder(dividingBy: 180))
        return abs(quarter - 90) < 1
    }
}
