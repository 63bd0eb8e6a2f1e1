import Foundation
import Testing

@testable import ConvertCore
@testable import ConvertMedia

/// JPEG → JPEG at full size through ``JPEGTranscoder`` (band by band, file to file): the picture
/// turned upright for every EXIF orientation, other samplings brought to 4:2:0, metadata and
/// profile as the general path carries them, damage noted or refused, and files it does not take
/// (a gain map, a resize) left to the general path. Every result is read back by ffmpeg, ffprobe
/// or exiftool.
@Suite("Streamed JPEG → JPEG")
struct StreamedJPEGTests {
    static func convert(_ source: String, into directory: URL, _ adjust: (inout PhotoRequest) -> Void = { _ in })
        async throws(ConvertError) -> JobResult
    {
        var request = PhotoRequest(inputPath: source, format: .jpeg, outputDirectory: directory.path)
        adjust(&request)
        return try await PhotoRun.convert(request)
    }

    /// exiftool's value of `tag` (`-s3`, numbers as numbers).
    static func tag(_ tag: String, of path: String) throws -> String {
        String(decoding: try PhotoReference.run("exiftool", ["-s3", "-n", "-\(tag)", path]).output, as: UTF8.self)
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test("every EXIF orientation comes out upright, 1800x1200, tagged 1", arguments: 1...8)
    func orientation(_ value: Int) async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let source = Fixtures.path("photos/orientation/Landscape_\(value).jpg")
        let upright = Fixtures.path("photos/orientation/Landscape_1.jpg")
        let output = try #require(try await Self.convert(source, into: directory).outputs.first).path
        #expect(try Self.tag("ImageSize", of: output) == "1800 1200")
        #expect(try Self.tag("Orientation", of: output) == "1")
        // The files are separate encodes of one picture: a wrong turn or mirror scores near 0.3.
        let ssim = try #require(try MediaTool.ssim(output, reference: upright))
        #expect(ssim > 0.94, "orientation \(value): SSIM \(ssim) against the upright picture")
    }

