internal import CSwscale

/// Owns a libswscale context (`SwsContext`) for one resize; freed with `sws_freeContext`.
final class ScaleContext {
    private let pointer: OpaquePointer
    private let format: AVPixelFormat
    /// libswscale's functions (loaded on first use: see ``SwscaleLibrary``).
    private let swscale: offc_swscale_api

    init(width: Int, height: Int, toWidth: Int, toHeight: Int, channels: Int, sixteenBit: Bool) throws(ConvertError) {
        swscale = try SwscaleLibrary.functions()
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
            let context = swscale.sws_getContext(
                Int32(width), Int32(height), format, Int32(toWidth), Int32(toHeight), format, flags, nil, nil, nil)
        else {
            throw ConvertError(code: .internalResize, message: "Could not set up resizing.")
        }
        pointer = context
    }

    deinit { swscale.sws_freeContext(pointer) }

    func scale(
        _ source: UnsafeRawPointer, sourceStride: Int, height: Int, into target: UnsafeMutableRawPointer,
        targetStride: Int
    ) {
        var sourcePlanes: [UnsafePointer<UInt8>?] = [source.assumingMemoryBound(to: UInt8.self), nil, nil, nil]
        var sourceStrides: [Int32] = [Int32(sourceStride), 0, 0, 0]
        var targetPlanes: [UnsafeMutablePointer<UInt8>?] = [target.assumingMemoryBound(to: UInt8.self), nil, nil, nil]
        var targetStrides: [Int32] = [Int32(targetStride), 0, 0, 0]
        _ = swscale.sws_scale(pointer, &sourcePlanes, &sourceStrides, 0, Int32(height), &targetPlanes, &targetStrides)
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
        try resize(
            bitmap, region: ResizePlan.Rect(x: 0, y: 0, width: bitmap.width, height: bitmap.height), width: width,
            height: height)
    }

    /// The `region` of `bitmap` scaled to `width`×`height` with a Lanczos filter (copied as it
    /// is when the sizes match). The region is read in place: no cropped copy is made.
    static func resize(_ bitmap: Bitmap, region: ResizePlan.Rect, width: Int, height: Int) throws(ConvertError)
        -> Bitmap
    {
        precondition(
            region.x >= 0 && region.y >= 0 && region.width > 0 && region.height > 0
                && region.x + region.width <= bitmap.width && region.y + region.height <= bitmap.height,
            "the region lies inside the bitmap")
        let whole = region == ResizePlan.Rect(x: 0, y: 0, width: bitmap.width, height: bitmap.height)
        if whole && width == bitmap.width && height == bitmap.height { return bitmap }
        if width == region.width && height == region.height { return bitmap.cropped(to: region) }
        let context = try ScaleContext(
            width: region.width, height: region.height, toWidth: width, toHeight: height, channels: bitmap.channels,
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
                    let start = (region.y * bitmap.width + region.x) * channels
                    context.scale(
                        source.baseAddress! + start, sourceStride: bitmap.width * channels, height: region.height,
                        into: target.baseAddress!, targetStride: width * channels)
                }
            }
            result.samples = .eight(out)
        case .sixteen(let values):
            var out = [UInt16](repeating: 0, count: width * height * channels)
            values.withUnsafeBytes { source in
                out.withUnsafeMutableBytes { target in
                    let start = (region.y * bitmap.width + region.x) * channels * 2
                    context.scale(
                        source.baseAddress! + start, sourceStride: bitmap.width * channels * 2, height: region.height,
                        into: target.baseAddress!, targetStride: width * channels * 2)
                }
            }
            result.samples = .sixteen(out)
        }
        return result
    }

    /// What fills the bars a padded resize adds.
    enum Padding: Sendable, Equatable {
        /// Transparent (the result gets an alpha channel).
        case transparent
        /// An opaque colour.
        case color(RGBColor)
    }

    /// `bitmap` (the plan's source) cropped, scaled and padded as `plan` says.
    static func apply(_ plan: ResizePlan, to bitmap: Bitmap, padding: Padding) throws(ConvertError) -> Bitmap {
        precondition(
            bitmap.width == plan.sourceWidth && bitmap.height == plan.sourceHeight, "the plan is for this bitmap")
        guard !plan.isIdentity else { return bitmap }
        let scaled = try resize(bitmap, region: plan.crop, width: plan.scaledWidth, height: plan.scaledHeight)
        guard plan.canvasWidth != plan.scaledWidth || plan.canvasHeight != plan.scaledHeight else { return scaled }
        return scaled.padded(
            toWidth: plan.canvasWidth, height: plan.canvasHeight, x: plan.offsetX, y: plan.offsetY, padding: padding)
    }
}

extension Bitmap {
    /// The pixels inside `region`, copied.
    func cropped(to region: ResizePlan.Rect) -> Bitmap {
        var copy = self
        copy.width = region.width
        copy.height = region.height
        let n = channels
        func rows<T>(_ values: [T]) -> [T] {
            var out: [T] = []
            out.reserveCapacity(region.width * region.height * n)
            for y in region.y..<(region.y + region.height) {
                let start = (y * width + region.x) * n
                out += values[start..<(start + region.width * n)]
            }
            return out
        }
        switch samples {
        case .eight(let values): copy.samples = .eight(rows(values))
        case .sixteen(let values): copy.samples = .sixteen(rows(values))
        }
        return copy
    }

    /// This bitmap placed at (`x`, `y`) on a `width`×`height` canvas filled with `padding`. A
    /// transparent padding gives an RGBA result; a colour keeps the channels (opaque bars).
    func padded(toWidth canvasWidth: Int, height canvasHeight: Int, x: Int, y: Int, padding: Resampler.Padding)
        -> Bitmap
    {
        precondition(
            x >= 0 && y >= 0 && x + width <= canvasWidth && y + height <= canvasHeight, "the picture fits the canvas")
        let source = padding == .transparent ? withAlpha() : self
        let n = source.channels
        var copy = source
        copy.width = canvasWidth
        copy.height = canvasHeight
        func fill<T: FixedWidthInteger & UnsignedInteger>(_ values: [T], scale: T) -> [T] {
            var bar: [T]
            switch padding {
            case .transparent: bar = [0, 0, 0, 0]
            case .color(let color):
                bar = [T(color.red) * scale, T(color.green) * scale, T(color.blue) * scale]
                if n == 4 { bar.append(T.max) }
            }
            var out = [T](repeating: 0, count: canvasWidth * canvasHeight * n)
            for i in 0..<(canvasWidth * canvasHeight) {
                for c in 0..<n { out[i * n + c] = bar[c] }
            }
            let rowLength = width * n
            for row in 0..<height {
                let from = row * rowLength
                let to = ((y + row) * canvasWidth + x) * n
                out.replaceSubrange(to..<(to + rowLength), with: values[from..<(from + rowLength)])
            }
            return out
        }
        switch source.samples {
        case .eight(let values): copy.samples = .eight(fill(values, scale: 1))
        case .sixteen(let values): copy.samples = .sixteen(fill(values, scale: 257))
        }
        return copy
    }
}
