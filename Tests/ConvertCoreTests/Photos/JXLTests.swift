import Foundation
import Testing

@testable import ConvertCore

/// JPEG XL in and out, checked with libjxl's own tools (djxl decodes, jxlinfo reads the header,
/// cjxl makes inputs offconvert did not write), ffmpeg and exiftool: never only our reader.
@Suite("JPEG XL", .serialized)
struct JXLTests {
    /// Decodes a JPEG XL with djxl to PNG, then to 8-bit RGB with ffmpeg.
    static func djxlRGB(_ path: String, in directory: URL) throws -> PhotoReference.Pixels {
        let png = directory.appendingPathComponent("djxl-\(UUID().uuidString.prefix(6)).png").path
        try #require(try PhotoReference.run("djxl", [path, png]).status == 0)
        return try PhotoReference.ffmpegRGB(png)
    }

    /// jxlinfo's description of a file.
    static func jxlinfo(_ path: String) throws -> String {
        let info = try PhotoReference.run("jxlinfo", [path])
        try #require(info.status == 0, "jxlinfo failed on \(path)")
        return String(decoding: info.output, as: UTF8.self)
    }

    /// 16-bit RGB samples of any image ffmpeg reads, little-endian.
    static func rgb48(_ path: String) throws -> Data {
        let decoded = try PhotoReference.run(
            "ffmpeg", ["-v", "error", "-i", path, "-f", "rawvideo", "-pix_fmt", "rgb48le", "-"])
        try #require(decoded.status == 0 && !decoded.output.isEmpty)
        return decoded.output
    }

    /// A 16-bit PNG from tokyo.jpg: converted to 16 bits first, then cropped and scaled to
    /// 320×240 in 16 bits, so that the low bytes carry information (a plain widening of 8-bit
    /// samples gives only multiples of 257).
    static func sixteenBitPNG(in directory: URL) throws -> String {
        let png = directory.appendingPathComponent("rgb16.png").path
        let made = try PhotoReference.run(
            "ffmpeg",
            [
                "-v", "error", "-y", "-i", Fixtures.path("photos/tokyo.jpg"),
                "-vf", "format=rgb48be,crop=400:300:0:0,scale=320:240:flags=lanczos", "-pix_fmt", "rgb48be",
                "-frames:v", "1", png,
            ])
        try #require(made.status == 0)
        return png
    }

    static func convert(
        _ source: String, lossless: Bool = false, quality: Int? = nil, metadata: MetadataPolicy = .shareSafe,
        in directory: URL
    ) async throws -> (path: String, result: JobResult) {
        let result = try await PhotoRun.convert(
            PhotoRequest(
                inputPath: source, format: .jxl, quality: quality, lossless: lossless, outputDirectory: directory.path,
                metadata: metadata))
        let output = try #require(result.outputs.first).path
        #expect(output.hasSuffix(".jxl"))
        return (output, result)
    }

