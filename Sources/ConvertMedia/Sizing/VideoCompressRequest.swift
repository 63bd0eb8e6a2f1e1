import ConvertCore
/// A request to make a video at most a given number of bytes: an MP4 with H.264 video and AAC
/// sound, encoded in two passes so it lands as close under the target as the codec allows.
public struct VideoCompressRequest: Sendable, Equatable {
    /// The input file.
    public var input: String
    /// The largest the output may be, in bytes. The output is never larger.
    public var targetBytes: Int64
    /// Keep the container's location tags. Off by default: a shared video does not say where it
    /// was made.
    public var keepLocation: Bool
    /// Where to write.
    public var output: OutputLocation
    /// Multiplies the first pass-2 bitrate. Tests raise it so that pass 2 really overshoots and
    /// the measured-correction retry runs on a real encode; always 1 otherwise.
    var firstBitrateFactor: Double = 1

    /// Creates a request for `input` under `targetBytes` bytes.
    public init(input: String, targetBytes: Int64, keepLocation: Bool = false, output: OutputLocation = OutputLocation()) {
        self.input = input
        self.targetBytes = targetBytes
        self.keepLocation = keepLocation
        self.output = output
    }

    /// E-mail attachments: 25 MB (25 × 10⁶ bytes), the smallest common provider limit.
    public static let emailTargetBytes: Int64 = 25_000_000
}

extension VideoConverter {
    /// Compresses a video to at most `request.targetBytes` bytes (MP4, H.264 + AAC).
    ///
    /// The source is probed (copied AAC is counted to the byte), the size is planned by
    /// ``VideoSizePlanner``, then x264 encodes in two passes with a VBV cap. The muxed file is
    /// measured; when it is over the target only the second pass is run again at a corrected
    /// bitrate. A source that already fits and can be copied is remuxed. An impossible target
    /// fails with a `.request` error naming the smallest reachable size, before anything is
    /// written. Progress stages are `pass 1/2`, `pass 2/2` and `retry`.
    public static func compress(_ request: VideoCompressRequest) -> ConversionJob {
        ConversionJob.start(path: request.input) { reporter in
            try await runBlocking { flag in
                try VideoCompressor.run(request, cancellation: flag, reporter: reporter)
            }
        }
    }
}
