/// A GIF or an animated WebP opened to read its frames one canvas at a time (8-bit RGBA), for
/// a still made of one frame or an animated output made of all of them.
enum AnimatedPicture {
    case gif(GIFAnimation)
    /// An animated WebP, with each frame's duration as its headers give it.
    case webp(WebPAnimationReader, durations: [Int])

    /// `data` opened for its frames: any GIF (one frame or more), a WebP only when animated
    /// (nil for a still WebP and every other format). A canvas over `maxPixels` is refused before
    /// it is allocated.
    static func open(_ data: [UInt8], format: PhotoFormat, maxPixels: Int, path: String) throws(ConvertError)
        -> AnimatedPicture?
    {
        switch format {
        case .gif:
            return .gif(try GIFAnimation(data, maxPixels: maxPixels, path: path))
        case .webp:
            guard let durations = WebPAnimationReader.durations(of: data) else { return nil }
            let canvas = try WebPCodec.header(data, path: path)
            try PixelLimit.check(width: canvas.width, height: canvas.height, limit: maxPixels, path: path)
            guard let reader = WebPAnimationReader(data) else {
                throw ConvertError(
                    code: .inputCorrupt, message: "\(path) is damaged: its WebP animation could not be read.",
                    path: path)
            }
            return .webp(reader, durations: durations)
        default:
            return nil
        }
    }

    /// The canvas size.
    var width: Int {
        switch self {
        case .gif(let gif): gif.width
        case .webp(let reader, _): reader.width
        }
    }

    /// The canvas height.
    var height: Int {
        switch self {
        case .gif(let gif): gif.height
        case .webp(let reader, _): reader.height
        }
    }

    /// The number of frames.
    var frameCount: Int {
        switch self {
        case .gif(let gif): gif.frameCount
        case .webp(let reader, _): reader.frameCount
        }
    }

    /// Its frames and length; nil for a one-frame GIF. Read from the headers already parsed.
    var summary: AnimationSummary? {
        switch self {
        case .gif(let gif): AnimationSummary(durations: gif.durations)
        case .webp(_, let durations): AnimationSummary(durations: durations)
        }
    }

    /// Calls `body` with each frame's number (from 0), canvas and duration in milliseconds, up to
    /// frame `last` (every frame when nil). A WebP frame whose data is damaged ends the walk with
    /// an input error.
    func forEachFrame(through last: Int? = nil, _ body: (Int, [UInt8], Int) throws(ConvertError) -> Void)
        throws(ConvertError)
    {
        switch self {
        case .gif(let gif):
            try gif.forEachFrame(through: last, body)
        case .webp(let reader, _):
            let end = min(reader.frameCount - 1, last ?? .max)
            guard end >= 0 else { return }
            for number in 0...end {
                guard let frame = reader.next() else {
                    throw ConvertError(code: .inputCorrupt, message: "A frame of the WebP animation is damaged.")
                }
                try body(number, frame.pixels, frame.duration)
            }
        }
    }

    /// Frame `index` (from 0) as an RGBA bitmap.
    func frame(_ index: Int) throws(ConvertError) -> Bitmap {
        var result: [UInt8] = []
        try forEachFrame(through: index) { number, canvas, _ in if number == index { result = canvas } }
        return Bitmap(width: width, height: height, channels: 4, samples: .eight(result), sourceBitDepth: 8)
    }
}
