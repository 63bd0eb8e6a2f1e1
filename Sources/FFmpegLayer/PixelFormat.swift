internal import CFFmpeg

/// A pixel format (FFmpeg's `AVPixelFormat`) by its number: an open set, so a format a newer
/// FFmpeg adds, or an odd file's, is a value like any other and never a crash.
///
/// Facts about a format come from FFmpeg's own descriptor (`av_pix_fmt_desc_get`), never from
/// its name: `nv12` is 8-bit although its name holds a "12".
package struct PixelFormat: Hashable, Sendable, CustomStringConvertible {
    /// FFmpeg's `AVPixelFormat` value (`AV_PIX_FMT_NONE`, −1, for none).
    let rawValue: Int32

    /// The format with FFmpeg's number `rawValue`.
    init(rawValue: Int32) { self.rawValue = rawValue }

    /// The format FFmpeg calls `name` (`yuv420p10le`), or nil for a name it does not know.
    init?(name: String) {
        let format = av_get_pix_fmt(name)
        guard format != AV_PIX_FMT_NONE else { return nil }
        rawValue = format.rawValue
    }

    /// No pixel format (a damaged or non-video stream).
    package static let none = PixelFormat(AV_PIX_FMT_NONE)
    /// 8-bit 4:2:0, planar: what every player decodes.
    package static let yuv420p = PixelFormat(AV_PIX_FMT_YUV420P)
    /// 8-bit 4:2:0 planar, full range (JPEG levels; phone cameras' H.264).
    package static let yuvj420p = PixelFormat(AV_PIX_FMT_YUVJ420P)
    /// 10-bit 4:2:0 planar, little-endian (HDR10, HLG, Dolby Vision 8.x bases).
    package static let yuv420p10le = PixelFormat(AV_PIX_FMT_YUV420P10LE)
    /// 10-bit 4:4:4 planar, little-endian (the tone-map table's sampling grid).
    package static let yuv444p10le = PixelFormat(AV_PIX_FMT_YUV444P10LE)
    /// 16-bit 4:4:4 planar, little-endian (the tone-map table's sampled values).
    package static let yuv444p16le = PixelFormat(AV_PIX_FMT_YUV444P16LE)

    private init(_ format: AVPixelFormat) { rawValue = format.rawValue }

    /// FFmpeg's enum value, for the owner types that hand it to FFmpeg.
    var avValue: AVPixelFormat { AVPixelFormat(rawValue: rawValue) }

    /// FFmpeg's name (`yuv420p10le`), or nil for a number this FFmpeg does not know.
    package var name: String? {
        guard rawValue >= 0, let name = av_get_pix_fmt_name(avValue) else { return nil }
        return String(cString: name)
    }

    /// Bits per sample of the first component (8 for `nv12` and `yuv420p`, 10 for `p010le`, 12
    /// for `yuv420p12le`), or nil for an unknown format.
    package var bitDepth: Int? {
        guard rawValue >= 0, let descriptor = av_pix_fmt_desc_get(avValue) else { return nil }
        return Int(descriptor.pointee.comp.0.depth)
    }

    /// Whether samples take more than 8 bits (two bytes each in memory).
    var isHighBitDepth: Bool { (bitDepth ?? 8) > 8 }

    package var description: String { name ?? "pixel format \(rawValue)" }
}
