internal import CFFmpeg
import ConvertCore
import Foundation

/// HDR10 static metadata as plain values: the mastering display (SMPTE ST 2086) and the content
/// light levels (CTA-861.3 MaxCLL/MaxFALL), from the container's boxes or the stream's SEI, and
/// whether HDR10+ dynamic metadata (SMPTE 2094-40) is present.
///
/// FFmpeg 5.1's libx265 and libsvtav1 wrappers pass none of it on by themselves, so a re-encode
/// that keeps HDR hands these values to the encoders as their own options.
struct HDRStaticMetadata: Sendable, Equatable {
    /// CIE 1931 x, y of red, green, blue and the white point, in that order (8 numbers).
    var chromaticities: [Double]?
    /// Mastering display luminance, cd/m² (max, min).
    var luminance: (max: Double, min: Double)?
    var maxCLL: Int?
    var maxFALL: Int?
    /// The first frame carries HDR10+ dynamic metadata.
    var hasHDR10Plus = false

    static func == (lhs: HDRStaticMetadata, rhs: HDRStaticMetadata) -> Bool {
        lhs.chromaticities == rhs.chromaticities && lhs.luminance?.max == rhs.luminance?.max
            && lhs.luminance?.min == rhs.luminance?.min && lhs.maxCLL == rhs.maxCLL && lhs.maxFALL == rhs.maxFALL
            && lhs.hasHDR10Plus == rhs.hasHDR10Plus
    }

    /// Whether the mastering display and the light levels are both known.
    var isComplete: Bool { chromaticities != nil && luminance != nil && maxCLL != nil }

    /// The values of stream `input`: its container side data first, then the first decoded frame's
    /// (SEI), for what the container does not say. Many phone and camera files carry them only in SEI.
    static func read(_ stream: Demuxer.Stream, path: String, maxPixels: Int) -> HDRStaticMetadata {
        var metadata = stream.withUnsafeStream { HDRStaticMetadata(sideDataOf: $0) }
        if let first = try? firstFrame(path: path, streamIndex: stream.index, maxPixels: maxPixels) {
            if metadata.chromaticities == nil { metadata.chromaticities = first.chromaticities }
            if metadata.luminance == nil { metadata.luminance = first.luminance }
            if metadata.maxCLL == nil { (metadata.maxCLL, metadata.maxFALL) = (first.maxCLL, first.maxFALL) }
            metadata.hasHDR10Plus = first.hasHDR10Plus
        }
        return metadata
    }

    /// The values in the container's stream side data.
    private init(sideDataOf input: UnsafeMutablePointer<AVStream>) {
        var size = 0
        if let data = av_stream_get_side_data(input, AV_PKT_DATA_MASTERING_DISPLAY_METADATA, &size),
           size >= MemoryLayout<AVMasteringDisplayMetadata>.size
        {
            take(UnsafeRawPointer(data).loadUnaligned(as: AVMasteringDisplayMetadata.self))
        }
        if let data = av_stream_get_side_data(input, AV_PKT_DATA_CONTENT_LIGHT_LEVEL, &size),
           size >= MemoryLayout<AVContentLightMetadata>.size
        {
            take(UnsafeRawPointer(data).loadUnaligned(as: AVContentLightMetadata.self))
        }
    }

    /// Decodes the first frame of the stream in a demuxer of its own (the conversion's demuxer
    /// must not move) and reads the frame's side data. Reads at most a few dozen packets.
    private static func firstFrame(path: String, streamIndex: Int, maxPixels: Int) throws(ConvertError) -> HDRStaticMetadata? {
        let demuxer = try Demuxer(path: path, maxPixels: maxPixels)
        guard streamIndex < demuxer.streamCount else { return nil }
        let decoder = try CodecDecoder(stream: demuxer.stream(streamIndex), path: path, maxPixels: maxPixels)
        let packet = try Packet()
        let frame = try Frame()
        for _ in 0..<64 {
            let ended = try demuxer.read(into: packet) == .endOfFile
            if !ended && packet.streamIndex != streamIndex {
                packet.unref()
                continue
            }
            _ = try decoder.send(ended ? nil : packet)
            packet.unref()
            if try decoder.receive(into: frame) == .frame { return frame.withUnsafePointer { HDRStaticMetadata(frame: $0) } }
            if ended { return nil }
        }
        return nil
    }

