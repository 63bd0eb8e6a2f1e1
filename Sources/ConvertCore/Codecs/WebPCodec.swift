internal import CWebP

/// Owns a `WebPMux` (a WebP container being read or assembled); freed with `WebPMuxDelete`.
final class WebPMuxer {
    private let mux: OpaquePointer

    private init(_ mux: OpaquePointer) { self.mux = mux }

    /// An empty container.
    static func empty() throws(ConvertError) -> WebPMuxer {
        guard let mux = WebPMuxNew() else {
            throw ConvertError(code: .internalMemory, message: "Out of memory.")
        }
        return WebPMuxer(mux)
    }

    /// Parses a WebP file held in `data` (copied, so `data` need not outlive the muxer).
    static func parsing(_ data: [UInt8]) -> WebPMuxer? {
        let mux = data.withUnsafeBufferPointer { buffer -> OpaquePointer? in
            var webp = WebPData(bytes: buffer.baseAddress, size: buffer.count)
            return WebPMuxCreate(&webp, 1)
        }
        return mux.map(WebPMuxer.init)
    }

    deinit { WebPMuxDelete(mux) }

    /// The payload of chunk `fourCC` ("ICCP", "EXIF", "XMP "), copied.
    func chunk(_ fourCC: String) -> [UInt8]? {
        var data = WebPData()
        guard WebPMuxGetChunk(mux, fourCC, &data) == WEBP_MUX_OK, let bytes = data.bytes, data.size > 0 else {
            return nil
        }
        return Array(UnsafeBufferPointer(start: bytes, count: data.size))
    }

    /// Sets the (single) image bitstream and metadata chunks, and returns the assembled file.
    func assemble(bitstream: [UInt8], icc: [UInt8]?, exif: [UInt8]?, xmp: [UInt8]?) throws(ConvertError) -> [UInt8] {
        func set(_ bytes: [UInt8], _ body: (inout WebPData) -> WebPMuxError) -> Bool {
            bytes.withUnsafeBufferPointer { buffer in
                var data = WebPData(bytes: buffer.baseAddress, size: buffer.count)
                return body(&data) == WEBP_MUX_OK
            }
        }
        var ok = set(bitstream) { WebPMuxSetImage(mux, &$0, 1) }
        for (name, payload) in [("ICCP", icc), ("EXIF", exif), ("XMP ", xmp)] {
            if let payload, !payload.isEmpty { ok = ok && set(payload) { WebPMuxSetChunk(mux, name, &$0, 1) } }
        }
        var output = WebPData()
        guard ok, WebPMuxAssemble(mux, &output) == WEBP_MUX_OK, let bytes = output.bytes else {
            throw ConvertError(code: .encodeFailed, message: "Assembling the WebP file failed.")
        }
        defer { WebPDataClear(&output) }
        return Array(UnsafeBufferPointer(start: bytes, count: output.size))
    }
}

/// WebP decode (first frame) and encode (lossy or lossless).
enum WebPCodec {
    /// A decoded WebP with its metadata.
    struct Decoded {
        var bitmap: Bitmap
        var exif: [UInt8]?
        var xmp: [UInt8]?
    }

    /// What a WebP's headers say, nothing decoded: the size, alpha, and its ICC, EXIF and XMP
    /// chunks (what `info` shows and a batch's memory cost needs).
    struct Header {
        var width: Int
        var height: Int
        var hasAlpha: Bool
        var icc: [UInt8]?
        var exif: [UInt8]?
        var xmp: [UInt8]?
    }

    /// Reads `data`'s headers and metadata chunks without decoding a pixel (an animation's
    /// size is its canvas'); throws for a file that is not a WebP. A file whose chunks do not parse whole
    /// (cut short) is damaged here too: its metadata, and so its location, could not be told.
    static func header(_ data: [UInt8], path: String) throws(ConvertError) -> Header {
        let features = try features(data, path: path)
        guard let mux = WebPMuxer.parsing(data) else {
            throw ConvertError(
                code: .inputCorrupt, message: "\(path) is damaged: its WebP chunks are cut short.", path: path)
        }
        return Header(
            width: Int(features.width), height: Int(features.height), hasAlpha: features.has_alpha != 0,
            icc: mux.chunk("ICCP"), exif: mux.chunk("EXIF"), xmp: mux.chunk("XMP "))
    }

    private static func features(_ data: [UInt8], path: String) throws(ConvertError) -> WebPBitstreamFeatures {
        var features = WebPBitstreamFeatures()
        let status = data.withUnsafeBufferPointer { WebPGetFeatures($0.baseAddress, $0.count, &features) }
        guard status == VP8_STATUS_OK, features.width > 0, features.height > 0 else {
            throw ConvertError(code: .inputCorrupt, message: "\(path) is damaged or not a WebP image.", path: path)
        }
        return features
    }

    static func decode(_ data: [UInt8], maxPixels: Int, path: String) throws(ConvertError) -> Decoded {
        let features = try features(data, path: path)
        let width = Int(features.width)
        let height = Int(features.height)
        try PixelLimit.check(width: width, height: height, limit: maxPixels, path: path)
        let alpha = features.has_alpha != 0
        let channels = alpha ? 4 : 3
        var pixels = [UInt8](repeating: 0, count: width * height * channels)
        let decoded = data.withUnsafeBufferPointer { source in
            pixels.withUnsafeMutableBufferPointer { target in
                alpha
                    ? WebPDecodeRGBAInto(
                        source.baseAddress, source.count, target.baseAddress, target.count, Int32(width * 4))
                    : WebPDecodeRGBInto(
                        source.baseAddress, source.count, target.baseAddress, target.count, Int32(width * 3))
            }
        }
        guard decoded != nil else {
            throw ConvertError(
                code: .inputCorrupt, message: "\(path) is damaged: the WebP data could not be decoded.", path: path)
        }
        let mux = WebPMuxer.parsing(data)
        let bitmap = Bitmap(
            width: width, height: height, channels: channels, samples: .eight(pixels), sourceBitDepth: 8,
            icc: mux?.chunk("ICCP"))
        return Decoded(bitmap: bitmap, exif: mux?.chunk("EXIF"), xmp: mux?.chunk("XMP "))
    }

