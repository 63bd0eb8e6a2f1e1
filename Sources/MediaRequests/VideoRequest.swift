import ConvertCore

/// A request to convert one video file.
public struct VideoRequest: Sendable, Equatable {
    /// The input file.
    public var input: String
    /// What the conversion is for.
    public var situation: VideoSituation
    /// The output container.
    public var container: VideoContainer
    /// The video codec; `nil` keeps the source's codec when the container allows it (copying the
    /// stream when nothing else changes, re-encoding with the same codec for ``crf`` or
    /// ``maxHeight``), else uses the container's default (H.264, or VP9 for WebM).
    public var codec: VideoCodec?
    /// Constant rate factor (quality; lower is better). `nil` uses the codec's default. Setting it
    /// forces a re-encode.
    public var crf: Int?
    /// The x264/x265 preset of a re-encode to H.264 or HEVC; `nil` uses the situation's
    /// (``VideoSituation/defaultPreset``). Naming one for VP9 or AV1 is refused (`request.preset`).
    public var preset: EncoderPreset?
    /// The largest displayed height in pixels; taller videos are scaled down keeping their aspect.
    public var maxHeight: Int?
    /// Keep the container's location tags (`©xyz`, `com.apple.quicktime.location.ISO6709`).
    /// Off by default: a shared video does not say where it was made.
    public var keepLocation: Bool
    /// Keep tags that identify the device or its owner (serial numbers, owner names, content
    /// identifiers), as photos do under `--keep-metadata`. Off by default.
    public var keepMetadata = false
    /// Where to write.
    public var output: OutputLocation
    /// The most pixels a decoded frame may have; a re-encode of a larger video is refused with
    /// `input.too-many-pixels` before any decoder is opened (see ``PixelLimit``). Passthrough
    /// remuxes never decode, so they are not limited.
    public var maxPixels: Int
    /// Where the output starts, in seconds of the input (0: its beginning). Cutting re-encodes,
    /// so the cut falls on the exact frame, not on the keyframe before it.
    public var start: Double = 0
    /// How long the output lasts, in seconds; `nil` runs to the end.
    public var duration: Double?
    /// The sound tracks kept.
    public var audioTracks = AudioTrackChoice.automatic
    /// Whether the subtitle tracks are kept where the container can carry them.
    public var subtitles = SubtitleChoice.keep
    /// The frame rate a raw `.h264`/`.hevc` stream (which has no timestamps) is timed by;
    /// `nil` uses the stream's own timing information, else 30 fps with a note. Other files
    /// keep their own timestamps.
    public var rawFrameRate: Double?
    /// What happens to a phone's slow motion (see ``SlowMotionChoice``); flattened by default,
    /// as a shared clip should play as the phone played it.
    public var slowMotion = SlowMotionChoice.flatten

    /// Creates a request.
    public init(
        input: String, situation: VideoSituation = .convert, container: VideoContainer = .mp4,
        codec: VideoCodec? = nil, crf: Int? = nil, maxHeight: Int? = nil, keepLocation: Bool = false,
        output: OutputLocation = OutputLocation(), maxPixels: Int = PixelLimit.defaultMaxPixels
    ) {
        self.input = input
        self.situation = situation
        self.container = container
        self.codec = codec
        self.crf = crf
        self.maxHeight = maxHeight
        self.keepLocation = keepLocation
        self.output = output
        self.maxPixels = maxPixels
    }

    /// The request for sending `input` to someone on Windows: MP4, H.264, AAC.
    public static func sendToWindows(_ input: String, output: OutputLocation = OutputLocation()) -> VideoRequest {
        VideoRequest(input: input, situation: .sendToWindows, container: .mp4, codec: .h264, output: output)
    }
}