    @Test("the test tools are installed (Scripts/install-deps --test)")
    func tools() {
        for tool in ["djxl", "jxlinfo", "cjxl"] { #expect(PhotoReference.has(tool), "\(tool) missing") }
    }

    /// Sources, whether lossless, and the smallest PSNR (dB) djxl's decode must reach against an
    /// independent decode of the source (infinity: identical).
    static let pairs: [(source: String, lossless: Bool, minimumPSNR: Double)] = [
        ("photos/orientation/Landscape_1.jpg", false, 36),
        ("photos/sample_still_photo.heic", false, 36),
        ("photos/tokyo.jpg", true, .infinity),
    ]

    @Test("djxl's decode of each output matches an independent decode of the source", arguments: 0..<pairs.count)
    func pixels(index: Int) async throws {
        let pair = Self.pairs[index]
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let source = Fixtures.path(pair.source)
        // A JPEG given --lossless would be recompressed, not decoded: go through a PNG of it.
        var input = source
        if pair.lossless {
            input = directory.appendingPathComponent("source.png").path
            try #require(try PhotoReference.run("ffmpeg", ["-v", "error", "-i", source, input]).status == 0)
        }
        let (output, _) = try await Self.convert(input, lossless: pair.lossless, in: directory)
        let info = try Self.jxlinfo(output)
        #expect(info.contains(pair.lossless ? "lossless" : "lossy"), "\(info)")
        let reference =
            source.hasSuffix(".heic")
            ? try PhotoReference.heifRGB(source, in: directory) : try PhotoReference.ffmpegRGB(source)
        let decoded = try Self.djxlRGB(output, in: directory)
        #expect(decoded.width == reference.width && decoded.height == reference.height)
        let psnr = PhotoReference.psnr(decoded, reference)
        #expect(psnr >= pair.minimumPSNR, "PSNR \(psnr) dB for \(pair.source)")
    }

    @Test("16-bit sources are written at 16 bits: lossless gives back every sample, lossy stays 16-bit")
    func sixteenBit() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let png = try Self.sixteenBitPNG(in: directory)
        let lossless = try await Self.convert(png, lossless: true, in: directory).path
        #expect(try Self.jxlinfo(lossless).contains("16-bit RGB"))
        let back = directory.appendingPathComponent("back.png").path
        try #require(try PhotoReference.run("djxl", [lossless, back]).status == 0)
        #expect(try Self.rgb48(back) == Self.rgb48(png))
        let lossyDirectory = directory.appendingPathComponent("lossy")
        try FileManager.default.createDirectory(at: lossyDirectory, withIntermediateDirectories: true)
        let lossy = try await Self.convert(png, in: lossyDirectory).path
        let info = try Self.jxlinfo(lossy)
        #expect(info.contains("lossy") && info.contains("16-bit RGB"), "\(info)")
    }

