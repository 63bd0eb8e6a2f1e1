import ConvertCore
import Glibc

/// The peak memory of converting one photo, from its header and the request: the process's own
/// footprint, then the larger of what decoding holds and what the bitmap plus the output's
/// encoder hold, since the decoder's buffers are freed before the encoder starts.
///
/// Each figure was measured (peak RSS of `offconvert convert` with `/usr/bin/time`, one photo at
/// a time) on real 12–36 MP photos (a 20 MP Canon JPEG, the 17.9 MP Elephants JPEG scaled to
/// 36 MP, a 14.7 MP RGBA render PNG, a 12 MP iPhone HEIC, a 12 MP RGB PNG) for every output
/// format. The per-format encoder figures land within 1.25x of those peaks, except JPEG XL:
/// libjxl 0.7 at effort 7 held 45–95 bytes a pixel depending on the picture (cjxl the same,
/// within 2 %), so its figure is the upper end. A budget is never exceeded for it, and a smooth
/// photo is estimated up to twice what it takes.
package enum PhotoMemoryEstimate {
    /// What any photo conversion holds before its picture: the Swift runtime, the codec
    /// libraries mapped and touched, the allowance and journal (22–24 MiB measured).
    package static let processBytes: Int64 = 24 << 20

    /// A photo's estimate and the input as read for it (detached from its file), which the
    /// conversion takes over instead of reading the file again.
    package struct Estimate: Sendable {
        package var cost: Int64
        package var photo: PhotoInput?

        package init(cost: Int64, photo: PhotoInput?) {
            self.cost = cost
            self.photo = photo
        }
    }

    /// The peak bytes of converting the photo at `path` with `request` (``peakBytes(path:info:request:)``)
    /// from its header, read here; a file whose header cannot be read costs nothing (it fails at once).
    /// Blocks on the file: call it off Swift's cooperative pool.
    package static func estimate(path: String, request: PhotoRequest) -> Estimate {
        guard let opened = try? PhotoInput.open(path: path), let info = try? ImageProbe.probe(opened) else {
            return Estimate(cost: 0, photo: nil)
        }
        return Estimate(cost: peakBytes(path: path, info: info, request: request), photo: opened.detached())
    }

    /// The peak bytes of converting the photo at `path`, described by `info`, with `request`:
    /// the streamed JPEG path's band (or turned planes), the direct HEIC → JPEG path's coded
    /// bytes and stream, or the general path's decode and encode (times every image with
    /// `--all-images`), plus a kept gain map and tone mapping.
    package static func peakBytes(path: String, info: ImageInfo, request: PhotoRequest) -> Int64 {
        if info.format == .jpeg, let working = PhotoConverter.streamedJPEGWorkingBytes(path: path, request: request) {
            return processBytes + working + streamBufferBytes
        }
        var (width, height) = (info.width, info.height)
        // A --resize box larger than the photo (fill, pad) is made at its size.
        if let box = request.resize, box.width * box.height > width * height {
            (width, height) = (box.width, box.height)
        }
        let pixels = Int64(width) * Int64(height)
        let extras =
            gainMapBytes(info: info, request: request, pixels: pixels) + toneMappingBytes(of: info, request: request)
        if takesDirectHeicPath(info: info, request: request) {
            // The coded tiles, one band of them, and the JPEG stream as it grows (0.86 a pixel measured).
            return processBytes + pixels + extras
        }
        let images = request.allImages ? Int64(max(1, info.imageCount)) : 1
        // An animation kept as WebP: our canvas, a "restore previous" copy and the resized frame,
        // and libwebp's previous and current canvases and candidate sub-frames (a 1600x1200 GIF
        // peaked at 8 canvases over the engine's own footprint).
        if request.format == .webp, request.frame == nil, request.targetByteCount == nil, info.animation != nil,
            info.format != .png
        {
            // An animation over AnimationLimit is refused before anything is allocated.
            guard
                AnimationLimit.allows(
                    width: width, height: height, frames: info.animation?.frames ?? 1, maxPixels: request.maxPixels)
            else { return processBytes }
            return processBytes + BatchScheduler.bitmapBytes(width: width, height: height, bytesPerPixel: 4, count: 8)
                + extras
        }
        let bitmap = (info.hasAlpha ? 4 : 3) * (info.bitDepth > 8 ? 2 : 1)
        let decoding = decodeBytesPerPixel(
            info.format, bitmapBytesPerPixel: bitmap, fileBytesPerPixel: fileBytesPerPixel(path, pixels))
        let general = generalBytes(
            pixels: pixels, bitmapBytesPerPixel: bitmap, copies: copies(info: info, request: request),
            decodeBytesPerPixel: decoding + (isTurnedByDecoder(info) ? Double(bitmap) : 0),
            format: request.format, alpha: info.hasAlpha && request.format.storesAlpha)
        return processBytes + (general - processBytes) * images + extras
    }

    /// libjpeg's tables and the streamed path's 64 KiB input and 256 KiB output buffers, with room.
    static let streamBufferBytes: Int64 = 2 << 20

    /// The bitmaps alive while the output is encoded: the decoded one, and a second when it is
    /// resized, converted to sRGB or flattened, and a third for the target-size search (a smaller
    /// decode while a candidate is held).
    private static func copies(info: ImageInfo, request: PhotoRequest) -> Int {
        let changed =
            request.resize != nil || request.maxLongEdge != nil || request.color == .sRGB
            || (info.hasAlpha && !request.format.storesAlpha)
        return 1 + (changed ? 1 : 0) + (request.targetByteCount == nil ? 0 : 1)
    }

    /// Whether the decoder turns the bitmap by its EXIF orientation, a turned copy beside the
    /// decoded one until the decoded one is released (libheif turns a HEIF as it decodes it).
    private static func isTurnedByDecoder(_ info: ImageInfo) -> Bool {
        (info.exifOrientation ?? 1) != 1 && info.format != .heic && info.format != .avif
    }

    /// Whether ``PhotoConverter/directHeicToJPEG(_:opened:reporter:cancellation:)`` takes the
    /// photo, as far as its header tells: a HEIC without alpha or an HDR transfer, to a full-size
    /// JPEG in its own colours.
    private static func takesDirectHeicPath(info: ImageInfo, request: PhotoRequest) -> Bool {
        info.format == .heic && request.format == .jpeg && !request.allImages && request.maxLongEdge == nil
            && request.resize == nil && request.color == .keep && request.targetByteCount == nil && !info.hasAlpha
            && info.color.nclx.flatMap(HDRTransfer.init) == nil
    }

    /// The input file's bytes a pixel (a decoder holds the whole file).
    private static func fileBytesPerPixel(_ path: String, _ pixels: Int64) -> Double {
        var status = stat()
        guard pixels > 0, stat(path, &status) == 0 else { return 0 }
        return Double(status.st_size) / Double(pixels)
    }

    /// A kept gain map (a HEIC's auxiliary image or a JPEG's second one) is one grey byte a pixel
    /// at most, in two copies (decoded, then looked up or resized); a JPEG XL gets the HDR
    /// picture the map describes, a 16-bit bitmap more.
    private static func gainMapBytes(info: ImageInfo, request: PhotoRequest, pixels: Int64) -> Int64 {
        guard request.hdr == .keep, info.gainMap?.brightens == true else { return 0 }
        return pixels * 2 + (request.format == .jxl ? pixels * 8 : 0)
    }

    /// What tone mapping a PQ/HLG still adds (``HDRStill``): the 8-bit SDR bitmap beside the
    /// decoded 16-bit one, and for a JPEG that keeps HDR the gain map's float samples and plane.
    package static func toneMappingBytes(of info: ImageInfo, request: PhotoRequest) -> Int64 {
        guard let policy = HDRStillPolicy(format: request.format, hdr: request.hdr), policy.toneMaps(info.color.nclx)
        else { return 0 }
        let sdr = BatchScheduler.bitmapBytes(width: info.width, height: info.height, bytesPerPixel: 4)
        return sdr
            + (policy == .toneMapWithGainMap ? GainMapBuilder.workingBytes(width: info.width, height: info.height) : 0)
    }

    /// Bytes a pixel each output's encoder holds beside the bitmap it is given.
    static func encoderBytesPerPixel(_ format: PhotoFormat, alpha: Bool) -> Double {
        switch format {
        // TurboJPEG's stream and its YCbCr rows; libpng's rows and zlib's window.
        case .jpeg: 0.6
        case .png: 0.3
        // libwebp's YUV picture, its analysis and the coded partitions: 3.1–5.3 measured, 13
        // with an alpha plane to code as well.
        case .webp: alpha ? 13 : 4.5
        // x265 through libheif (its lookahead and reference pictures) and an AV1 encoder.
        case .heic: alpha ? 20 : 17
        case .avif: alpha ? 26 : 21
        case .jxl: 92
        case .gif, .bmp, .tiff, .tga, .pnm, .ico, .psd, .jp2: 0
        }
    }

    /// Peak bytes of the general path: the larger of decoding and encoding, as described above.
    /// `copies` is the bitmaps alive while encoding (a turned or converted copy beside the
    /// decoded one), `decodeBytesPerPixel` what the decoder holds at its peak.
    static func generalBytes(
        pixels: Int64, bitmapBytesPerPixel: Int, copies: Int, decodeBytesPerPixel: Double, format: PhotoFormat,
        alpha: Bool
    ) -> Int64 {
        let decoding = Double(pixels) * decodeBytesPerPixel
        let encoding =
            Double(pixels) * (Double(bitmapBytesPerPixel * copies) + encoderBytesPerPixel(format, alpha: alpha))
        return processBytes + Int64(max(decoding, encoding))
    }

    /// What a decoder holds at its peak, a pixel: libpng's rows written into the bitmap itself, and
    /// the file; TurboJPEG's RGB and the file; libheif's planes and RGB; other decoders a bitmap
    /// and a copy of it.
    static func decodeBytesPerPixel(_ format: PhotoFormat, bitmapBytesPerPixel: Int, fileBytesPerPixel: Double)
        -> Double
    {
        let bitmap = Double(bitmapBytesPerPixel)
        switch format {
        case .png: return bitmap + fileBytesPerPixel
        case .jpeg: return 3 + fileBytesPerPixel
        case .heic, .avif: return 3.4 * (bitmapBytesPerPixel > 4 ? 2 : 1)
        // Our small readers hold the stored samples, a 16-bit working copy and the bitmap; OpenJPEG
        // adds 32-bit samples of up to four components, and our copy of them.
        case .tga, .pnm, .psd, .ico: return 5 * bitmap + fileBytesPerPixel
        case .jp2: return 5 * bitmap + 32 + fileBytesPerPixel
        default: return 2 * bitmap + fileBytesPerPixel
        }
    }
}
