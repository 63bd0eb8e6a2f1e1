import Foundation
import Testing

@testable import ConvertCore
@testable import ConvertMedia

@Suite("Photo conversion", .serialized)
struct PhotoConversionTests {
    /// Format pairs with the smallest PSNR (dB) the output must reach against an independent
    /// decode of the source: lossless pairs near-exact, lossy ones at a good-quality level.
    static let pairs: [(source: String, format: PhotoFormat, minimumPSNR: Double)] = [
        ("photos/sample_still_photo.heic", .jpeg, 34),
        ("photos/sample_still_photo.heic", .png, 50),
        ("photos/sample_still_photo.heic", .webp, 32),
        ("photos/orientation/Landscape_1.jpg", .png, 40),
        ("photos/orientation/Landscape_1.jpg", .jpeg, 34),
        ("photos/orientation/Landscape_1.jpg", .webp, 30),
        ("photos/orientation/Landscape_1.jpg", .heic, 30),
        ("photos/orientation/Landscape_1.jpg", .avif, 30),
    ]

    @Test("each format pair matches an independent reference decode", arguments: 0..<pairs.count)
    func formatPair(index: Int) async throws {
        let pair = Self.pairs[index]
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let source = Fixtures.path(pair.source)
        let result = try await PhotoRun.convert(
            PhotoRequest(inputPath: source, format: pair.format, quality: 90, outputDirectory: directory.path))
        let output = try #require(result.outputs.first).path
        #expect(output.hasSuffix("." + pair.format.fileExtension))
        let reference =
            source.hasSuffix(".heic")
            ? try PhotoReference.heifRGB(source, in: directory) : try PhotoReference.ffmpegRGB(source)
        let converted =
            pair.format == .heic || pair.format == .avif
            ? try PhotoReference.heifRGB(output, in: directory) : try PhotoReference.ffmpegRGB(output)
        #expect(converted.width == reference.width && converted.height == reference.height)
        let psnr = PhotoReference.psnr(converted, reference)
        #expect(psnr >= pair.minimumPSNR, "PSNR \(psnr) dB for \(pair.source) → \(pair.format)")
    }

    @Test("the direct YCbCr HEIC→JPEG path matches the RGB path")
    func directPath() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let source = Fixtures.path("photos/IMG_5195.HEIC")
        let direct = try await PhotoRun.convert(
            PhotoRequest(inputPath: source, format: .jpeg, outputDirectory: directory.path))
        #expect(!PhotoRun.files(directory).contains { $0.hasSuffix(".partial") })
        let decoded = try ImageDecoder.decode(path: source, options: DecodeOptions(), cancellation: CancellationFlag())
        let frame = try #require(decoded.frames.first)
        let viaRGB = try ImageEncoder.jpegBytes(frame.bitmap, quality: 85, exif: nil, xmp: nil).bytes
        let rgbPath = directory.appendingPathComponent("rgb.jpg")
        try Data(viaRGB).write(to: rgbPath)
        let a = try PhotoReference.ffmpegRGB(try #require(direct.outputs.first).path)
        let b = try PhotoReference.ffmpegRGB(rgbPath.path)
        #expect(PhotoReference.psnr(a, b) > 40)
    }

    @Test("an AVIF written by offconvert decodes back through offconvert")
    func avifRoundTrip() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let source = Fixtures.path("photos/orientation/Landscape_1.jpg")
        let avif = try await PhotoRun.convert(
            PhotoRequest(
                inputPath: source, format: .avif, quality: 90, outputDirectory: directory.path, maxLongEdge: 600))
        let avifPath = try #require(avif.outputs.first).path
        #expect(try ImageProbe.probeBlocking(path: avifPath).format == .avif)
        let png = try await PhotoRun.convert(
            PhotoRequest(inputPath: avifPath, format: .png, outputDirectory: directory.path))
        let ours = try PhotoReference.ffmpegRGB(try #require(png.outputs.first).path)
        let reference = try PhotoReference.heifRGB(avifPath, in: directory)
        #expect(PhotoReference.psnr(ours, reference) > 45)
    }

    @Test("lossless WebP round-trips PNG pixels exactly")
    func losslessWebP() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let png = try await PhotoRun.convert(
            PhotoRequest(inputPath: Fixtures.path("photos/zPug_3.heic"), format: .png, outputDirectory: directory.path))
        let pngPath = try #require(png.outputs.first).path
        let webp = try await PhotoRun.convert(
            PhotoRequest(inputPath: pngPath, format: .webp, lossless: true, outputDirectory: directory.path))
        let a = try PhotoReference.ffmpegRGB(pngPath)
        let b = try PhotoReference.ffmpegRGB(try #require(webp.outputs.first).path)
        #expect(PhotoReference.psnr(a, b) == .infinity)
    }

