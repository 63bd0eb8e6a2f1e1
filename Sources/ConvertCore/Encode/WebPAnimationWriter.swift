internal import CWebP

/// Owns a `WebPAnimEncoder` assembling an animated WebP from whole canvases; deleted with
/// `WebPAnimEncoderDelete`. libwebp works out each frame's changed rectangle and blending itself.
final class WebPAnimationWriter {
    private let encoder: OpaquePointer
    private var config = WebPConfig()
    private let width: Int
    private let height: Int
    private var timestamp = 0

    /// An encoder for `width`×`height` canvases at `quality` (or lossless), looping forever.
    init(width: Int, height: Int, quality: Int, lossless: Bool) throws(ConvertError) {
        guard width <= 16383, height <= 16383 else {
            throw ConvertError(code: .requestTooLarge, message: "WebP images are limited to 16383×16383 pixels.")
        }
        var options = WebPAnimEncoderOptions()
        guard WebPAnimEncoderOptionsInit(&options) != 0, WebPConfigInit(&config) != 0,
            let encoder = WebPAnimEncoderNew(Int32(width), Int32(height), &options)
        else {
            throw ConvertError(code: .encodeFailed, message: "The WebP animation encoder could not start.")
        }
        config.quality = Float(quality)
        config.lossless = lossless ? 1 : 0
        self.encoder = encoder
        self.width = width
        self.height = height
    }

    deinit { WebPAnimEncoderDelete(encoder) }

    /// Adds a canvas of 8-bit RGBA `pixels` shown for `duration` milliseconds.
    func add(_ pixels: [UInt8], duration: Int) throws(ConvertError) {
        precondition(pixels.count == width * height * 4, "a whole RGBA canvas")
        var picture = WebPPicture()
        guard WebPPictureInit(&picture) != 0 else { throw failure }
        picture.use_argb = 1
        picture.width = Int32(width)
        picture.height = Int32(height)
        defer { WebPPictureFree(&picture) }
        let imported = pixels.withUnsafeBufferPointer {
            WebPPictureImportRGBA(&picture, $0.baseAddress, Int32(width * 4))
        }
        guard imported != 0, WebPAnimEncoderAdd(encoder, &picture, Int32(timestamp), &config) != 0 else {
            throw failure
        }
        timestamp += max(1, duration)
    }

    /// The whole animated WebP file.
    func finish() throws(ConvertError) -> [UInt8] {
        var output = WebPData()
        guard WebPAnimEncoderAdd(encoder, nil, Int32(timestamp), nil) != 0,
            WebPAnimEncoderAssemble(encoder, &output) != 0,
            let bytes = output.bytes
        else { throw failure }
        defer { WebPDataClear(&output) }
        return Array(UnsafeBufferPointer(start: bytes, count: output.size))
    }

    private var failure: ConvertError {
        ConvertError(code: .encodeFailed, message: "WebP animation encoding failed.")
    }
}
