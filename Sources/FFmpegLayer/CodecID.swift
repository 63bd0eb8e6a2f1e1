internal import CFFmpeg
import ConvertCore
import MediaRequests

/// A codec (FFmpeg's `AVCodecID`) by its number: an open set, so a codec a newer FFmpeg adds is
/// a value like any other. Streams FFmpeg cannot name (mebx, mett) have ``none``.
package struct CodecID: Hashable, Sendable, CustomStringConvertible {
    /// FFmpeg's `AVCodecID` value.
    let rawValue: UInt32

    /// The codec with FFmpeg's number `rawValue`.
    init(rawValue: UInt32) { self.rawValue = rawValue }

    private init(_ codec: AVCodecID) { rawValue = codec.rawValue }

    package static let none = CodecID(AV_CODEC_ID_NONE)
    package static let h264 = CodecID(AV_CODEC_ID_H264)
    package static let hevc = CodecID(AV_CODEC_ID_HEVC)
    package static let av1 = CodecID(AV_CODEC_ID_AV1)
    package static let vp9 = CodecID(AV_CODEC_ID_VP9)
    package static let mpeg4 = CodecID(AV_CODEC_ID_MPEG4)
    package static let mpeg2video = CodecID(AV_CODEC_ID_MPEG2VIDEO)
    package static let vp8 = CodecID(AV_CODEC_ID_VP8)
    package static let prores = CodecID(AV_CODEC_ID_PRORES)
    package static let mjpeg = CodecID(AV_CODEC_ID_MJPEG)
    package static let png = CodecID(AV_CODEC_ID_PNG)
    package static let aac = CodecID(AV_CODEC_ID_AAC)
    package static let mp3 = CodecID(AV_CODEC_ID_MP3)
    package static let opus = CodecID(AV_CODEC_ID_OPUS)
    package static let vorbis = CodecID(AV_CODEC_ID_VORBIS)
    package static let flac = CodecID(AV_CODEC_ID_FLAC)
    package static let alac = CodecID(AV_CODEC_ID_ALAC)
    package static let ac3 = CodecID(AV_CODEC_ID_AC3)
    package static let eac3 = CodecID(AV_CODEC_ID_EAC3)
    package static let pcmS16LE = CodecID(AV_CODEC_ID_PCM_S16LE)

    /// The codec offconvert encodes for `codec`.
    package init(_ codec: VideoCodec) {
        switch codec {
        case .h264: self = .h264
        case .hevc: self = .hevc
        case .vp9: self = .vp9
        case .av1: self = .av1
        }
    }

    /// FFmpeg's enum value, for the owner types that hand it to FFmpeg.
    var avValue: AVCodecID { AVCodecID(rawValue: rawValue) }

    /// FFmpeg's short name (`h264`, `aac`; `none` for an unnamed codec), as `ffprobe` prints it.
    var name: String { String(cString: avcodec_get_name(avValue)) }

    /// Whether this FFmpeg build has a decoder for the codec.
    var hasDecoder: Bool { avcodec_find_decoder(avValue) != nil }

    package var description: String { name }

    /// The H.264 profiles every stock decoder plays (FFmpeg's `FF_PROFILE_H264_*`): Baseline,
    /// Constrained Baseline, Main and High; not High 10, 4:2:2 or 4:4:4.
    package static let h264PlayableProfiles: Set<Int32> = [
        FF_PROFILE_H264_BASELINE, FF_PROFILE_H264_CONSTRAINED_BASELINE, FF_PROFILE_H264_MAIN, FF_PROFILE_H264_HIGH,
    ]
}
