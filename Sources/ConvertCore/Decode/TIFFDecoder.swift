/// Reads TIFF and BigTIFF photos through libtiff (``TIFFHandle``): every page is an image.
///
/// Two routes. Unsigned 8- or 16-bit samples stored contiguously as grey, RGB or CMYK (with or
/// without alpha) are read as stored, strip by strip or tile by tile, so 16 bits stay 16 bits,
/// alpha stays straight and a CMYK page with an ICC profile is converted through it (lcms2).
/// Everything else libtiff reads (palettes, 1- to 4-bit, YCbCr and JPEG-in-TIFF, separate planes,
/// LogLuv...) goes through its RGBA interface at 8 bits. Orientation is applied to the pixels,
/// the ICC profile and XMP packet kept.
enum TIFFDecoder {
    /// One page decoded, upright.
    struct Page {
        var bitmap: Bitmap
        var xmp: [UInt8]?
    }

    /// The pages asked for, the number the file has, and notes for the user.
    struct Decoded {
        var pages: [Page]
        var pageCount: Int
        var notes: [JobNote]
    }

    /// What `info` shows: the first page's tags and how many pages there are.
    struct Header {
        /// As displayed (after the orientation).
        var width: Int
        var height: Int
        /// The first page's bits per sample (1, 2, 4, 8, 16, ...), as stored.
        var bitDepth: Int
        var hasAlpha: Bool
        var orientation: Int
        var icc: [UInt8]?
        var xmp: [UInt8]?
        var pageCount: Int
    }

    /// The note of a conversion that keeps the first of `count` pages.
    static func pagesLeftOutNote(_ count: Int) -> JobNote {
        JobNote(.pagesLeftOut, "\(count) pages; the first kept", detail: .pagesLeftOut(pages: count))
    }

    /// Reads the first page's tags and counts the pages, decoding no pixel.
    static func header(_ data: [UInt8], path: String) throws(ConvertError) -> Header {
        let tiff = try TIFFHandle(data, maxAllocation: 64 << 20, path: path)
        let count = tiff.pageCount
        let page = try tiff.select(page: 0, path: path)
        let swaps = page.orientation >= 5
        return Header(
            width: swaps ? page.height : page.width, height: swaps ? page.width : page.height,
            bitDepth: page.bitsPerSample,
            hasAlpha: page.alpha != .none,
            orientation: page.orientation, icc: page.icc, xmp: page.xmp, pageCount: max(1, count))
    }

    /// Decodes the first page, or every page with `allImages`. Each page's size is checked
    /// against `maxPixels` before anything is allocated for it. A page with parts that cannot be
    /// read (damage, a file cut short) is kept with a note, or refused with `strict`.
    static func decode(
        _ data: [UInt8], maxPixels: Int, allImages: Bool, strict: Bool, path: String, cancellation: CancellationFlag
    ) throws(ConvertError) -> Decoded {
        // The largest single buffer libtiff needs is a strip or tile, at most a whole 16-bit RGBA
        // picture: bounded by the pixel limit, libtiff refuses a hostile strip size before
        // allocating it.
        let (perPixel, overflow) = maxPixels.multipliedReportingOverflow(by: 8)
        let tiff = try TIFFHandle(data, maxAllocation: overflow ? Int.max : perPixel + (1 << 20), path: path)
        let count = max(1, tiff.pageCount)
        var notes: [JobNote] = []
        var pages: [Page] = []
        for index in 0..<(allImages ? count : 1) {
            let page = try tiff.select(page: index, path: path)
            try PixelLimit.check(width: page.width, height: page.height, limit: maxPixels, path: path)
            guard page.width > 0, page.height > 0 else { throw TIFFHandle.damaged(path, reason: "an empty page") }
            var (bitmap, damaged) = try decodePage(page, from: tiff, path: path)
            if damaged {
                let reason = tiff.lastError
                if strict {
                    throw ConvertError(
                        code: .inputCorrupt,
                        message:
                            "\(path) is damaged: part of \(count > 1 ? "page \(index + 1)" : "the picture") cannot be read"
                            + (reason.isEmpty ? "." : " (\(reason))."), path: path)
                }
                let note =
                    "part of the picture cannot be read (a damaged or cut-short file); what could be read is kept"
                if !notes.contains(note) { notes.append(note) }
            }
            bitmap = bitmap.applyingOrientation(page.orientation)
            pages.append(Page(bitmap: bitmap, xmp: page.xmp))
            try cancellation.check()
        }
        if !allImages && count > 1 { notes.append(pagesLeftOutNote(count)) }
        return Decoded(pages: pages, pageCount: count, notes: notes)
    }

    /// How a page's samples as stored become RGB: the colour model and where alpha is.
    private enum Route: Equatable {
        case grey(minIsWhite: Bool)
        case rgb
        case cmyk

        /// The route for `page`, or nil when libtiff's RGBA interface reads it instead.
        init?(_ page: TIFFHandle.Page) {
            guard [8, 16].contains(page.bitsPerSample), page.planarConfig == 1, page.sampleFormat == 1 else {
                return nil
            }
            let route: Route
            switch page.photometric {
            case 0, 1: route = .grey(minIsWhite: page.photometric == 0)
            case 2: route = .rgb
            case 5 where page.inkSet == 1: route = .cmyk
            default: return nil
            }
            // The samples as stored are allocated per pixel: a page claiming dozens of extra
            // samples (real files have one or two) goes through the RGBA interface, whose buffer
            // is four bytes a pixel whatever the page says.
            guard (route.colors...(route.colors + 4)).contains(page.samplesPerPixel) else { return nil }
            self = route
        }

        /// Colour samples per pixel (before any alpha).
        var colors: Int {
            switch self {
            case .grey: 1
            case .rgb: 3
            case .cmyk: 4
            }
        }
    }

