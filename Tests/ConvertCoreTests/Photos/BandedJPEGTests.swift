import Foundation
import Testing

@testable import ConvertCore

/// heic-to-jpg's direct path encodes a grid one band of tiles at a time: the stream must be, byte
/// for byte, the one TurboJPEG makes of the whole picture's planes (which HeifYCbCrDecoderTests
/// checks against libheif), for every transform, overhang and odd size.
@Suite("HEIC grids encoded to JPEG band by band")
struct BandedJPEGTests {
    /// The whole picture's planes, decoded as the direct path did before bands, encoded by TurboJPEG.
    static func wholeStream(_ file: HeifFile, quality: Int) throws -> [UInt8] {
        let decoded = try #require(
            try HeifYCbCrDecoder.decode(
                file, item: file.primaryID, threads: 2, maxPixels: PixelLimit.defaultMaxPixels, output: .jpeg,
                cancellation: CancellationFlag()))
        let encoder = try TurboJPEGHandle.compressor()
        return try decoded.image.withPlanes { (planes, strides) throws(ConvertError) in
            try encoder.encodeYUV420(
                planes: planes, strides: strides, width: decoded.image.width, height: decoded.image.height,
                quality: quality)
        }
    }

    @Test(
        "the banded stream is the whole picture's; a picture whose first band would be odd is decoded whole",
        arguments: [
            ("generated:heif-bands/plain.heic", true), ("generated:heif-bands/irot1.heic", false),
            ("generated:heif-bands/irot2.heic", false), ("generated:heif-bands/irot3.heic", true),
            ("generated:heif-bands/imir0.heic", false), ("generated:heif-bands/imir1.heic", true),
            ("generated:heif-bands/even-irot2.heic", true), ("generated:heif-bands/even-imir0.heic", true),
            ("generated:heif-cameras/overhang-irot.heic", true), ("generated:heif-cameras/bt601-limited.heic", true),
            ("generated:heif-cameras/ten-bit.heic", true), ("generated:heif-cameras/single-709.heic", false),
            ("photos/xiaomi.heic", true), ("photos/IMG_5195.HEIC", true), ("photos/IMG_3853.HEIC", true),
            ("photos/empty_icc.heic", false), ("photos/sample_still_photo.heic", false),
        ])
    func sameStream(fixture: String, banded: Bool) throws {
        let path =
            fixture.hasPrefix("generated:") ? Fixtures.generated(String(fixture.dropFirst(10))) : Fixtures.path(fixture)
        let file = try #require(try HeifFile.open(path: path))
        for quality in [85, 40] {
            let outcome = try #require(
                try HeifYCbCrDecoder.jpeg(
                    file, item: file.primaryID, threads: 2, maxPixels: PixelLimit.defaultMaxPixels, quality: quality,
                    cancellation: CancellationFlag()))
            let whole = try Self.wholeStream(file, quality: quality)
            switch outcome {
            case .stream(let stream, let width, let height):
                #expect(banded, "\(fixture) was banded")
                let size = try #require(file.displayedSize(file.primaryID))
                #expect(width == size.width && height == size.height)
                #expect(
                    stream.count == whole.count && stream == whole,
                    "\(fixture) q\(quality): \(stream.count) against \(whole.count) bytes")
            case .planes(let decoded):
                #expect(!banded, "\(fixture) was decoded whole")
                let encoder = try TurboJPEGHandle.compressor()
                let stream = try decoded.image.withPlanes { (planes, strides) throws(ConvertError) in
                    try encoder.encodeYUV420(
                        planes: planes, strides: strides, width: decoded.image.width, height: decoded.image.height,
                        quality: quality)
                }
                #expect(stream == whole)
            case .damagedTile:
                Issue.record("\(fixture): a tile did not decode")
            }
        }
    }

    @Test(
        "a grid with a damaged tile ends its bands early as damagedTile, whose planes and stream are all freed once",
        arguments: ["pug-flipped-1.heic", "IMG_5195-flipped.HEIC", "xiaomi-flipped.heic"])
    func damagedTile(name: String) throws {
        let file = try #require(try HeifFile.open(path: Fixtures.generated("crashers/" + name)))
        for threads in [1, 2] {
            let outcome = try HeifYCbCrDecoder.jpeg(
                file, item: file.primaryID, threads: threads, maxPixels: PixelLimit.defaultMaxPixels, quality: 85,
                cancellation: CancellationFlag())
            guard case .damagedTile? = outcome else {
                Issue.record("\(name), \(threads) threads: \(String(describing: outcome))")
                continue
            }
        }
    }

    @Test("the writer refuses a stream that is not whole: rows missing, or more rows than the picture has")
    func writerMisuse() throws {
        let band = YCbCr420Image(width: 32, height: 16)
        band.fill(luma: 100, chroma: 128)
        let short = try JPEGStreamWriter(width: 32, height: 40, quality: 85)
        try short.add(band)
        expectConvertError(.encodeFailed) { try short.finish() }
        let long = try JPEGStreamWriter(width: 32, height: 20, quality: 85)
        try long.add(band)
        expectConvertError(.encodeFailed) { try long.add(band) }
        let exact = try JPEGStreamWriter(width: 32, height: 32, quality: 85)
        try exact.add(band)
        try exact.add(band)
        let stream = try exact.finish()
        // djpeg, not our reader, decodes it: 32x32.
        let path = FileManager.default.temporaryDirectory.appendingPathComponent(
            "banded-\(UUID().uuidString.prefix(8)).jpg")
        defer { try? FileManager.default.removeItem(at: path) }
        try Data(stream).write(to: path)
        let decoded = try PhotoReference.run("djpeg", ["-pnm", path.path])
        try #require(decoded.status == 0)
        #expect(decoded.output.starts(with: Array("P6\n32 32\n255\n".utf8)))
    }
}

extension YCbCr420Image {
    /// Sets every sample of an 8-bit picture (padding included): luma to `luma`, both chroma
    /// planes to `chroma`.
    func fill(luma: UInt8, chroma: UInt8) {
        withRawPlanes { planes, strides in
            let sizes = [strides[0] * ((height + 1) / 2 * 2), strides[1] * chromaHeight, strides[2] * chromaHeight]
            for (index, plane) in planes.enumerated() {
                UnsafeMutableRawPointer(mutating: plane).initializeMemory(
                    as: UInt8.self, repeating: index == 0 ? luma : chroma, count: sizes[index])
            }
        }
    }
}
