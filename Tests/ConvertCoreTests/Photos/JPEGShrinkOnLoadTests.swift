import Foundation
import Testing

@testable import ConvertCore
@testable import ConvertMedia

@Suite("JPEG shrink-on-load (DCT-scaled decode)", .serialized)
struct JPEGShrinkOnLoadTests {
    static let landscape = Fixtures.path("photos/orientation/Landscape_1.jpg")

    static func decode(_ path: String, maxLongEdge: Int? = nil, resize: PhotoResize? = nil) throws -> DecodedPhoto {
        var options = DecodeOptions()
        options.maxLongEdge = maxLongEdge
        options.resize = resize
        return try ImageDecoder.decode(path: path, options: options, cancellation: CancellationFlag())
    }

    static func pixels(_ bitmap: Bitmap) -> PhotoReference.Pixels {
        PhotoReference.Pixels(width: bitmap.width, height: bitmap.height, rgb: bitmap.eightBitSamples)
    }

    /// ffmpeg's own decode of `path`, cropped and Lanczos-scaled: a reference that shares no code
    /// with offconvert.
    static func reference(_ path: String, filter: String, in directory: URL) throws -> PhotoReference.Pixels {
        let output = directory.appendingPathComponent("reference-\(UUID().uuidString.prefix(6)).png").path
        try #require(try PhotoReference.run("ffmpeg", ["-v", "error", "-i", path, "-vf", filter, output]).status == 0)
        return try PhotoReference.ffmpegRGB(output)
    }

    @Test("the scale is the smallest TurboJPEG factor that still covers the output, and only from 2x down")
    func scaleChoice() {
        func scale(_ width: Int, _ height: Int, _ resize: PhotoResize?, _ longEdge: Int?) -> JPEGScale {
            JPEGScale.smallest(
                for: ResizePlan(sourceWidth: width, sourceHeight: height, resize: resize, maxLongEdge: longEdge))
        }
        #expect(JPEGScale.reductions.first == JPEGScale(numerator: 1, denominator: 8))
        #expect(JPEGScale.reductions.contains(JPEGScale(numerator: 1, denominator: 2)))
        #expect(scale(6720, 3780, nil, 1024) == JPEGScale(numerator: 1, denominator: 4))  // 1680 ≥ 1024 > 840
        #expect(scale(6720, 3780, nil, 840) == JPEGScale(numerator: 1, denominator: 8))
        #expect(scale(6720, 3780, nil, 841) == JPEGScale(numerator: 1, denominator: 4))
        #expect(scale(1800, 1200, nil, 900) == JPEGScale(numerator: 1, denominator: 2))
        #expect(scale(1800, 1200, nil, 901) == .full, "less than 2x: full-size decode")
        #expect(scale(1800, 1200, nil, 4000) == .full)
        // A crop keeps a smaller region: its own reduction decides (1200 → 300 is 4x).
        #expect(
            scale(1800, 1200, PhotoResize(width: 300, height: 300, fit: .crop), nil)
                == JPEGScale(numerator: 1, denominator: 4))
        // fill may enlarge: never scaled on load.
        #expect(scale(1800, 1200, PhotoResize(width: 3000, height: 3000, fit: .fill), nil) == .full)
    }

    @Test("--max-size 400 on an 1800x1200 JPEG decodes at 1/4 and is pixel-close to a full-size decode")
    func maxSize() throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let scaled = try Self.decode(Self.landscape, maxLongEdge: 400)
        #expect(scaled.decodeScale == JPEGScale(numerator: 1, denominator: 4))
        let bitmap = try #require(scaled.frames.first).bitmap
        #expect(bitmap.width == 400 && bitmap.height == 267)
        let full = try Self.decode(Self.landscape)
        #expect(full.decodeScale == .full)
        let fullBitmap = try Resampler.resize(try #require(full.frames.first).bitmap, width: 400, height: 267)
        let reference = try Self.reference(Self.landscape, filter: "scale=400:267:flags=lanczos", in: directory)
        let shrunkOnLoad = PhotoReference.psnr(Self.pixels(bitmap), reference)
        let fullSize = PhotoReference.psnr(Self.pixels(fullBitmap), reference)
        // Measured against ffmpeg: 37.7 dB for the DCT-scaled decode, 43.7 dB for the full-size one.
        #expect(shrunkOnLoad > 34, "shrink-on-load \(shrunkOnLoad) dB, full-size \(fullSize) dB")
        #expect(PhotoReference.psnr(Self.pixels(bitmap), Self.pixels(fullBitmap)) > 34)
    }

    @Test("a crop and a rotated picture shrink on load too, with the same output as a full-size decode")
    func cropAndOrientation() throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let crop = PhotoResize(width: 300, height: 300, fit: .crop)
        let cropped = try Self.decode(Self.landscape, resize: crop)
        #expect(cropped.decodeScale == JPEGScale(numerator: 1, denominator: 4))
        let bitmap = try #require(cropped.frames.first).bitmap
        try #require(bitmap.width == 300 && bitmap.height == 300)
        let reference = try Self.reference(
            Self.landscape, filter: "crop=1200:1200:300:0,scale=300:300:flags=lanczos", in: directory)
        #expect(PhotoReference.psnr(Self.pixels(bitmap), reference) > 34)

        // Landscape_6 is stored portrait (1200x1800) with Orientation 6: the plan is for the
        // upright 1800x1200 picture.
        let rotated = try Self.decode(Fixtures.path("photos/orientation/Landscape_6.jpg"), resize: crop)
        #expect(rotated.decodeScale == JPEGScale(numerator: 1, denominator: 4))
        let upright = try #require(rotated.frames.first).bitmap
        try #require(upright.width == 300 && upright.height == 300)
        // Separately compressed copies of one picture: ~30 dB apart when upright.
        #expect(PhotoReference.psnr(Self.pixels(upright), reference) > 24)
    }

    @Test("a conversion with --max-size writes the same size whether or not the decode was scaled")
    func conversion() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        for edge in [400, 1000] {
            let result = try await PhotoRun.convert(
                PhotoRequest(
                    inputPath: Self.landscape, format: .jpeg,
                    outputPath: directory.appendingPathComponent("\(edge).jpg").path,
                    maxLongEdge: edge))
            let info = try ImageProbe.probeBlocking(path: try #require(result.outputs.first).path)
            #expect(info.width == edge && info.height == Int((Double(edge) * 2 / 3).rounded()), "\(edge)")
        }
    }
}
