import Testing

@testable import ConvertCore

/// The animation bomb guard's bounds at the default pixel limit: a quarter of it for one canvas,
/// sixteen times it over all frames, checked without overflow.
@Suite("Animation limit")
struct AnimationLimitTests {
    static let limit = PixelLimit.defaultMaxPixels

    @Test(
        "2,000 frames of 1080p and an 8192-pixel square pass; one frame more, one row more, or an overflowing count do not",
        arguments: [
            (1920, 1080, 2070, true), (1920, 1080, 2072, false), (8191, 8191, 2, true), (8191, 8193, 2, false),
            (16383, 16383, 2, false), (1, 1, Int.max, false), (160, 120, 24, true),
        ])
    func bounds(width: Int, height: Int, frames: Int, allowed: Bool) {
        #expect(AnimationLimit.allows(width: width, height: height, frames: frames, maxPixels: Self.limit) == allowed)
    }

    @Test("a raised pixel limit raises both bounds")
    func raised() {
        #expect(!AnimationLimit.allows(width: 16383, height: 16383, frames: 10, maxPixels: Self.limit))
        #expect(AnimationLimit.allows(width: 16383, height: 16383, frames: 10, maxPixels: Self.limit * 4))
    }

    @Test("the refusal is an input error naming the frames, the canvas and both limits")
    func message() throws {
        let error = #expect(throws: ConvertError.self) {
            try AnimationLimit.check(width: 16383, height: 16383, frames: 10000, maxPixels: Self.limit, path: "b.webp")
        }
        #expect(error?.code == .inputTooManyPixels)
        #expect(
            error?.message
                == "b.webp is an animation of 10000 frames on a 16383x16383 canvas. Kept animated, it would take "
                + "2.68 trillion pixels of work (the limit is 4.29 billion) on a canvas of 268.4 million pixels "
                + "(the limit is 67.1 million). Convert one frame (--frame N, or a still format), or raise the "
                + "pixel limit if the file is trusted.")
    }
}
