internal import CWebP

/// Owns a `WebPAnimDecoder` reading an animated WebP frame by frame onto its canvas; deleted
/// with `WebPAnimDecoderDelete`. libwebp keeps a pointer to the file's bytes, so the reader
/// holds its own copy for as long as the decoder lives.
final class WebPAnimationReader {
    private let decoder: OpaquePointer
    private let bytes: UnsafeMutableBufferPointer<UInt8>
    /// The canvas every frame is drawn on.
    let width: Int
    let height: Int
    /// The number of frames.
    let frameCount: Int
    private var previousTimestamp = 0

    /// Opens `data`, whose canvas is `width`×`height` as its header says (the caller has checked
    /// it against the pixel limit: libwebp allocates the canvas here); nil when libwebp refuses it.
    init?(_ data: [UInt8]) {
        let copy = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: max(1, data.count))
        _ = copy.initialize(from: data)
        var options = WebPAnimDecoderOptions()
        var info = WebPAnimInfo()
        var webp = WebPData(bytes: copy.baseAddress, size: data.count)
        guard WebPAnimDecoderOptionsInit(&options) != 0 else {
            copy.deallocate()
            return nil
        }
        options.color_mode = MODE_RGBA
        options.use_threads = 0
        guard let decoder = WebPAnimDecoderNew(&webp, &options) else {
            copy.deallocate()
            return nil
        }
        guard WebPAnimDecoderGetInfo(decoder, &info) != 0, info.canvas_width > 0, info.canvas_height > 0 else {
            WebPAnimDecoderDelete(decoder)
            copy.deallocate()
            return nil
        }
        self.decoder = decoder
        bytes = copy
        width = Int(info.canvas_width)
        height = Int(info.canvas_height)
        frameCount = Int(info.frame_count)
    }

    deinit {
        WebPAnimDecoderDelete(decoder)
        bytes.deallocate()
    }

    /// The next frame on the canvas (8-bit RGBA) and how long it shows in milliseconds; nil
    /// after the last frame or when its data is damaged.
    func next() -> (pixels: [UInt8], duration: Int)? {
        var buffer: UnsafeMutablePointer<UInt8>?
        var timestamp: Int32 = 0
        guard WebPAnimDecoderHasMoreFrames(decoder) != 0, WebPAnimDecoderGetNext(decoder, &buffer, &timestamp) != 0,
            let buffer
        else { return nil }
        let pixels = Array(UnsafeBufferPointer(start: buffer, count: width * height * 4))
        defer { previousTimestamp = Int(timestamp) }
        return (pixels, max(0, Int(timestamp) - previousTimestamp))
    }

    /// The frame count and the duration of each frame in milliseconds, read from the frame
    /// headers alone (nothing decoded); nil for a WebP that is not an animation or does not parse.
    static func durations(of data: [UInt8]) -> [Int]? {
        data.withUnsafeBufferPointer { buffer -> [Int]? in
            var webp = WebPData(bytes: buffer.baseAddress, size: buffer.count)
            guard let demuxer = WebPDemux(&webp) else { return nil }
            defer { WebPDemuxDelete(demuxer) }
            guard WebPDemuxGetI(demuxer, WEBP_FF_FORMAT_FLAGS) & UInt32(ANIMATION_FLAG.rawValue) != 0 else {
                return nil
            }
            var iterator = WebPIterator()
            guard WebPDemuxGetFrame(demuxer, 1, &iterator) != 0 else { return nil }
            defer { WebPDemuxReleaseIterator(&iterator) }
            var durations: [Int] = []
            repeat { durations.append(Int(iterator.duration)) } while WebPDemuxNextFrame(&iterator) != 0
            return durations
        }
    }
}