    /// Encodes `bitmap` (8-bit) to a complete WebP file with ICC, EXIF and XMP chunks.
    static func encode(_ bitmap: Bitmap, quality: Int, lossless: Bool, exif: [UInt8]?, xmp: [UInt8]?)
        throws(ConvertError) -> [UInt8]
    {
        guard bitmap.width <= 16383, bitmap.height <= 16383 else {
            throw ConvertError(
                code: .requestTooLarge, message: "WebP images are limited to 16383×16383 pixels.")
        }
        let pixels = bitmap.eightBitSamples
        var output: UnsafeMutablePointer<UInt8>?
        let w = Int32(bitmap.width)
        let h = Int32(bitmap.height)
        let stride = Int32(bitmap.width * bitmap.channels)
        let q = Float(quality)
        let size = pixels.withUnsafeBufferPointer { buffer -> Int in
            switch (bitmap.hasAlpha, lossless) {
            case (true, true): WebPEncodeLosslessRGBA(buffer.baseAddress, w, h, stride, &output)
            case (false, true): WebPEncodeLosslessRGB(buffer.baseAddress, w, h, stride, &output)
            case (true, false): WebPEncodeRGBA(buffer.baseAddress, w, h, stride, q, &output)
            case (false, false): WebPEncodeRGB(buffer.baseAddress, w, h, stride, q, &output)
            }
        }
        defer { if let output { WebPFree(output) } }
        guard size > 0, let output else {
            throw ConvertError(code: .encodeFailed, message: "WebP encoding failed.")
        }
        let bitstream = Array(UnsafeBufferPointer(start: output, count: size))
        if bitmap.icc == nil && exif == nil && xmp == nil { return bitstream }
        return try WebPMuxer.empty().assemble(bitstream: bitstream, icc: bitmap.icc, exif: exif, xmp: xmp)
    }

    /// Encodes `bitmap` (8-bit) lossily with libwebp's own size search aiming at `bitstreamBytes`
    /// for the VP8 bitstream, qualities kept within `qualities`, and returns the complete file
    /// with ICC, EXIF and XMP chunks. The search (`WebPConfig.target_size`) re-runs only the
    /// entropy passes over a sample of macroblocks, so it costs about one encode, where a search
    /// over whole encodes costs seven; it aims near the target, not under it, so the caller checks
    /// the size.
    static func encode(
        _ bitmap: Bitmap, bitstreamBytes: Int, qualities: ClosedRange<Int>, exif: [UInt8]?, xmp: [UInt8]?
    ) throws(ConvertError) -> [UInt8] {
        guard bitmap.width <= 16383, bitmap.height <= 16383 else {
            throw ConvertError(
                code: .requestTooLarge, message: "WebP images are limited to 16383×16383 pixels.")
        }
        var config = WebPConfig()
        var picture = WebPPicture()
        guard WebPConfigInit(&config) != 0, WebPPictureInit(&picture) != 0 else {
            throw ConvertError(code: .encodeFailed, message: "WebP encoding failed (libwebp version mismatch).")
        }
        config.target_size = Int32(clamping: max(1, bitstreamBytes))
        // cwebp's own -size setting: one pass aims far under the target (46 kB for 60 kB on a
        // 1500-px photo), six land within 1 % of it.
        config.pass = 6
        // The analysis and the entropy passes of a large picture overlap on a second thread.
        config.thread_level = 1
        config.qmin = Int32(qualities.lowerBound)
        config.qmax = Int32(qualities.upperBound)
        config.quality = Float(min(max(75, qualities.lowerBound), qualities.upperBound))
        picture.width = Int32(bitmap.width)
        picture.height = Int32(bitmap.height)
        let stride = Int32(bitmap.width * bitmap.channels)
        let pixels = bitmap.eightBitSamples
        var writer = WebPMemoryWriter()
        WebPMemoryWriterInit(&writer)
        defer { WebPMemoryWriterClear(&writer) }
        let encoded = pixels.withUnsafeBufferPointer { buffer -> Bool in
            defer { WebPPictureFree(&picture) }
            let imported =
                bitmap.hasAlpha
                ? WebPPictureImportRGBA(&picture, buffer.baseAddress, stride)
                : WebPPictureImportRGB(&picture, buffer.baseAddress, stride)
            guard imported != 0 else { return false }
            return withUnsafeMutablePointer(to: &writer) { writerPointer in
                picture.writer = WebPMemoryWrite
                picture.custom_ptr = UnsafeMutableRawPointer(writerPointer)
                return WebPEncode(&config, &picture) != 0
            }
        }
        guard encoded, let output = writer.mem, writer.size > 0 else {
            throw ConvertError(code: .encodeFailed, message: "WebP encoding failed.")
        }
        let bitstream = Array(UnsafeBufferPointer(start: output, count: writer.size))
        if bitmap.icc == nil && exif == nil && xmp == nil { return bitstream }
        return try WebPMuxer.empty().assemble(bitstream: bitstream, icc: bitmap.icc, exif: exif, xmp: xmp)
    }
}
