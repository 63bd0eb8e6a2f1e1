import ConvertCore

/// A request to turn an animated AVIF's image sequence into an animated WebP
/// (`convert animation.avif --to webp`): every frame with its own timing, looping forever as
/// AVIF animations do. The photo engine reads an AVIF's still image only; its frames are an AV1
/// movie track, which the video engine decodes. Any clip FFmpeg decodes is taken the same way
/// (every frame, no sound), which suits short ones: an animated WebP stores each frame whole.
public struct AnimatedWebPRequest: Sendable, Equatable {
    /// The animated AVIF.
    public var input: String
    /// Where to write.
    public var output: OutputLocation
    /// The WebP quality, 0...100 (ignored when ``lossless``).
    public var quality: Int
    /// Whether the frames are encoded losslessly.
    public var lossless: Bool
    /// The most pixels a decoded frame may have (see ``PixelLimit``).
    public var maxPixels: Int

    /// Creates a request; `quality` must be within 0...100.
    public init(
        input: String, output: OutputLocation = OutputLocation(), quality: Int = 85, lossless: Bool = false,
        maxPixels: Int = PixelLimit.defaultMaxPixels
    ) {
        precondition((0...100).contains(quality), "a WebP quality is within 0...100")
        self.input = input
        self.output = output
        self.quality = quality
        self.lossless = lossless
        self.maxPixels = maxPixels
    }
}
