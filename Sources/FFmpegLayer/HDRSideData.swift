internal import CFFmpeg
import ConvertCore

/// HDR10 static metadata as FFmpeg hands it over, in stream side data (from the container) or
/// frame side data (from the stream's SEI): read here once into the probe's Swift values, so no
/// other file parses `AVMasteringDisplayMetadata` or `AVContentLightMetadata`.
enum HDRSideData {
    /// The mastering display in an `AVMasteringDisplayMetadata` of `size` bytes; nil when it is
    /// too short or states neither primaries nor luminance.
    fileprivate static func masteringDisplay(_ raw: UnsafeRawPointer, size: Int) -> MasteringDisplay? {
        guard size >= MemoryLayout<AVMasteringDisplayMetadata>.size else { return nil }
        let metadata = raw.loadUnaligned(as: AVMasteringDisplayMetadata.self)
        var display = MasteringDisplay()
        if metadata.has_primaries != 0 {
            let p = metadata.display_primaries
            display.red = Chromaticity(x: av_q2d(p.0.0), y: av_q2d(p.0.1))
            display.green = Chromaticity(x: av_q2d(p.1.0), y: av_q2d(p.1.1))
            display.blue = Chromaticity(x: av_q2d(p.2.0), y: av_q2d(p.2.1))
            display.whitePoint = Chromaticity(x: av_q2d(metadata.white_point.0), y: av_q2d(metadata.white_point.1))
        }
        if metadata.has_luminance != 0 {
            display.minLuminance = av_q2d(metadata.min_luminance)
            display.maxLuminance = av_q2d(metadata.max_luminance)
        }
        return metadata.has_primaries != 0 || metadata.has_luminance != 0 ? display : nil
    }

    /// The light levels in an `AVContentLightMetadata` of `size` bytes; nil when it is too short.
    fileprivate static func contentLight(_ raw: UnsafeRawPointer, size: Int) -> ContentLightLevel? {
        guard size >= MemoryLayout<AVContentLightMetadata>.size else { return nil }
        let metadata = raw.loadUnaligned(as: AVContentLightMetadata.self)
        return ContentLightLevel(maxCLL: Int(metadata.MaxCLL), maxFALL: Int(metadata.MaxFALL))
    }
}

extension Frame {
    /// The mastering display the frame's SEI states.
    package var masteringDisplay: MasteringDisplay? {
        sideData(AV_FRAME_DATA_MASTERING_DISPLAY_METADATA, HDRSideData.masteringDisplay)
    }

    /// The content light level the frame's SEI states.
    package var contentLight: ContentLightLevel? {
        sideData(AV_FRAME_DATA_CONTENT_LIGHT_LEVEL, HDRSideData.contentLight)
    }

    /// Whether the frame carries HDR10+ dynamic metadata (SMPTE ST 2094-40).
    package var hasHDR10Plus: Bool {
        withUnsafePointer { av_frame_get_side_data($0, AV_FRAME_DATA_DYNAMIC_HDR_PLUS) != nil }
    }

    private func sideData<Value>(_ type: AVFrameSideDataType, _ read: (UnsafeRawPointer, Int) -> Value?) -> Value? {
        withUnsafePointer { frame in
            guard let side = av_frame_get_side_data(frame, type), let data = side.pointee.data else { return nil }
            return read(UnsafeRawPointer(data), Int(side.pointee.size))
        }
    }
}

extension Demuxer.Stream {
    /// The mastering display the container states for the stream (an `mdcv` box, or a
    /// Matroska element).
    package var masteringDisplay: MasteringDisplay? {
        sideData(AV_PKT_DATA_MASTERING_DISPLAY_METADATA, HDRSideData.masteringDisplay)
    }

    /// The content light level the container states for the stream.
    package var contentLight: ContentLightLevel? { sideData(AV_PKT_DATA_CONTENT_LIGHT_LEVEL, HDRSideData.contentLight) }

    private func sideData<Value>(_ type: AVPacketSideDataType, _ read: (UnsafeRawPointer, Int) -> Value?) -> Value? {
        withUnsafeStream { stream in
            var size = 0
            guard let data = av_stream_get_side_data(stream, type, &size) else { return nil }
            return read(UnsafeRawPointer(data), size)
        }
    }
}
