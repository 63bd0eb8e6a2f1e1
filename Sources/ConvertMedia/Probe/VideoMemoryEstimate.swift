import ConvertCore

/// The memory one video job holds at its peak, estimated from the probe before it runs: what a
/// batch admits jobs by (`--memory-budget`) and what `--dry-run` says.
///
/// One model for every video command: the process and its libraries, the decoder's frames at the
/// source's size and depth (references and frame threads), and the encoder's at the output's size
/// (x264's look-ahead, B-frames and threads dominate: tens of frames), or for a GIF every frame the
/// palette is built from. Calibrated on peaks measured with `/usr/bin/time` (release build,
/// FFmpeg 5.1, 2 cores), each within 1.5x of this estimate: send-to-windows of 1080p HEVC 404 MiB,
/// of 4K 10-bit PQ HEVC 1382 MiB, of 8K HEVC (to 4K) 1618 MiB, of 4K AV1 1299 MiB; compress of
/// 1080p HEVC 539 MiB and of 8K (then written at 8K) 4269 MiB; VP9 1080p 374 MiB; a GIF of 4 s of
/// 1080p 162 MiB; a copy 74 MiB.
package enum VideoMemoryEstimate {
    /// What the job does with the picture.
    package enum Work: Sendable, Equatable {
        /// Packets copied, nothing decoded (a remux, sound alone).
        case copy
        /// Decoded, then encoded at `height` (displayed, aspect kept); `slowPreset` for x264's
        /// `medium` and slower (a bigger look-ahead than `faster`).
        case encode(height: Int, slowPreset: Bool)
        /// A GIF: `frames` frames of `width` pixels wide held for its palette.
        case gif(width: Int, frames: Int)
    }

    /// The process, FFmpeg's and the codecs' code and tables, before any frame.
    static let baseBytes: Int64 = 70 << 20
    /// Decoded frames a decoder holds, in frames of the source's size: references and one per
    /// frame thread (fitted: 9.5).
    static let decoderFrames = 9.5
    /// Frames x264 holds at `faster`, in frames of the output's size: full frames with their
    /// half-pel planes for references and threads, and the look-ahead's (fitted: 90); other
    /// encoders (libvpx, x265 at these sizes) measured within this.
    static let encoderFrames = 90.0
    /// At `medium` (compress, email, convert): a look-ahead of 40 frames instead of 20.
    static let slowEncoderFrames = 100.0

    /// The estimate in bytes for `video` (nil: a file without a picture, which costs the base).
    package static func bytes(for video: VideoTrackInfo?, work: Work) -> Int64 {
        guard let video, video.width > 0, video.height > 0 else { return baseBytes }
        let depth = (video.bitDepth ?? 8) > 8 ? 3.0 : 1.5
        let source = Double(video.width) * Double(video.height) * depth
        switch work {
        case .copy:
            return baseBytes
        case .encode(let height, let slow):
            let scale = min(1, Double(height) / Double(video.height))
            let output = source / depth * 1.5 * scale * scale
            return baseBytes + Int64(decoderFrames * source + (slow ? slowEncoderFrames : encoderFrames) * output)
        case .gif(let width, let frames):
            let scale = min(1, Double(width) / Double(video.width))
            // RGB frames at the GIF's width for the palette, and the decoder's at the source's.
            let frame = Double(video.width) * Double(video.height) * scale * scale * 3
            return baseBytes + Int64(decoderFrames * source + Double(frames) * frame)
        }
    }
}
