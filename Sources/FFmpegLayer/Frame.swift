internal import CFFmpeg
import ConvertCore

/// Owns an `AVFrame` (`av_frame_alloc`), freed with `av_frame_free`.
///
/// Its timing and picture description are Swift properties; the pointer is lent only where the
/// pixels or side data themselves are read (``withUnsafePointer(_:)``).
package final class Frame {
    private let pointer: UnsafeMutablePointer<AVFrame>

    package init() throws(ConvertError) {
        guard let pointer = av_frame_alloc() else {
            throw ConvertError(code: .internalMemory, message: "Out of memory.")
        }
        self.pointer = pointer
    }

    deinit {
        var owned: UnsafeMutablePointer<AVFrame>? = pointer
        av_frame_free(&owned)
    }

    /// Lends the `AVFrame` to `body`, which must not keep it.
    func withUnsafePointer<Result, Failure: Error>(
        _ body: (UnsafeMutablePointer<AVFrame>) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        try body(pointer)
    }

    /// Drops the frame's buffers so it can be reused.
    package func unref() { av_frame_unref(pointer) }

    /// Presentation time, in the time base of whoever produced the frame.
    package var pts: Int64 {
        get { pointer.pointee.pts }
        set { pointer.pointee.pts = newValue }
    }

    /// The decoder's best guess of the presentation time.
    package var bestEffortTimestamp: Int64 { pointer.pointee.best_effort_timestamp }

    package var width: Int32 { pointer.pointee.width }
    package var height: Int32 { pointer.pointee.height }
    /// The pixel format of a video frame.
    package var pixelFormat: PixelFormat { PixelFormat(rawValue: pointer.pointee.format) }
    package var sampleAspect: Rational { Rational(pointer.pointee.sample_aspect_ratio) }

    /// Lets the encoder choose the picture type (a decoder's I/P/B would force its own).
    package func clearPictureType() { pointer.pointee.pict_type = AV_PICTURE_TYPE_NONE }
}
