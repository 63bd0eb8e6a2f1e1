import Foundation
import Testing

@testable import ConvertCore
@testable import ConvertMedia

@Suite("Hostile image data")
struct HostileImageTests {
    static func damaged(_ source: [UInt8], seed: UInt64, count: Int) -> [[UInt8]] {
        var generator = DamageNoise(seed: seed)
        return (0..<count).map { index in
            var bytes = Array(source.prefix(max(8, source.count - index * source.count / count / 2)))
            for _ in 0..<6 {
                let position = Int(generator.next() % UInt64(bytes.count))
                bytes[position] = UInt8(truncatingIfNeeded: generator.next())
            }
            return bytes
        }
    }

    @Test("damaged GIFs decode or throw .input, never crash")
    func gif() throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("t.gif").path
        try PhotoReference.run(
            "ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "testsrc=s=48x32:r=1", "-frames:v", "1", path])
        let source = Array(try #require(FileManager.default.contents(atPath: path)))
        #expect(try AnimatedPicture.gif(GIFAnimation(source, maxPixels: 1 << 20, path: path)).frame(0).width == 48)
        for bytes in Self.damaged(source, seed: 7, count: 300) {
            do {
                // Every frame, as an animated output reads them.
                let gif = try GIFAnimation(bytes, maxPixels: 1 << 20, path: path)
                try gif.forEachFrame { _, canvas, _ in #expect(canvas.count == gif.width * gif.height * 4) }
                let bitmap = try AnimatedPicture.gif(gif).frame(0)
                #expect(bitmap.width > 0)
            } catch {
                #expect(error.category == .input)
            }
        }
    }

    @Test("damaged JPEG, PNG and WebP data never crash the readers")
    func codecs() throws {
        let jpeg = Array(
            try #require(FileManager.default.contents(atPath: Fixtures.path("photos/orientation/Landscape_5.jpg"))))
        for bytes in Self.damaged(Array(jpeg.prefix(4000)), seed: 11, count: 200) {
            _ = JPEGMarkers.metadata(bytes)
            _ = JPEGMarkers.removing(markers: [0xE1], from: bytes)
            _ = MediaSniffer.kind(of: bytes).photoFormat
        }
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        for (name, format) in [("t.png", "png"), ("t.webp", "webp")] {
            let path = directory.appendingPathComponent(name).path
            try PhotoReference.run(
                "ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "testsrc=s=64x48:r=1", "-frames:v", "1", path])
            let source = Array(try #require(FileManager.default.contents(atPath: path)))
            for bytes in Self.damaged(source, seed: 13, count: 100) {
                do {
                    if format == "png" {
                        _ = try PNGCodec.decode(bytes, maxPixels: 1 << 20, path: path)
                    } else {
                        _ = try WebPCodec.decode(bytes, maxPixels: 1 << 20, path: path)
                    }
                } catch {
                    #expect(error.category == .input || error.category == .unsupported)
                }
            }
        }
    }
}
