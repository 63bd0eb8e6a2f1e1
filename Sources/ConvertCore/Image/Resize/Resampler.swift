internal import CFFmpeg

/// Owns a libswscale context (`SwsContext`) for one resize; freed with `sws_freeContext`.
final class ScaleContext {
    private let pointer: OpaquePointer
    private let format: AVPixelFormat

    init(width: Int, height: Int, toWidth: Int, toHeight: Int, channels: Int, sixteenBit: Bool) throws(ConvertError) {
        let little = UInt16(1).littleEndian == 1
        switch (channels, sixteenBit) {
        case (4, true): format = little ? AV_PIX_FMT_RGBA64LE : AV_PIX_FMT_RGBA64BE
        case (_, true): format = little ? AV_PIX_FMT_RGB48LE : AV_PIX_FMT_RGB48BE
        case (4, false): format = AV_PIX_FMT_RGBA
        default: format = AV_PIX_FMT_RGB24
        }
        // Lanczos with accurate rounding: the high-quality filter photos deserve when shrinking.
        let flags = Int32(SWS_LANCZOS | SWS_ACCURATE_RND | SWS_FULL_CHR_H_INT)
        guard
            let context = sws_getContext(
                Int32(width), Int32(height), format, Int32(toWidth), Int32(toHeight), format, flags, nil, nil, nil)
        else {
            throw ConvertError(.internal, key: "internal.resize", message: "Could not set up resizing.")
        }
        pointer = context
    }

    deinit { sws_freeContext(pointer) }

    func scale(
        _ source: UnsafeRawPointer, sourceStride: Int, height: Int, into target: UnsafeMutableRawPointer, targetStride: Int
    ) {
        var sourcePlanes: [UnsafePointer<UInt8>?] = [source.assumingMemoryBound(to: UInt8.self), nil, nil, nil]
        var sourceStrides: [Int32] = [Int32(sourceStride), 0, 0, 0]
        var targetPlanes: [UnsafeMutablePointer<UInt8>?] = [target.assumingMemoryBound(to: UInt8.self), nil, nil, nil]
        var targetStrides: [Int32] = [Int32(targetStride), 0, 0, 0]
        sws_scale(pointer, &sourcePlanes, &sourceStrides, 0, Int32(height), &targetPlanes, &targetStrides)
    }
}

/// Resizing of bitmaps.
enum Resampler {
    /// The size that fits `width`×`height` within a long edge of `longEdge`, keeping the aspect
    /// ratio; the same size when it already fits. Pure arithmetic.
    static func fitting(width: Int, height: Int, longEdge: Int) -> (width: Int, height: Int) {
        precondition(longEdge > 0, "a long edge is positive")
        let long = max(width, height)
        guard long > longEdge else { return (width, height) }
        let scale = Double(longEdge) / Double(long)
        let w = max(1, Int((Double(width) * scale).rounded()))
        let h = max(1, Int((Double(height) * scale).rounded()))
        return width >= height ? (longEdge, h) : (w, longEdge)
    }

    /// `bitmap` resized to `width`×`height` with a Lanczos filter.
    static func resize(_ bitmap: Bitmap, width: Int, height: Int) throws(ConvertError) -> Bitmap {
        guard width != bitmap.width || height != bitmap.height else { return bitmap }
        let context = try ScaleContext(
            width: bitmap.width, height: bitmap.height, toWidth: width, toHeight: height, channels: bitmap.channels,
            sixteenBit: bitmap.isSixteenBit)
        var result = bitmap
        result.width = width
        result.height = height
        let channels = bitmap.channels
        switch bitmap.samples {
        case .eight(let values):
            var out = [UInt8](repeating: 0, count: width * height * channels)
            values.withUnsafeBytes { source in
                out.withUnsafeMutableBytes { target in
                    context.scale(
                        source.baseAddress!, sourceStride: bitmap.width * channels, height: bitmap.height,
                        into: target.baseAddress!, targetStride: width * channels)
                }
            }
            result.samples = .eight(out)
        case .sixteen(let values):
            var out = [UInt16](repeating: 0, count: width * height * channels)
            values.withUnsafeBytes { source in
                out.withUnsafeMutableBytes { target in
                    context.scale(
                        source.baseAddress!, sourceStride: bitmap.width * channels * 2, height: bitmap.height,
                        into: target.baseAddress!, targetStride: width * channels * 2)
                }
            }
            result.samples = .sixteen(out)
        }
        return result
    }
}
