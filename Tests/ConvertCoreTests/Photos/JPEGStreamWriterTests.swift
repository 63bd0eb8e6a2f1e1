import Testing

@testable import ConvertCore

/// The streaming JPEG writer's life cycle on the paths a damaged photo takes: abandoned half way
/// (its stream grown past its first buffer, then freed unfinished: with jpeg_mem_dest that freed
/// the first buffer twice, glibc's "double free or corruption"), finished early, fed too much.
@Suite("Streaming JPEG writer")
struct JPEGStreamWriterTests {
    /// A band of noise (which codes to about a byte a pixel, so the stream grows quickly).
    static func noise(width: Int, height: Int, seed: UInt64) -> YCbCr420Image {
        var state = seed
        func next() -> UInt8 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return UInt8(truncatingIfNeeded: state >> 56)
        }
        let luma = (0..<width * height).map { _ in next() }
        let chroma = (0..<((width + 1) / 2) * ((height + 1) / 2)).map { _ in next() }
        let image = YCbCr420Image(width: width, height: height)
        luma.withUnsafeBufferPointer { y in
            chroma.withUnsafeBufferPointer { c in
                let picture = HEVCPicture(
                    planes: [y.baseAddress!, c.baseAddress!, c.baseAddress!],
                    strides: [width, (width + 1) / 2, (width + 1) / 2],
                    bitDepth: 8, width: width, height: height, fullRange: true, matrix: 6)
                image.paste(picture, x: 0, y: 0)
            }
        }
        return image
    }

    @Test("a writer freed after its stream grew, unfinished, frees each buffer once", arguments: [1, 3, 7])
    func abandonedAfterGrowth(bands: Int) throws {
        for _ in 0..<20 {
            let writer = try JPEGStreamWriter(width: 1000, height: 128 * 8, quality: 95)
            for index in 0..<bands { try writer.add(Self.noise(width: 1000, height: 128, seed: UInt64(index))) }
            #expect(writer.rowsAdded == 128 * bands)
        }
    }

    @Test(
        "finishing before every row is in, or adding rows past the picture, is an error and the writer stays usable to free"
    )
    func misuseIsAnError() throws {
        let writer = try JPEGStreamWriter(width: 640, height: 256, quality: 85)
        try writer.add(Self.noise(width: 640, height: 128, seed: 1))
        expectConvertError(.encodeFailed) { _ = try writer.finish() }
        try writer.add(Self.noise(width: 640, height: 128, seed: 2))
        expectConvertError(.encodeFailed) { try writer.add(Self.noise(width: 640, height: 2, seed: 3)) }
        let stream = try writer.finish()
        #expect(stream.starts(with: [0xFF, 0xD8]) && stream.suffix(2) == [0xFF, 0xD9])
        #expect(stream.count > 64 * 1024, "the stream outgrew its first buffer: \(stream.count) B")
    }
}
