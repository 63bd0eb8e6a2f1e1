import ConvertCore

/// A request to make a video at most a given number of bytes: an MP4 with H.264 video and AAC
/// sound. The target is a ceiling: a source that fits and plays everywhere is copied; one that
/// must be re-encoded gets the normal quality (CRF 23, as `send-to-windows`) when that fits, and
/// only a clip that needs more bits than the target allows is encoded up to it, in one encode.
/// Nor is the output larger than the input while a smaller re-encode keeps the picture.
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
    /// What happens to a phone's slow motion (see ``SlowMotionChoice``); flattened by default,
    /// as for a video meant to be shared: the target then budgets the flattened timeline (its
    /// duration and frames), not the file's. Not flattened in a cut (`start`/`duration`).
    public var slowMotion = SlowMotionChoice.flatten
    /// The most pixels a decoded frame may have: a clip that must be re-encoded and is larger is
    /// refused with `input.too-many-pixels` before any file is created (see ``PixelLimit``). A
    /// copy never decodes, so it is not limited.
    public var maxPixels = PixelLimit.defaultMaxPixels
    /// The tallest picture the output may have (`--max-height`); nil lets the planner choose from
    /// the target and, for a tight one, from how hard the picture is to code.
    public var maxHeight: Int?
    /// Multiplies the first target encode's bitrate. Tests raise it so that it really overshoots
    /// and the measured-correction retry runs on a real encode; always 1 otherwise.
    var firstBitrateFactor: Double = 1
    /// Runs the normal-quality encode to its end even when its first frames show it cannot fit.
    /// Tests set it so that the path from an over-target quality encode runs on a real encode.
    var alwaysTriesQuality = false
    /// Where each encode's packet count is recorded; tests read it to count the encodes a job
    /// cost. nil otherwise.
    var encodeLog: EncodeLog?

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
    /// ``VideoSizePlanner``. A source that already fits and can be copied is remuxed. Otherwise,
    /// when the target is ample, the normal quality (x264 CRF 23) is encoded while its size is
    /// projected from the packets written: when it fits, it is the output; as soon as the
    /// projection shows it cannot, it stops and one encode at x264's average bitrate (with a VBV
    /// cap) spends the target instead, so a clip costs about one encode either way. A tight
    /// target goes to that encode at once. The output is measured; only in the rare case it is
    /// over is it encoded again at a corrected bitrate. The ceiling is the input's own size too
    /// when that is smaller and a re-encode can stay under it. An impossible target fails with a
    /// `.request` error naming the smallest reachable size, before anything is written. A phone's
    /// slow motion is flattened as `convert` flattens it (``VideoCompressRequest/slowMotion``), and
    /// then the size is planned for the flattened output's duration and frames. Progress
    /// stages are `encode` and `retry` (`remux` for a copy). The job runs on the threads of `limits`.
    public static func compress(_ request: VideoCompressRequest, limits: ConversionLimits = .shared)
        -> ConversionJob
    {
        ConversionJob.start(path: request.input, admission: limits.admission) { reporter in
            try await runBlocking(on: limits.codec) { flag in
                try VideoCompressor.run(request, cancellation: flag, reporter: reporter)
            }
        }
    }
}

extension VideoConverter {
    /// What ``compress(_:limits:)`` would do with `request`, without writing anything: copy,
    /// re-encode (and at what bitrate, size and frame rate), or nothing because the target
    /// cannot be reached. Reads the source like `compress` does (its audio packets are counted),
    /// on a codec thread of `limits`.
    public static func previewCompression(_ request: VideoCompressRequest, limits: ConversionLimits = .shared)
        async throws(ConvertError) -> VideoCompressPreview
    {
        do {
            return try await runBlocking(on: limits.codec) { flag in
                try VideoCompressor.preview(request, cancellation: flag)
            }
        } catch {
            throw error.naming(request.input)
        }
    }
}