    @Test("a turned 4:2:2, 4:4:0 or 4:4:4 JPEG comes out upright too", arguments: ["yuvj422p", "yuvj440p", "yuvj444p"])
    func turnedSampling(_ pixelFormat: String) async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        // The upright landscape re-encoded by ffmpeg at this sampling, turned back by EXIF orientation 8.
        let upright = Fixtures.path("photos/orientation/Landscape_1.jpg")
        let source = directory.appendingPathComponent("turned.jpg").path
        let made = try PhotoReference.run(
            "ffmpeg",
            ["-v", "error", "-y", "-i", upright, "-vf", "transpose=1", "-pix_fmt", pixelFormat, "-q:v", "2", source])
        #expect(made.status == 0)
        #expect(
            try PhotoReference.run("exiftool", ["-q", "-overwrite_original", "-n", "-Orientation=8", source]).status
                == 0)
        let out = directory.appendingPathComponent("out")
        let output = try #require(try await Self.convert(source, into: out).outputs.first).path
        #expect(try Self.tag("ImageSize", of: output) == "1800 1200")
        #expect(try Self.tag("YCbCrSubSampling", of: output) == "2 2")
        let ssim = try #require(try MediaTool.ssim(output, reference: upright))
        #expect(ssim > 0.94, "\(pixelFormat): SSIM \(ssim) against the upright picture")
    }

    @Test("the samplings the transcoder turns, and the planes it holds for them")
    func turnableSamplings() {
        func source(_ sampling: [(h: Int, v: Int)]) -> JPEGTranscoder.Source {
            JPEGTranscoder.Source(
                width: 4000, height: 3000, components: 3, isYCbCr: true, isProgressive: false, precision: 8,
                sampling: sampling)
        }
        #expect(source([(2, 2), (1, 1), (1, 1)]).planeBytesPerPixel == 1.5)
        #expect(source([(2, 1), (1, 1), (1, 1)]).planeBytesPerPixel == 2)
        #expect(source([(1, 1), (1, 1), (1, 1)]).planeBytesPerPixel == 3)
        #expect(source([(2, 1), (1, 1), (1, 1)]).isTranscodable(orientation: 6))
        #expect(source([(1, 2), (1, 1), (1, 1)]).isTranscodable(orientation: 6))
        // 4:1:1 and chroma sampled above luma are left to the general path when turned.
        #expect(!source([(4, 1), (1, 1), (1, 1)]).isTranscodable(orientation: 6))
        #expect(source([(4, 1), (1, 1), (1, 1)]).isTranscodable(orientation: 1))
        #expect(!source([(1, 1), (2, 2), (2, 2)]).isTranscodable(orientation: 3))
    }

    @Test("a 4:2:2 camera JPEG becomes 4:2:0 and matches ffmpeg's decode of the source")
    func otherSampling() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let source = Fixtures.path("photos/DSCN0010.jpg")
        #expect(try Self.tag("YCbCrSubSampling", of: source) == "2 1")
        let output = try #require(try await Self.convert(source, into: directory) { $0.quality = 95 }.outputs.first)
            .path
        #expect(try Self.tag("YCbCrSubSampling", of: output) == "2 2")
        let psnr = PhotoReference.psnr(try PhotoReference.ffmpegRGB(output), try PhotoReference.ffmpegRGB(source))
        #expect(psnr > 34, "PSNR \(psnr) dB")
    }

    @Test("a 4:2:0 JPEG keeps its chroma samples: closer to the source than the RGB round trip")
    func chromaKept() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let source = Fixtures.path("photos/tokyo.jpg")
        let streamed = try #require(try await Self.convert(source, into: directory).outputs.first).path
        // The general path: an RGB bitmap encoded by TurboJPEG at the same quality.
        let decoded = try ImageDecoder.decode(path: source, options: DecodeOptions(), cancellation: CancellationFlag())
        let bitmap = try #require(decoded.frames.first).bitmap
        let viaRGB = directory.appendingPathComponent("rgb.jpg")
        try Data(try ImageEncoder.jpegBytes(bitmap, quality: 85, exif: nil, xmp: nil).bytes).write(to: viaRGB)
        let reference = try PhotoReference.ffmpegRGB(source)
        let ours = PhotoReference.psnr(try PhotoReference.ffmpegRGB(streamed), reference)
        let roundTrip = PhotoReference.psnr(try PhotoReference.ffmpegRGB(viaRGB.path), reference)
        #expect(ours >= roundTrip, "streamed \(ours) dB, RGB round trip \(roundTrip) dB")
    }

    @Test("GPS goes by default, the camera's tags and ICC profile stay")
    func metadata() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let source = Fixtures.path("photos/DSCN0010.jpg")
        #expect(try !Self.tag("GPSLatitude", of: source).isEmpty)
        let result = try await Self.convert(source, into: directory)
        let output = try #require(result.outputs.first).path
        #expect(try Self.tag("GPSLatitude", of: output).isEmpty)
        #expect(try Self.tag("Model", of: output) == Self.tag("Model", of: source))
        #expect(result.location == .removed)
        #expect(try Self.tag("ExifImageWidth", of: output) == "640")
    }

    @Test("a file cut short converts with the share missing; strict refuses it as truncated and writes nothing")
    func truncated() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let whole = try Data(contentsOf: URL(fileURLWithPath: Fixtures.path("photos/tokyo.jpg")))
        let cut = directory.appendingPathComponent("cut.jpg")
        try whole.prefix(whole.count / 2).write(to: cut)
        let out = directory.appendingPathComponent("out")
        try FileManager.default.createDirectory(at: out, withIntermediateDirectories: true)
        await expectConvertError(.inputTruncated) {
            _ = try await Self.convert(cut.path, into: out) { $0.strict = true }
        }
        #expect(PhotoRun.files(out).isEmpty)
        let result = try await Self.convert(cut.path, into: out)
        let note = try #require(result.notes.messages.first { $0.hasPrefix("the file ends early") })
        #expect(note.contains("% of the picture is missing"), "\(note)")
        #expect(PhotoRun.files(out) == ["cut.jpg"])
    }

    @Test("corrupt data is noted, and refused as corrupt when strict")
    func corrupt() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let input = Fixtures.path("generated/broken/corrupted.jpg")
        await expectConvertError(.inputCorrupt) {
            _ = try await Self.convert(input, into: directory) { $0.strict = true }
        }
        #expect(PhotoRun.files(directory).isEmpty)
        let result = try await Self.convert(input, into: directory)
        #expect(
            result.notes.messages.contains { $0.hasPrefix("corrupt data in the picture") }, "\(result.notes.messages)")
    }

    @Test("an Ultra HDR JPEG keeps its gain map: the general path takes files with other images")
    func gainMapLeftToGeneralPath() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let output = try #require(
            try await Self.convert(Fixtures.path("photos/hdr/pixel8-crop.jpg"), into: directory).outputs.first
        ).path
        let exif = try PhotoReference.exiftool(output)
        #expect(exif.contains("MPImage2") || exif.contains("HDRGainMap"), "no second image in the output")
    }

    @Test("the transcoder's working memory is a band, plus whole 4:2:0 planes only when turning")
    func workingBytes() {
        let source = JPEGTranscoder.Source(
            width: 16384, height: 12288, components: 3, isYCbCr: true, isProgressive: false, precision: 8,
            sampling: [(2, 2), (1, 1), (1, 1)])
        let pixels = Int64(16384 * 12288)
        #expect(source.workingBytes(orientation: 1) < 2_000_000)
        #expect(source.workingBytes(orientation: 6) > pixels * 3 / 2)
        #expect(source.workingBytes(orientation: 6) < pixels * 2)
        var progressive = source
        progressive.isProgressive = true
        #expect(progressive.workingBytes(orientation: 1) >= pixels * 3)
    }
}
