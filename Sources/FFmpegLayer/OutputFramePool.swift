internal import CFFmpeg
import ConvertCore

/// Owns an `AVBufferPool` (`av_buffer_pool_init`) of `yuv420p` pictures of one size, released
/// with `av_buffer_pool_uninit` (a buffer a frame still holds stays valid until its last unref).
///
/// Why a pool: ``LUTToneMapper`` writes a fresh 3 MB picture per 1080p frame. Allocating each with
/// `av_frame_get_buffer` costs its page faults every frame, and once the table's sampling has
/// freed large blocks, glibc's raised mmap threshold serves them from fragmented heap arenas
/// (measured: peak RSS 127 → 416 MiB on a 112-frame PQ clip). The filter graph releases each
/// picture after the encoder has it, and the pool hands the same buffers out again.
package final class OutputFramePool {
    private var pool: OpaquePointer?
    package let width: Int, height: Int
    private let linesizes: (Int32, Int32, Int32)
    private let offsets: (Int, Int)

    /// Rows are aligned to 64 bytes for the SIMD code of the filters and encoders downstream.
    private static let alignment = 64

    package init(width: Int, height: Int, path: String) throws(ConvertError) {
        func aligned(_ bytes: Int) -> Int { (bytes + Self.alignment - 1) / Self.alignment * Self.alignment }
        let luma = aligned(width)
        let chroma = aligned((width + 1) / 2)
        let chromaRows = (height + 1) / 2
        let size = luma * height + 2 * chroma * chromaRows + Self.alignment
        guard let pool = av_buffer_pool_init(size, nil) else {
            throw ConvertError(code: .internalMemory, message: "Out of memory.", path: path)
        }
        self.pool = pool
        self.width = width
        self.height = height
        linesizes = (Int32(luma), Int32(chroma), Int32(chroma))
        offsets = (luma * height, luma * height + chroma * chromaRows)
    }

    deinit { av_buffer_pool_uninit(&pool) }

    /// Gives the (empty) `frame` a pooled picture, with the format, size and properties of a
    /// `yuv420p` version of `source` (timing, colour tags, side data).
    package func attach(to frame: Frame, propertiesOf source: Frame, path: String) throws(ConvertError) {
        try frame.withUnsafePointer { (target) throws(ConvertError) in
            let copied = source.withUnsafePointer { av_frame_copy_props(target, $0) }
            try FFmpeg.check(copied, "copy frame properties", path: path, category: .internal)
            guard let buffer = av_buffer_pool_get(pool), let data = buffer.pointee.data else {
                throw ConvertError(code: .internalMemory, message: "Out of memory.", path: path)
            }
            target.pointee.format = AV_PIX_FMT_YUV420P.rawValue
            target.pointee.width = Int32(width)
            target.pointee.height = Int32(height)
            target.pointee.buf.0 = buffer
            target.pointee.data.0 = data
            target.pointee.data.1 = data + offsets.0
            target.pointee.data.2 = data + offsets.1
            target.pointee.linesize.0 = linesizes.0
            target.pointee.linesize.1 = linesizes.1
            target.pointee.linesize.2 = linesizes.2
            // As av_frame_get_buffer does: a video frame's extended_data is its own data array.
            let planes = UnsafeMutableRawPointer(target) + MemoryLayout<AVFrame>.offset(of: \AVFrame.data)!
            target.pointee.extended_data = planes.assumingMemoryBound(to: UnsafeMutablePointer<UInt8>?.self)
        }
    }
}