    /// One page's pixels in stored row order, and whether parts could not be read.
    private static func decodePage(_ page: TIFFHandle.Page, from tiff: TIFFHandle, path: String) throws(ConvertError)
        -> (Bitmap, Bool)
    {
        let pixels = page.width * page.height
        if let route = Route(page) {
            let count = pixels * page.samplesPerPixel
            if page.bitsPerSample == 16 {
                let (samples, failed) = try tiff.readSamples(UInt16.self, count: count, path: path)
                return (convert(samples, page: page, route: route, sourceDepth: 16, path: path), failed > 0)
            }
            let (samples, failed) = try tiff.readSamples(UInt8.self, count: count, path: path)
            return (convert(samples, page: page, route: route, sourceDepth: 8, path: path), failed > 0)
        }
        let (rgba, damaged) = try tiff.readRGBA(width: page.width, height: page.height, path: path)
        // libtiff premultiplies whatever alpha the page has; a page without alpha comes back opaque.
        let hasAlpha = page.alpha != .none || stride(from: 3, to: rgba.count, by: 4).contains { rgba[$0] != 255 }
        let bitmap: Bitmap
        if hasAlpha {
            bitmap = Bitmap(
                width: page.width, height: page.height, channels: 4,
                samples: .eight(unpremultiplied(rgba, channels: 4, colors: 3)),
                sourceBitDepth: 8, icc: page.icc)
        } else {
            var rgb = [UInt8](repeating: 0, count: pixels * 3)
            for i in 0..<pixels {
                rgb[i * 3] = rgba[i * 4]
                rgb[i * 3 + 1] = rgba[i * 4 + 1]
                rgb[i * 3 + 2] = rgba[i * 4 + 2]
            }
            bitmap = Bitmap(
                width: page.width, height: page.height, channels: 3, samples: .eight(rgb), sourceBitDepth: 8,
                icc: page.icc)
        }
        return (bitmap, damaged)
    }

    /// Samples as stored (`page.samplesPerPixel` per pixel, extra samples after the colours) to
    /// an RGB or RGBA bitmap of the same width.
    private static func convert<Sample: FixedWidthInteger & UnsignedInteger>(
        _ samples: [Sample], page: TIFFHandle.Page, route: Route, sourceDepth: Int, path: String
    ) -> Bitmap {
        let pixels = page.width * page.height
        let stride = page.samplesPerPixel
        let alpha = page.alpha != .none && stride > route.colors
        let channels = alpha ? 4 : 3
        let maximum = UInt64(Sample.max)
        var out = [Sample](repeating: 0, count: pixels * channels)
        var icc = page.icc
        switch route {
        case .grey(let minIsWhite):
            for i in 0..<pixels {
                let value = minIsWhite ? Sample.max - samples[i * stride] : samples[i * stride]
                out[i * channels] = value
                out[i * channels + 1] = value
                out[i * channels + 2] = value
            }
        case .rgb:
            for i in 0..<pixels {
                out[i * channels] = samples[i * stride]
                out[i * channels + 1] = samples[i * stride + 1]
                out[i * channels + 2] = samples[i * stride + 2]
            }
        case .cmyk:
            var cmyk = [Sample](repeating: 0, count: pixels * 4)
            for i in 0..<pixels {
                for c in 0..<4 { cmyk[i * 4 + c] = samples[i * stride + c] }
            }
            if let profile = icc, let converted = ColorProfiles.cmykToSRGB(cmyk, icc: profile) {
                // Through the page's own CMYK profile to sRGB, tagged as such.
                icc = converted.icc
                for i in 0..<pixels {
                    for c in 0..<3 { out[i * channels + c] = converted.rgb[i * 3 + c] }
                }
            } else {
                // No usable profile: the naive inversion, R = (1 - C)(1 - K), and no tag (the
                // profile, if any, describes CMYK).
                icc = nil
                for i in 0..<pixels {
                    let k = maximum - UInt64(cmyk[i * 4 + 3])
                    for c in 0..<3 {
                        let ink = maximum - UInt64(cmyk[i * 4 + c])
                        out[i * channels + c] = Sample(truncatingIfNeeded: (ink * k + maximum / 2) / maximum)
                    }
                }
            }
        }
        if alpha {
            for i in 0..<pixels { out[i * 4 + 3] = samples[i * stride + route.colors] }
            if page.alpha == .associated { out = unpremultiplied(out, channels: 4, colors: 3) }
        }
        let storage: Bitmap.Samples
        if let eight = out as? [UInt8] {
            storage = .eight(eight)
        } else if let sixteen = out as? [UInt16] {
            storage = .sixteen(sixteen)
        } else {
            storage = .eight(out.map { UInt8(truncatingIfNeeded: $0) })
        }
        return Bitmap(
            width: page.width, height: page.height, channels: channels, samples: storage, sourceBitDepth: sourceDepth,
            icc: icc)
    }

    /// Premultiplied colours back to straight: c × max / a, rounded and clamped; a fully
    /// transparent pixel keeps colour 0.
    private static func unpremultiplied<Sample: FixedWidthInteger & UnsignedInteger>(
        _ values: [Sample], channels: Int, colors: Int
    ) -> [Sample] {
        var out = values
        let maximum = UInt64(Sample.max)
        for pixel in 0..<(values.count / channels) {
            let a = UInt64(values[pixel * channels + colors])
            guard a > 0, a < maximum else { continue }
            for c in 0..<colors {
                let v = UInt64(values[pixel * channels + c])
                out[pixel * channels + c] = Sample(truncatingIfNeeded: min(maximum, (v * maximum + a / 2) / a))
            }
        }
        return out
    }
}
