import Foundation
import Testing

@testable import ConvertMedia
@testable import FFmpegLayer

/// Pixel formats are FFmpeg's numbers with facts from its descriptor, never guessed from a name:
/// `nv12` holds a "12" and is 8-bit, `p010le` holds no "10" of the usual kind and is 10-bit.
@Suite("Video: typed pixel formats")
struct PixelFormatTests {
    static let cases: [(name: String, depth: Int, bytes: Int)] = [
        ("nv12", 8, 2), ("yuv420p", 8, 2), ("p010le", 10, 3), ("yuv420p10le", 10, 3), ("yuv420p12le", 12, 3),
    ]

    @Test("bit depth from FFmpeg's descriptor", arguments: cases)
    func bitDepth(_ format: (name: String, depth: Int, bytes: Int)) throws {
        let pixelFormat = try #require(PixelFormat(name: format.name))
        #expect(pixelFormat.bitDepth == format.depth)
        #expect(pixelFormat.isHighBitDepth == (format.depth > 8))
        #expect(pixelFormat.name == format.name)
        #expect(PixelFormat(rawValue: pixelFormat.rawValue) == pixelFormat)
    }

    @Test("unknown names and numbers are values, not crashes")
    func unknown() {
        #expect(PixelFormat(name: "no-such-format") == nil)
        #expect(PixelFormat.none.name == nil && PixelFormat.none.bitDepth == nil && !PixelFormat.none.isHighBitDepth)
        let future = PixelFormat(rawValue: 100_000)
        #expect(future.name == nil && future.bitDepth == nil)
        #expect(future.description == "pixel format 100000")
    }

    /// Formats a clip can be written in: FFmpeg's raw writers store `p010le` under another
    /// tag (NUT and AVI read back as `rgb555le`, Matroska refuses it), so `p010le` is checked
    /// above only.
    static let clipCases = cases.filter { $0.name != "p010le" }

    /// A real clip of each format (written by the ffmpeg tool, checked with ffprobe): the probe's
    /// bit depth, and with it the memory a video job reserves per decoded pixel, follows the
    /// format's samples. Before, `nv12` counted as 10-bit because its name contains "12".
    @Test("probed clips: bit depth and decoded bytes per pixel", arguments: clipCases)
    func probedClip(_ format: (name: String, depth: Int, bytes: Int)) async throws {
        let folder = try Fixtures.temporaryDirectory("pixfmt-\(format.name)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let clip = folder.appendingPathComponent("\(format.name).nut").path
        let made = try MediaTool.run(
            "ffmpeg",
            [
                "-v", "error", "-f", "lavfi", "-i", "testsrc2=size=64x48:rate=5:duration=0.4",
                "-pix_fmt", format.name, "-c:v", "rawvideo", clip,
            ])
        try #require(made.status == 0, "\(made.errors)")
        #expect(try MediaTool.probe(clip).video?.string("pix_fmt") == format.name)
        let info = try await MediaProbe.probe(path: clip)
        let video = try #require(info.container?.videoTracks.first?.video)
        #expect(video.pixelFormat == format.name)
        #expect(video.bitDepth == format.depth)
        #expect(video.decodedBytesPerPixel == format.bytes)
    }
}
