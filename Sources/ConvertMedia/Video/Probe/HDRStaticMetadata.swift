import ConvertCore
internal import FFmpegLayer
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
        var metadata = HDRStaticMetadata(mastering: stream.masteringDisplay, light: stream.contentLight)
        if let first = try? firstFrame(path: path, streamIndex: stream.index, maxPixels: maxPixels) {
            if metadata.chromaticities == nil { metadata.chromaticities = first.chromaticities }
            if metadata.luminance == nil { metadata.luminance = first.luminance }
            if metadata.maxCLL == nil { (metadata.maxCLL, metadata.maxFALL) = (first.maxCLL, first.maxFALL) }
            metadata.hasHDR10Plus = first.hasHDR10Plus
        }
        return metadata
    }

    /// The values of a mastering display and light levels as FFmpeg read them (stream or frame
    /// side data).
    private init(mastering: MasteringDisplay?, light: ContentLightLevel?, hasHDR10Plus: Bool = false) {
        if let mastering, let r = mastering.red, let g = mastering.green, let b = mastering.blue,
            let w = mastering.whitePoint
        {
            chromaticities = [r.x, r.y, g.x, g.y, b.x, b.y, w.x, w.y]
        }
        if let max = mastering?.maxLuminance, let min = mastering?.minLuminance { luminance = (max, min) }
        // 0,0 means "not stated"; passing it on would claim a light level of zero.
        if let light, light.maxCLL > 0 || light.maxFALL > 0 { (maxCLL, maxFALL) = (light.maxCLL, light.maxFALL) }
        self.hasHDR10Plus = hasHDR10Plus
    }

    /// Decodes the first frame of the stream in a demuxer of its own (the conversion's demuxer
    /// must not move) and reads the frame's side data. Reads at most a few dozen packets.
    private static func firstFrame(path: String, streamIndex: Int, maxPixels: Int) throws(ConvertError)
        -> HDRStaticMetadata?
    {
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
            if try decoder.receive(into: frame) == .frame {
                return HDRStaticMetadata(
                    mastering: frame.masteringDisplay, light: frame.contentLight, hasHDR10Plus: frame.hasHDR10Plus)
            }
            if ended { return nil }
        }
        return nil
    }

    init() {}

    /// x265's `master-display` and `max-cll` options: chromaticities in 1/50000, luminance in
    /// 1/10000 cd/m², green then blue then red.
    var x265Parameters: [String] {
        var parameters: [String] = []
        if let c = chromaticities, let l = luminance {
            func chroma(_ value: Double) -> Int { Int((value * 50000).rounded()) }
            parameters.append(
                "master-display=G(\(chroma(c[2])),\(chroma(c[3])))B(\(chroma(c[4])),\(chroma(c[5])))"
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
            parameters.append(
                "mastering-display=G(\(number(c[2])),\(number(c[3])))B(\(number(c[4])),\(number(c[5])))"
                    + "R(\(number(c[0])),\(number(c[1])))WP(\(number(c[6])),\(number(c[7])))"
                    + "L(\(number(l.max)),\(number(l.min)))")
        }
        if let maxCLL { parameters.append("content-light=\(maxCLL),\(maxFALL ?? 0)") }
        return parameters
    }
}
