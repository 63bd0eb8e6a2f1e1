import ConvertCore

/// A request to turn part of a video into an animated GIF.
public struct GIFRequest: Sendable, Equatable {
    /// The input video.
    public var input: String
    /// Where the clip starts, in seconds.
    public var start: Double
    /// How long the clip is, in seconds (at most ``maximumDuration``); `nil` means up to the
    /// end of the video or ``maximumDuration``, whichever comes first.
    public var duration: Double?
    /// Frames per second (1...30).
    public var framesPerSecond: Int
    /// Width in pixels (16...1280); the height follows the aspect ratio.
    public var width: Int
    /// Where to write.
    public var output: OutputLocation
    /// The most pixels a decoded frame may have (see ``PixelLimit``).
    public var maxPixels: Int
    /// What happens to a phone's slow motion (see ``SlowMotionChoice``); flattened by default
    /// when the GIF starts at the beginning of the clip.
    public var slowMotion = SlowMotionChoice.flatten

    /// The longest GIF offconvert makes, in seconds: GIFs grow fast.
    public static let maximumDuration: Double = 30

    /// Above this length (seconds) a GIF made without `duration` gets a warning about its size.
    public static let longDefault: Double = 10

    /// Creates a request.
    public init(
        input: String, start: Double = 0, duration: Double? = nil, framesPerSecond: Int = 12,
        width: Int = 480, output: OutputLocation = OutputLocation(),
        maxPixels: Int = PixelLimit.defaultMaxPixels
    ) {
        self.input = input
        self.start = start
        self.duration = duration
        self.framesPerSecond = framesPerSecond
        self.width = width
        self.output = output
        self.maxPixels = maxPixels
    }
}
