import ConvertCore

/// A request to make a video at most a given number of bytes: an MP4 with H.264 video and AAC
/// sound. The target is a ceiling: a source that fits and plays everywhere is copied; one that
/// must be re-encoded gets the normal quality (CRF 23, as `send-to-windows`) when that fits, and
/// only a clip that needs more bits than the target allows is encoded in two passes up to it.
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
    /// The unit the target was given in: messages give sizes in it.
    public var unit: SizeUnit = .megabyte
    /// Where the output starts, in seconds of the input (0: its beginning). A cut re-encodes, and
    /// the target then budgets only the part kept.
    public var start: Double = 0
    /// How long the output lasts, in seconds; `nil` runs to the end.
    public var duration: Double?
    /// The frame rate a raw `.h264`/`.hevc` stream is timed by; `nil` uses the stream's own
    /// timing information, else 30 fps with a note.
    public var rawFrameRate: Double?
    /// The most pixels a decoded frame may have: a clip that must be re-encoded and is larger is
    /// refused with `input.too-many-pixels` before any file is created (see ``PixelLimit``). A
    /// copy never decodes, so it is not limited.
    public var maxPixels = PixelLimit.defaultMaxPixels
    /// The tallest picture the output may have (`--max-height`); nil lets the planner choose from
    /// the target and, for a tight one, from how hard the picture is to code.
    public var maxHeight: Int?
    /// Multiplies the first pass-2 bitrate. Tests raise it so that pass 2 really overshoots and
    /// the measured-correction retry runs on a real encode; always 1 otherwise.
    var firstBitrateFactor: Double = 1
    /// Runs the normal-quality encode even when pass 1 says it cannot fit. Tests set it so that
    /// the path from an over-target quality encode to the 2-pass runs on a real encode.
    var alwaysTriesQuality = false

    /// Creates a request for `input` under `targetBytes` bytes.
    public init(
        input: String, targetBytes: Int64, keepLocation: Bool = false, output: OutputLocation = OutputLocation(),
        unit: SizeUnit = .megabyte
    ) {
        self.input = input
        self.targetBytes = targetBytes
        self.keepLocation = keepLocation
        self.output = output
        self.unit = unit
    }

    /// E-mail attachments: 25 MB (25 × 10⁶ bytes), the smallest common provider limit.
    public static let emailTargetBytes: Int64 = 25_000_000
}

extension VideoConverter {
    /// Compresses a video to at most `request.targetBytes` bytes (MP4, H.264 + AAC).
    ///
    /// The source is probed (copied AAC is counted to the byte) and the size is planned by
    /// ``VideoSizePlanner``. A source that already fits and can be copied is remuxed. Otherwise
    /// a first x264 pass at the normal quality (CRF 23) gathers statistics and shows what that
    /// quality costs: when it fits, the output is the normal-quality encode; when the clip needs
    /// more, the second pass spends the target's bitrate with a VBV cap. The muxed file is
    /// measured; when it is over the target only the second pass is run again at a corrected
    /// bitrate. An impossible target fails with a `.request` error naming the smallest reachable
    /// size, before anything is written. Progress stages are `pass 1/2`, `pass 2/2` and `retry`.
    public static func compress(_ request: VideoCompressRequest) -> ConversionJob {
        ConversionJob.start(path: request.input) { reporter in
            try await runBlocking(on: .codec) { flag in
                try VideoCompressor.run(request, cancellation: flag, reporter: reporter)
            }
        }
    }
}

extension VideoConverter {
    /// What ``compress(_:)`` would do with `request`, without writing anything: copy,
    /// re-encode (and at what bitrate, size and frame rate), or nothing because the target
    /// cannot be reached. Reads the source like `compress` does (its audio packets are counted).
    public static func previewCompression(_ request: VideoCompressRequest) async throws(ConvertError)
        -> VideoCompressPreview
    {
        do {
            return try await runBlocking(on: .codec) { flag in try VideoCompressor.preview(request, cancellation: flag)
            }
        } catch {
            throw error.naming(request.input)
        }
    }
}