    @Test("a 10-bit HEIC is written at 16 bits with its colours, upright (its irot applied)")
    func tenBit() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let source = Fixtures.generated("heif-cameras/ten-bit.heic")
        let output = try await Self.convert(source, in: directory).path
        let info = try Self.jxlinfo(output)
        // 368x240 coded, irot 270°: 240x368 shown.
        #expect(info.contains("240x368") && info.contains("16-bit RGB"), "\(info)")
        let psnr = PhotoReference.psnr(
            try Self.djxlRGB(output, in: directory), try PhotoReference.heifRGB(source, in: directory))
        #expect(psnr >= 36, "PSNR \(psnr) dB")
    }

    @Test("EXIF orientation is applied to the pixels: the file is upright with orientation 1")
    func orientation() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let output = try await Self.convert(Fixtures.path("photos/orientation/Landscape_6.jpg"), in: directory).path
        #expect(try Self.jxlinfo(output).contains("1800x1200"))
        #expect(try PhotoReference.exiftool(output, ["-Orientation#"]).contains(": 1"))
        // The same picture, stored upright: Landscape_1.jpg.
        let upright = try PhotoReference.ffmpegRGB(Fixtures.path("photos/orientation/Landscape_1.jpg"))
        let psnr = PhotoReference.psnr(try Self.djxlRGB(output, in: directory), upright)
        // Two separately coded JPEGs of one picture: 28.7 dB for this output, far below for a turned one.
        #expect(psnr >= 27, "PSNR \(psnr) dB against the upright original")
    }

    @Test("a Display P3 photo is signalled as D65 P3 (not libjxl 0.7's misread white point); lossless keeps the ICC")
    func displayP3() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let output = try await Self.convert(Fixtures.path("photos/IMG_5195.HEIC"), in: directory).path
        let info = try Self.jxlinfo(output)
        #expect(info.contains("D65, P3 primaries, sRGB transfer function"), "\(info)")
        // Lossless stores the profile itself, so djxl's PNG carries Apple's profile byte for byte.
        let small = directory.appendingPathComponent("small").path
        try FileManager.default.createDirectory(atPath: small, withIntermediateDirectories: true)
        let source = try PhotoReference.exiftool(
            Fixtures.path("photos/IMG_5195.HEIC"), ["-ICC_Profile:ProfileDescription"])
        #expect(source.contains("Display P3"))
        var request = PhotoRequest(
            inputPath: Fixtures.path("photos/IMG_5195.HEIC"), format: .jxl, lossless: true, outputDirectory: small)
        request.maxLongEdge = 200
        let lossless = try #require(try await PhotoRun.convert(request).outputs.first).path
        #expect(try Self.jxlinfo(lossless).contains("ICC profile"))
        let back = directory.appendingPathComponent("p3.png").path
        try #require(try PhotoReference.run("djxl", [lossless, back]).status == 0)
        #expect(try PhotoReference.exiftool(back, ["-ICC_Profile:ProfileDescription"]).contains("Display P3"))
    }

    @Test("metadata policy: location removed by default, kept with --keep-location; camera tags kept (exiftool)")
    func metadata() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let source = Fixtures.path("photos/DSCN0010.jpg")
        #expect(try PhotoReference.exiftool(source).contains("GPSLatitude"))
        let (shared, result) = try await Self.convert(source, in: directory)
        #expect(result.notes.messages.contains("location removed"))
        let tags = try PhotoReference.exiftool(shared)
        #expect(tags.contains("NIKON") && tags.contains("DateTimeOriginal"), "\(tags)")
        #expect(!tags.contains("GPSLatitude"))
        let kept = directory.appendingPathComponent("kept")
        try FileManager.default.createDirectory(at: kept, withIntermediateDirectories: true)
        let (located, _) = try await Self.convert(source, metadata: .keepLocation, in: kept)
        #expect(try PhotoReference.exiftool(located).contains("GPSLatitude"))
    }

    @Test(
        "JPEG → JXL --lossless --keep-metadata: djxl gives back the original bytes, in a smaller file",
        arguments: ["photos/DSCN0010.jpg", "photos/tokyo.jpg", "photos/orientation/Landscape_6.jpg"])
    func recompression(name: String) async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let source = Fixtures.path(name)
        let (output, result) = try await Self.convert(source, lossless: true, metadata: .keep, in: directory)
        #expect(result.notes.messages.contains(PhotoConverter.recompressedNote))
        let back = directory.appendingPathComponent("back.jpg").path
        try #require(try PhotoReference.run("djxl", [output, back]).status == 0)
        #expect(try PhotoReference.run("cmp", [source, back]).status == 0, "djxl's JPEG differs from \(name)")
        let sizes = try [source, output].map {
            try #require(FileManager.default.attributesOfItem(atPath: $0)[.size] as? Int)
        }
        #expect(sizes[1] < sizes[0] * 9 / 10, "\(sizes[1]) bytes against \(sizes[0])")
    }

    @Test("JPEG → JXL --lossless under the default policy: the same coded picture, without the location")
    func recompressionShareSafe() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let source = Fixtures.path("photos/DSCN0010.jpg")
        let (output, result) = try await Self.convert(source, lossless: true, in: directory)
        #expect(
            result.notes.messages.contains("location removed")
                && result.notes.messages.contains(PhotoConverter.recompressedNote))
        let back = directory.appendingPathComponent("back.jpg").path
        try #require(try PhotoReference.run("djxl", [output, back]).status == 0)
        let tags = try PhotoReference.exiftool(back)
        #expect(!tags.contains("GPSLatitude") && tags.contains("NIKON"), "\(tags)")
        // Identical DCT data decodes to identical pixels.
        #expect(
            PhotoReference.psnr(try PhotoReference.ffmpegRGB(back), try PhotoReference.ffmpegRGB(source)) == .infinity)
    }

    @Test("a motion photo JPEG → JXL --lossless keeps the still only: djxl's JPEG has no MP4 and no motion pointers")
    func recompressionOfMotionPhoto() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let source = Fixtures.generated("motion-google.MP.jpg")
        let (output, result) = try await Self.convert(source, lossless: true, metadata: .keep, in: directory)
        #expect(result.notes.messages.contains(MotionPhotoEditor.motionNotKeptNote), "\(result.notes.messages)")
        let back = directory.appendingPathComponent("back.jpg").path
        try #require(try PhotoReference.run("djxl", [output, back]).status == 0)
        let clip = try #require(FileManager.default.contents(atPath: Fixtures.generated("motion-clip.mp4")))
        let sizes = try [source, back].map {
            try #require(FileManager.default.attributesOfItem(atPath: $0)[.size] as? Int)
        }
        #expect(sizes[1] <= sizes[0] - clip.count, "\(sizes)")
        let tags = try PhotoReference.exiftool(back, ["-ee"])
        #expect(
            !tags.contains("GCamera") && !tags.contains("Container") && !tags.contains("EmbeddedVideo")
                && tags.contains("DateTimeOriginal"), "\(tags)")
    }

    @Test(
        "JXL from cjxl (a bare codestream) and from offconvert (the container) is read: sniffed, probed, converted exactly"
    )
    func reading() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let png = try Self.sixteenBitPNG(in: directory)
        // cjxl's default (lossy, no metadata) is a bare codestream; lossless 16-bit needs a
        // level box, so a container.
        let bare = directory.appendingPathComponent("cjxl.jxl").path
        try #require(try PhotoReference.run("cjxl", [png, bare, "--num_threads=0"]).status == 0)
        #expect(try ImageDecoder.readHead(path: bare, count: 2) == [0xFF, 0x0A])
        #expect(try ImageDecoder.sniff(path: bare) == .jxl)
        let info = try ImageProbe.probeBlocking(path: bare)
        #expect(info.format == .jxl && info.width == 320 && info.height == 240 && info.bitDepth == 16 && !info.hasAlpha)
        let fromBare = try #require(
            try await PhotoRun.convert(PhotoRequest(inputPath: bare, format: .png, outputDirectory: directory.path))
                .outputs.first
        ).path
        let psnr = PhotoReference.psnr(try PhotoReference.ffmpegRGB(fromBare), try Self.djxlRGB(bare, in: directory))
        #expect(psnr >= 50, "PSNR \(psnr) dB against djxl's decode")
        let lossless = directory.appendingPathComponent("cjxl-lossless.jxl").path
        try #require(try PhotoReference.run("cjxl", [png, lossless, "-d", "0", "--num_threads=0"]).status == 0)
        let exact = directory.appendingPathComponent("exact")
        try FileManager.default.createDirectory(at: exact, withIntermediateDirectories: true)
        let result = try await PhotoRun.convert(
            PhotoRequest(inputPath: lossless, format: .png, outputDirectory: exact.path))
        let output = try #require(result.outputs.first).path
        #expect(try Self.rgb48(output) == Self.rgb48(png))
        let container = try await Self.convert(Fixtures.path("photos/DSCN0010.jpg"), in: directory).path
        #expect(try ImageDecoder.sniff(path: container) == .jxl)
        #expect(MediaSniffer.kind(of: try ImageDecoder.readHead(path: container, count: 64)) == .image(.jxl))
        let probed = try ImageProbe.probeBlocking(path: container)
        #expect(
            probed.width == 640 && probed.height == 480 && probed.hasEXIF && probed.make == "NIKON"
                && !probed.hasLocation)
    }

    @Test(
        "--quality maps to cjxl's distance: 90 → 1.0, 100 → 0.1, 30 → 6.4 + 1/6.25, capped at 15; lower quality, smaller file"
    )
    func quality() async throws {
        #expect(abs(JXLCodec.distance(quality: 90) - 1.0) < 1e-6)
        #expect(abs(JXLCodec.distance(quality: 100) - 0.1) < 1e-6)
        #expect(abs(JXLCodec.distance(quality: 30) - 6.4) < 1e-5)
        #expect(abs(JXLCodec.distance(quality: 29) - Float(6.4 + pow(2.5, 0.2) / 6.25)) < 1e-5)
        #expect(JXLCodec.distance(quality: 1) == 15)
        #expect(PhotoFormat.jxl.defaultQuality == 90)
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        var sizes: [Int] = []
        for quality in [50, 90] {
            let folder = directory.appendingPathComponent("q\(quality)")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            let output = try await Self.convert(Fixtures.path("photos/tokyo.jpg"), quality: quality, in: folder).path
            sizes.append(try #require(FileManager.default.attributesOfItem(atPath: output)[.size] as? Int))
        }
        #expect(sizes[0] < sizes[1], "q50 \(sizes[0]) bytes, q90 \(sizes[1])")
    }
}