    private init(frame: UnsafeMutablePointer<AVFrame>) {
        if let side = av_frame_get_side_data(frame, AV_FRAME_DATA_MASTERING_DISPLAY_METADATA),
           side.pointee.size >= MemoryLayout<AVMasteringDisplayMetadata>.size
        {
            take(UnsafeRawPointer(side.pointee.data).loadUnaligned(as: AVMasteringDisplayMetadata.self))
        }
        if let side = av_frame_get_side_data(frame, AV_FRAME_DATA_CONTENT_LIGHT_LEVEL),
           side.pointee.size >= MemoryLayout<AVContentLightMetadata>.size
        {
            take(UnsafeRawPointer(side.pointee.data).loadUnaligned(as: AVContentLightMetadata.self))
        }
        hasHDR10Plus = av_frame_get_side_data(frame, AV_FRAME_DATA_DYNAMIC_HDR_PLUS) != nil
    }

    init() {}

    private mutating func take(_ mastering: AVMasteringDisplayMetadata) {
        if mastering.has_primaries != 0 {
            let p = mastering.display_primaries
            chromaticities = [p.0.0, p.0.1, p.1.0, p.1.1, p.2.0, p.2.1, mastering.white_point.0, mastering.white_point.1].map(av_q2d)
        }
        if mastering.has_luminance != 0 {
            luminance = (av_q2d(mastering.max_luminance), av_q2d(mastering.min_luminance))
        }
    }

    private mutating func take(_ light: AVContentLightMetadata) {
        // 0,0 means "not stated"; passing it on would claim a light level of zero.
        guard light.MaxCLL > 0 || light.MaxFALL > 0 else { return }
        maxCLL = Int(light.MaxCLL)
        maxFALL = Int(light.MaxFALL)
    }

    /// x265's `master-display` and `max-cll` options: chromaticities in 1/50000, luminance in
    /// 1/10000 cd/m², green then blue then red.
    var x265Parameters: [String] {
        var parameters: [String] = []
        if let c = chromaticities, let l = luminance {
            func chroma(_ value: Double) -> Int { Int((value * 50000).rounded()) }
            parameters.append("master-display=G(\(chroma(c[2])),\(chroma(c[3])))B(\(chroma(c[4])),\(chroma(c[5])))"
                + "R(\(chroma(c[0])),\(chroma(c[1])))WP(\(chroma(c[6])),\(chroma(c[7])))"
                + "L(\(Int((l.max * 10000).rounded())),\(Int((l.min * 10000).rounded())))")
        }
        if let maxCLL { parameters.append("max-cll=\(maxCLL),\(maxFALL ?? 0)") }
        return parameters
    }

    /// SVT-AV1's `mastering-display` and `content-light` options (decimal chromaticities and cd/m²).
    var svtAV1Parameters: [String] {
        var parameters: [String] = []
        if let c = chromaticities, let l = luminance {
            func number(_ value: Double) -> String { String(format: "%.5f", value) }
            parameters.append("mastering-display=G(\(number(c[2])),\(number(c[3])))B(\(number(c[4])),\(number(c[5])))"
                + "R(\(number(c[0])),\(number(c[1])))WP(\(number(c[6])),\(number(c[7])))"
                + "L(\(number(l.max)),\(number(l.min)))")
        }
        if let maxCLL { parameters.append("content-light=\(maxCLL),\(maxFALL ?? 0)") }
        return parameters
    }
}
