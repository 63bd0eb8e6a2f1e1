/// The guard against animation bombs: small files whose frames imply enormous work.
///
/// ``PixelLimit`` bounds one canvas, which is enough for a still, but an animation kept animated
/// costs its canvas once per frame (libwebp's animation encoder compares whole canvases) and
/// about eight canvases of memory at once. A 480 kB WebP of 10,000 one-pixel frames on a
/// 16383 × 16383 canvas passes the pixel limit and would take 8.6 GB and hours. So an animation
/// re-encoded as an animation may have a canvas of at most a quarter of the pixel limit (67 MP
/// by default: about 2 GB at eight canvases) and at most sixteen times the pixel limit over all
/// its frames (4.3 billion pixels by default: 2,000 frames of 1080p, about a quarter of an hour
/// of libwebp's work on two cores). Both scale with ``PhotoRequest/maxPixels``, the one knob for a
/// trusted file. One frame of such an animation still converts as a still.
public enum AnimationLimit {
    /// How many times the pixel limit an animation may cost over all its frames.
    public static let framesOfPixelLimit = 16
    /// The share of the pixel limit an animation's canvas may have (one in this many).
    public static let canvasShareOfPixelLimit = 4

    /// Throws `input.too-many-pixels` unless an animation of `frames` frames on a `width`×`height`
    /// canvas (the larger of the input's and the output's) may be re-encoded as an animation
    /// under `maxPixels`.
    package static func check(width: Int, height: Int, frames: Int, maxPixels: Int, path: String)
        throws(ConvertError)
    {
        let canvas = Int64(width) * Int64(height)
        let work = canvas.multipliedReportingOverflow(by: Int64(frames))
        let canvasLimit = Int64(maxPixels / canvasShareOfPixelLimit)
        let workLimit = Int64(maxPixels).multipliedReportingOverflow(by: Int64(framesOfPixelLimit))
        let workLimitValue = workLimit.overflow ? Int64.max : workLimit.partialValue
        guard canvas > canvasLimit || work.overflow || work.partialValue > workLimitValue else { return }
        throw ConvertError(
            code: .inputTooManyPixels,
            message:
                "\(path) is an animation of \(frames) frames on a \(width)x\(height) canvas. Kept animated, it "
                + "would take \(pixelText(work.overflow ? .max : work.partialValue)) pixels of work (the limit is "
                + "\(pixelText(workLimitValue))) on a canvas of \(pixelText(canvas)) pixels (the limit is "
                + "\(pixelText(canvasLimit))). Convert one frame (--frame N, or a still format), or raise the "
                + "pixel limit if the file is trusted.",
            path: path)
    }

    /// Whether ``check(width:height:frames:maxPixels:path:)`` passes.
    package static func allows(width: Int, height: Int, frames: Int, maxPixels: Int) -> Bool {
        (try? check(width: width, height: height, frames: frames, maxPixels: maxPixels, path: "")) != nil
    }

    /// "2.68 trillion", "67.1 million": a count of pixels a person reads at a glance.
    static func pixelText(_ pixels: Int64) -> String {
        let units: [(Double, String)] = [(1e12, "trillion"), (1e9, "billion"), (1e6, "million")]
        let value = Double(pixels)
        for (scale, name) in units where value >= scale {
            return "\(Double((value / scale * 100).rounded()) / 100) \(name)"
        }
        return String(pixels)
    }
}