    @Test("all nine EXIF orientations come out upright and alike", arguments: 0...8)
    func orientation(index: Int) async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let result = try await PhotoRun.convert(
            PhotoRequest(
                inputPath: Fixtures.path("photos/orientation/Landscape_\(index).jpg"), format: .png,
                outputDirectory: directory.path))
        let output = try #require(result.outputs.first).path
        let upright = try PhotoReference.ffmpegRGB(output)
        let reference = try PhotoReference.ffmpegRGB(Fixtures.path("photos/orientation/Landscape_1.jpg"))
        try #require(upright.width == reference.width && upright.height == reference.height)
        // The nine files are separately compressed copies of one picture: ~29-31 dB apart when
        // upright, under 10 dB when mirrored or rotated.
        #expect(PhotoReference.psnr(upright, reference) > 24)
        let orientation = try ImageProbe.probeBlocking(path: output).exifOrientation
        #expect(orientation == nil || orientation == 1)
    }

    @Test("a JPEG keeps EXIF with Orientation 1 after rotating the pixels")
    func orientationTagReset() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let result = try await PhotoRun.convert(
            PhotoRequest(
                inputPath: Fixtures.path("photos/orientation/Landscape_6.jpg"), format: .jpeg,
                outputDirectory: directory.path,
                metadata: .keep))
        let info = try ImageProbe.probeBlocking(path: try #require(result.outputs.first).path)
        #expect(info.exifOrientation == 1)
        #expect(info.width > info.height)
    }

    @Test(
        "the Display P3 profile of an iPhone HEIC survives byte for byte", .enabled(if: PhotoReference.has("exiftool")),
        arguments: [PhotoFormat.jpeg, .png, .webp, .heic])
    func iccIdentity(format: PhotoFormat) async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let source = Fixtures.path("photos/IMG_5195.HEIC")
        let result = try await PhotoRun.convert(
            PhotoRequest(inputPath: source, format: format, outputDirectory: directory.path, maxLongEdge: 800))
        let output = try #require(result.outputs.first).path
        let sourceICC = try #require(try HeifContext(reading: source, decodingThreads: 1).primaryImage().iccProfile)
        let extracted = directory.appendingPathComponent("out.icc").path
        try PhotoReference.run("exiftool", ["-b", "-icc_profile", "-w!", "%0f" + extracted, output])
        let outputICC = try #require(FileManager.default.contents(atPath: extracted))
        #expect(Array(outputICC) == sourceICC)
        #expect(try ImageProbe.probeBlocking(path: output).color.iccDescription == "Display P3")
    }

    @Test("an nclx-only HEIC gets a matching ICC profile")
    func nclxProfile() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let result = try await PhotoRun.convert(
            PhotoRequest(
                inputPath: Fixtures.path("photos/sample_still_photo.heic"), format: .jpeg,
                outputDirectory: directory.path))
        let info = try ImageProbe.probeBlocking(path: try #require(result.outputs.first).path)
        #expect(info.color.iccBytes != nil)
        #expect(info.color.iccDescription != nil)
    }

    @Test("--color srgb converts P3 pixels and tags them sRGB")
    func convertToSRGB() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let source = Fixtures.path("photos/IMG_5195.HEIC")
        let kept = try await PhotoRun.convert(
            PhotoRequest(inputPath: source, format: .png, outputDirectory: directory.path, maxLongEdge: 400))
        let converted = try await PhotoRun.convert(
            PhotoRequest(
                inputPath: source, format: .png, outputPath: directory.appendingPathComponent("srgb.png").path,
                color: .sRGB, maxLongEdge: 400))
        let keptPath = try #require(kept.outputs.first).path
        let convertedPath = try #require(converted.outputs.first).path
        #expect(try ImageProbe.probeBlocking(path: convertedPath).color.iccDescription?.contains("sRGB") == true)
        // P3 → sRGB changes saturated colours: the pixels must differ, but not wildly.
        let psnr = PhotoReference.psnr(
            try PhotoReference.ffmpegRGB(keptPath), try PhotoReference.ffmpegRGB(convertedPath))
        #expect(psnr < 60 && psnr > 20)
    }

    @Test(
        "GPS is removed by default and kept on request", .enabled(if: PhotoReference.has("exiftool")),
        arguments: [
            (MetadataPolicy.shareSafe, false), (.keepLocation, true), (.keep, true), (.strip, false),
        ])
    func location(policy: MetadataPolicy, expectGPS: Bool) async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        for source in ["photos/IMG_5195.HEIC", "photos/tokyo.jpg", "photos/xiaomi.heic"] {
            let result = try await PhotoRun.convert(
                PhotoRequest(
                    inputPath: Fixtures.path(source), format: .jpeg, outputDirectory: directory.path, metadata: policy,
                    maxLongEdge: 512))
            let tags = try PhotoReference.exiftool(
                try #require(result.outputs.first).path, ["-gps:all", "-xmp:all", "-Make"])
            #expect(tags.contains("GPSLatitude") == expectGPS, "\(source) under \(policy): \(tags)")
            #expect(tags.contains("[IFD0]") == (policy != .strip), "\(source): camera make kept unless stripped")
        }
    }

    @Test("a 10-bit HEIC becomes a 16-bit PNG with more than 8 bits of information")
    func tenBit() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let result = try await PhotoRun.convert(
            PhotoRequest(inputPath: Fixtures.path("photos/cat.hif"), format: .png, outputDirectory: directory.path))
        let output = try #require(result.outputs.first).path
        #expect(try ImageProbe.probeBlocking(path: output).bitDepth == 16)
        let decoded = try PNGCodec.decode(ImageDecoder.readAll(path: output), maxPixels: 50_000_000, path: output)
        guard case .sixteen(let samples) = decoded.bitmap.samples else {
            Issue.record("expected 16-bit samples")
            return
        }
        // 8-bit data stored in 16 bits is always a multiple of 257; 10-bit data is mostly not.
        let notEightBit = samples.prefix(1_000_000).filter { $0 % 257 != 0 }.count
        #expect(notEightBit > 100_000)
    }

    @Test("--all-images writes every top-level image of a multi-image HEIC")
    func allImages() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let source = Fixtures.path("photos/zPug_3.heic")
        let all = try await PhotoRun.convert(
            PhotoRequest(inputPath: source, format: .jpeg, outputDirectory: directory.path, allImages: true))
        #expect(
            all.outputs.map { ($0.path as NSString).lastPathComponent } == [
                "zPug_3-1.jpg", "zPug_3-2.jpg", "zPug_3-3.jpg",
            ])
        let primary = try await PhotoRun.convert(
            PhotoRequest(inputPath: source, format: .jpeg, outputDirectory: directory.path))
        #expect(primary.outputs.map { ($0.path as NSString).lastPathComponent } == ["zPug_3.jpg"])
    }

    @Test("an existing output is never replaced: name (2).jpg instead, unless overwrite")
    func collisions() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let request = PhotoRequest(
            inputPath: Fixtures.path("photos/zPug_3.heic"), format: .jpeg, outputDirectory: directory.path)
        _ = try await PhotoRun.convert(request)
        let second = try await PhotoRun.convert(request)
        #expect((try #require(second.outputs.first).path as NSString).lastPathComponent == "zPug_3 (2).jpg")
        var overwrite = request
        overwrite.overwrite = true
        let third = try await PhotoRun.convert(overwrite)
        #expect((try #require(third.outputs.first).path as NSString).lastPathComponent == "zPug_3.jpg")
        #expect(PhotoRun.files(directory) == ["zPug_3 (2).jpg", "zPug_3.jpg"])
    }

    @Test("converting a JPEG to JPEG next to itself never touches the input")
    func neverOverwritesInput() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let input = directory.appendingPathComponent("photo.jpg").path
        try FileManager.default.copyItem(atPath: Fixtures.path("photos/tokyo.jpg"), toPath: input)
        let before = try #require(FileManager.default.contents(atPath: input))
        let result = try await PhotoRun.convert(PhotoRequest(inputPath: input, format: .jpeg, overwrite: true))
        #expect((try #require(result.outputs.first).path as NSString).lastPathComponent == "photo (2).jpg")
        #expect(FileManager.default.contents(atPath: input) == before)
    }

    @Test("transparency is kept in PNG and flattened onto the background in JPEG")
    func alpha() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        // A half-transparent red square made by ffmpeg, independent of offconvert.
        let source = directory.appendingPathComponent("alpha.png").path
        try PhotoReference.run(
            "ffmpeg",
            ["-v", "error", "-f", "lavfi", "-i", "color=c=red@0.5:s=32x32,format=rgba", "-frames:v", "1", source])
        let png = try await PhotoRun.convert(
            PhotoRequest(inputPath: source, format: .webp, lossless: true, outputDirectory: directory.path))
        #expect(try ImageProbe.probeBlocking(path: try #require(png.outputs.first).path).hasAlpha)
        let jpeg = try await PhotoRun.convert(
            PhotoRequest(inputPath: source, format: .jpeg, outputDirectory: directory.path, background: .black))
        let pixels = try PhotoReference.ffmpegRGB(try #require(jpeg.outputs.first).path)
        // Red at 50% over black: about (128, 0, 0).
        #expect(abs(Int(pixels.rgb[0]) - 128) < 8 && pixels.rgb[1] < 8 && pixels.rgb[2] < 8)
    }

    @Test("a GIF's first frame converts")
    func gif() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let source = directory.appendingPathComponent("test.gif").path
        try PhotoReference.run(
            "ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "testsrc=s=64x48:r=1", "-frames:v", "2", source])
        let result = try await PhotoRun.convert(
            PhotoRequest(inputPath: source, format: .png, outputDirectory: directory.path))
        let ours = try PhotoReference.ffmpegRGB(try #require(result.outputs.first).path)
        let reference = try PhotoReference.ffmpegRGB(source)
        #expect(PhotoReference.psnr(ours, reference) > 45)
    }

    @Test("a JPEG named .heic is converted by its content")
    func misnamed() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let input = directory.appendingPathComponent("actually-jpeg.heic").path
        try FileManager.default.copyItem(atPath: Fixtures.path("photos/orientation/Landscape_1.jpg"), toPath: input)
        let result = try await PhotoRun.convert(PhotoRequest(inputPath: input, format: .png))
        #expect((try #require(result.outputs.first).path as NSString).lastPathComponent == "actually-jpeg.png")
    }

    @Test(
        "broken inputs fail with a clear input error and leave no file",
        arguments: ["corrupted", "truncated", "empty", "text", "folder", "missing"])
    func broken(kind: String) async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let outputs = directory.appendingPathComponent("out")
        try FileManager.default.createDirectory(at: outputs, withIntermediateDirectories: true)
        let input: String
        switch kind {
        case "corrupted":
            // No picture at all; a JPEG with damaged picture data converts with a note (below).
            input = Fixtures.generated("broken-no-picture.jpg")
        case "truncated":
            input = directory.appendingPathComponent("truncated.heic").path
            let whole = try #require(FileManager.default.contents(atPath: Fixtures.path("photos/IMG_5195.HEIC")))
            try whole.prefix(whole.count / 2).write(to: URL(fileURLWithPath: input))
        case "empty":
            input = directory.appendingPathComponent("empty.jpg").path
            try Data().write(to: URL(fileURLWithPath: input))
        case "folder":
            input = directory.path
        case "missing":
            input = directory.appendingPathComponent("missing.heic").path
        default:
            input = directory.appendingPathComponent("notes.heic").path
            try Data("not a photo".utf8).write(to: URL(fileURLWithPath: input))
        }
        do {
            _ = try await PhotoRun.convert(PhotoRequest(inputPath: input, format: .jpeg, outputDirectory: outputs.path))
            Issue.record("\(kind) input converted")
        } catch {
            #expect(error.category == .input || error.category == .unsupported, "\(error)")
            #expect(!error.message.isEmpty)
            #expect(error.path == input)
        }
        #expect(PhotoRun.files(outputs).isEmpty)
    }

    @Test("a JPEG with corrupt picture data converts with a note saying so; strict refuses it and writes nothing")
    func corruptJPEG() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let input = Fixtures.path("generated/broken/corrupted.jpg")
        var request = PhotoRequest(inputPath: input, format: .png, outputDirectory: directory.path)
        request.strict = true
        // Damaged data, not a file cut short: libjpeg says "premature end of data segment".
        await expectConvertError(.inputCorrupt) { _ = try await PhotoRun.convert(request) }
        #expect(PhotoRun.files(directory).isEmpty)
        request.strict = false
        let result = try await PhotoRun.convert(request)
        #expect(
            result.notes.messages.contains { $0.hasPrefix("corrupt data in the picture") }, "\(result.notes.messages)")
        #expect(PhotoRun.files(directory) == ["corrupted.png"])
    }

    @Test("a cancelled conversion leaves nothing behind")
    func cancellation() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let job = PhotoConverter.convert(
            PhotoRequest(inputPath: Fixtures.path("photos/pug.heic"), format: .png, outputDirectory: directory.path))
        job.cancel()
        do {
            _ = try await job.result()
            Issue.record("the job finished despite cancellation")
        } catch {
            #expect(error.category == .cancelled)
        }
        #expect(PhotoRun.files(directory).isEmpty)
    }
}
