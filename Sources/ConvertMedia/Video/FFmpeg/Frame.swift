internal import CFFmpeg
import ConvertCore

/// Owns an `AVFrame` (`av_frame_alloc`), freed with `av_frame_free`.
final class Frame {
    let pointer: UnsafeMutablePointer<AVFrame>

    init() throws(ConvertError) {
        guard let pointer = av_frame_alloc() else {
            throw ConvertError(.internal, key: "internal.memory", message: "Out of memory.")
        }
        self.pointer = pointer
    }

    deinit {
        var owned: UnsafeMutablePointer<AVFrame>? = pointer
        av_frame_free(&owned)
    }

    /// Drops the frame's buffers so it can be reused.
    func unref() { av_frame_unref(pointer) }
}
