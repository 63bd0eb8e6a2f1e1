import Foundation
import Testing

@testable import ConvertCore
@testable import ConvertMedia

@Suite("Photo resize (--resize WxH --fit)", .serialized)
struct PhotoResizeTests {
    /// The plan's arithmetic, one row per mode and boundary: source, box, mode → kept region,
    /// scaled size, canvas.
    struct PlanCase: Sendable, CustomTestStringConvertible {
        var source: (Int, Int)
        var box: (Int, Int)
        var fit: PhotoResize.Fit
        var crop: ResizePlan.Rect
        var scaled: (Int, Int)
        var canvas: (Int, Int)
        var testDescription: String { "\(source) into \(box) \(fit.rawValue)" }
    }

    static let planCases: [PlanCase] = [
        // Landscape into a square: fit is width-limited, fill/crop cut the sides.
        PlanCase(
            source: (4032, 3024), box: (800, 800), fit: .fit, crop: .init(x: 0, y: 0, width: 4032, height: 3024),
            scaled: (800, 600), canvas: (800, 600)),
        PlanCase(
            source: (4032, 3024), box: (800, 800), fit: .fill, crop: .init(x: 504, y: 0, width: 3024, height: 3024),
            scaled: (800, 800), canvas: (800, 800)),
        PlanCase(
            source: (4032, 3024), box: (800, 800), fit: .crop, crop: .init(x: 504, y: 0, width: 3024, height: 3024),
            scaled: (800, 800), canvas: (800, 800)),
        PlanCase(
            source: (4032, 3024), box: (800, 800), fit: .pad, crop: .init(x: 0, y: 0, width: 4032, height: 3024),
            scaled: (800, 600), canvas: (800, 800)),
        // Portrait into a wide box: fit is height-limited; fill cuts top and bottom.
        PlanCase(
            source: (1200, 1800), box: (300, 100), fit: .fit, crop: .init(x: 0, y: 0, width: 1200, height: 1800),
            scaled: (67, 100), canvas: (67, 100)),
        PlanCase(
            source: (1200, 1800), box: (300, 100), fit: .fill, crop: .init(x: 0, y: 700, width: 1200, height: 400),
            scaled: (300, 100), canvas: (300, 100)),
        // Smaller than the box: fit and pad never enlarge, fill does, crop only cuts.
        PlanCase(
            source: (64, 64), box: (128, 96), fit: .fit, crop: .init(x: 0, y: 0, width: 64, height: 64),
            scaled: (64, 64), canvas: (64, 64)),
        PlanCase(
            source: (64, 64), box: (128, 96), fit: .fill, crop: .init(x: 0, y: 8, width: 64, height: 48),
            scaled: (128, 96), canvas: (128, 96)),
        PlanCase(
            source: (64, 64), box: (128, 96), fit: .crop, crop: .init(x: 0, y: 8, width: 64, height: 48),
            scaled: (64, 48), canvas: (64, 48)),
        PlanCase(
            source: (64, 64), box: (128, 96), fit: .pad, crop: .init(x: 0, y: 0, width: 64, height: 64),
            scaled: (64, 64), canvas: (128, 96)),
        // Same aspect: no cut; a 1-pixel-wide box still gets a 1-pixel picture.
        PlanCase(
            source: (1800, 1200), box: (300, 200), fit: .fill, crop: .init(x: 0, y: 0, width: 1800, height: 1200),
            scaled: (300, 200), canvas: (300, 200)),
        PlanCase(
            source: (1000, 10), box: (1, 1000), fit: .fit, crop: .init(x: 0, y: 0, width: 1000, height: 10),
            scaled: (1, 1), canvas: (1, 1)),
    ]

    @Test("the plan's sizes for each mode", arguments: planCases)
    func plan(_ row: PlanCase) {
        let plan = ResizePlan(
            sourceWidth: row.source.0, sourceHeight: row.source.1,
            resize: PhotoResize(width: row.box.0, height: row.box.1, fit: row.fit), maxLongEdge: nil)
        #expect(plan.crop == row.crop)
        #expect(plan.scaledWidth == row.scaled.0 && plan.scaledHeight == row.scaled.1, "\(plan)")
        #expect(plan.canvasWidth == row.canvas.0 && plan.canvasHeight == row.canvas.1, "\(plan)")
    }

    @Test("a long-edge limit after a resize shrinks picture and canvas together")
    func limitedPlan() {
        let plan = ResizePlan(
            sourceWidth: 4032, sourceHeight: 3024, resize: PhotoResize(width: 800, height: 800, fit: .pad),
            maxLongEdge: 400)
        #expect((plan.canvasWidth, plan.canvasHeight) == (400, 400))
        #expect((plan.scaledWidth, plan.scaledHeight) == (400, 300))
        #expect((plan.offsetX, plan.offsetY) == (0, 50))
        let plain = ResizePlan(sourceWidth: 4032, sourceHeight: 3024, resize: nil, maxLongEdge: 1000)
        #expect((plain.scaledWidth, plain.scaledHeight) == (1000, 750) && plain.crop.width == 4032)
        #expect(ResizePlan(sourceWidth: 640, sourceHeight: 480, resize: nil, maxLongEdge: 2048).isIdentity)
    }

    @Test(
        "WxH parsing",
        arguments: [
            ("800x600", true), ("800X600", true), ("800×600", true), ("800x", false), ("x600", false), ("0x600", false),
            ("800x0", false), ("-800x600", false), ("800x600x2", false), ("8a0x600", false), ("", false),
            ("١٢x600", false),
        ])
    func parsing(text: String, valid: Bool) {
        #expect((PhotoResize(parsing: text) != nil) == valid)
    }

    /// Decodes with ffmpeg to 8-bit RGBA.
    static func rgba(_ path: String, width: Int, height: Int) throws -> [UInt8] {
        let decoded = try PhotoReference.run(
            "ffmpeg", ["-v", "error", "-i", path, "-frames:v", "1", "-f", "rawvideo", "-pix_fmt", "rgba", "-"])
        try #require(decoded.output.count == width * height * 4)
        return Array(decoded.output)
    }

    @Test(
        "pug.heic (4032x3024) into 800x800: exact output size for each mode",
        arguments: [(PhotoResize.Fit.fit, 800, 600), (.fill, 800, 800), (.crop, 800, 800), (.pad, 800, 800)])
    func realPhoto(fit: PhotoResize.Fit, width: Int, height: Int) async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let result = try await PhotoRun.convert(
            PhotoRequest(
                inputPath: Fixtures.path("photos/pug.heic"), format: .jpeg, outputDirectory: directory.path,
                resize: PhotoResize(width: 800, height: 800, fit: fit)))
        let output = try #require(result.outputs.first).path
        let info = try ImageProbe.probeBlocking(path: output)
        #expect(info.width == width && info.height == height)
    }

    @Test("pad: bars in the given colour on JPEG, transparent on PNG, the picture opaque in the middle")
    func padColor() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let source = Fixtures.path("photos/pug.heic")
        let red = try await PhotoRun.convert(
            PhotoRequest(
                inputPath: source, format: .png, outputDirectory: directory.path,
                resize: PhotoResize(width: 400, height: 400, fit: .pad, padding: RGBColor(red: 255, green: 0, blue: 0)))
        )
        let transparent = try await PhotoRun.convert(
            PhotoRequest(
                inputPath: source, format: .png, outputPath: directory.appendingPathComponent("clear.png").path,
                resize: PhotoResize(width: 400, height: 400, fit: .pad)))
        let jpeg = try await PhotoRun.convert(
            PhotoRequest(
                inputPath: source, format: .jpeg, outputDirectory: directory.path, background: .black,
                resize: PhotoResize(width: 400, height: 400, fit: .pad)))
        // 4032x3024 fitted into 400x400 is 400x300: bars of 50 rows above and below.
        let redPixels = try Self.rgba(try #require(red.outputs.first).path, width: 400, height: 400)
        let clearPixels = try Self.rgba(try #require(transparent.outputs.first).path, width: 400, height: 400)
        let jpegPixels = try Self.rgba(try #require(jpeg.outputs.first).path, width: 400, height: 400)
        for row in [0, 25, 49, 350, 375, 399] {
            for column in [0, 200, 399] {
                let i = (row * 400 + column) * 4
                #expect(Array(redPixels[i..<(i + 4)]) == [255, 0, 0, 255], "red bar at \(column),\(row)")
                #expect(clearPixels[i + 3] == 0, "transparent bar at \(column),\(row)")
                // JPEG is lossy and subsampled: near black, and far from the picture.
                #expect(jpegPixels[i..<(i + 3)].allSatisfy { $0 < 12 }, "black bar at \(column),\(row)")
            }
        }
        for row in [50, 200, 349] {
            let i = (row * 400 + 200) * 4
            #expect(clearPixels[i + 3] == 255 && redPixels[i + 3] == 255)
            #expect(redPixels[i..<(i + 3)] != [255, 0, 0][...], "the picture, not the bar, at row \(row)")
        }
    }

    @Test("fill and crop keep the centre: matches ffmpeg's centre crop + Lanczos of heif-convert's decode")
    func cropCentring() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let source = Fixtures.path("photos/pug.heic")
        let full = directory.appendingPathComponent("reference.png").path
        try #require(try PhotoReference.run("heif-convert", [source, full]).status == 0)
        let reference = directory.appendingPathComponent("reference-crop.png").path
        // The centre 3024x3024 of the 4032x3024 picture, scaled to 400x400.
        try #require(
            try PhotoReference.run(
                "ffmpeg",
                ["-v", "error", "-i", full, "-vf", "crop=3024:3024:504:0,scale=400:400:flags=lanczos", reference]
            ).status == 0)
        let expected = try PhotoReference.ffmpegRGB(reference)
        for fit in [PhotoResize.Fit.fill, .crop] {
            let result = try await PhotoRun.convert(
                PhotoRequest(
                    inputPath: source, format: .png, outputPath: directory.appendingPathComponent("\(fit).png").path,
                    resize: PhotoResize(width: 400, height: 400, fit: fit)))
            let actual = try PhotoReference.ffmpegRGB(try #require(result.outputs.first).path)
            try #require(actual.width == 400 && actual.height == 400)
            // Measured: identical (the same libheif decode and swscale Lanczos); the left square instead
            // of the centre one measures 15 dB.
            #expect(PhotoReference.psnr(actual, expected) > 35, "\(fit)")
        }
        // The check can fail: the left 3024 columns instead of the centre ones are far apart.
        let shifted = directory.appendingPathComponent("shifted.png").path
        try #require(
            try PhotoReference.run(
                "ffmpeg", ["-v", "error", "-i", full, "-vf", "crop=3024:3024:0:0,scale=400:400:flags=lanczos", shifted]
            ).status == 0)
        let shiftedPSNR = PhotoReference.psnr(try PhotoReference.ffmpegRGB(shifted), expected)
        #expect(shiftedPSNR < 25, "\(shiftedPSNR)")
    }

    @Test(
        "orientation is applied before resizing: all nine EXIF orientations crop to the same picture", arguments: 0...8)
    func orientation(index: Int) async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        func converted(_ name: String, as output: String) async throws -> PhotoReference.Pixels {
            let result = try await PhotoRun.convert(
                PhotoRequest(
                    inputPath: Fixtures.path("photos/orientation/\(name)"), format: .png,
                    outputPath: directory.appendingPathComponent(output).path,
                    resize: PhotoResize(width: 200, height: 300, fit: .fill)))
            return try PhotoReference.ffmpegRGB(try #require(result.outputs.first).path)
        }
        let upright = try await converted("Landscape_\(index).jpg", as: "upright.png")
        let reference = try await converted("Landscape_1.jpg", as: "reference.png")
        // 200x300 is portrait, the upright picture landscape: a wrong orientation would give a
        // different cut, not just a rotated one.
        try #require(upright.width == 200 && upright.height == 300)
        #expect(PhotoReference.psnr(upright, reference) > 24)
    }

    @Test("small pictures: fill enlarges to the box, crop only cuts, fit and pad never enlarge")
    func smallSource() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let expected: [(PhotoResize.Fit, Int, Int)] = [
            (.fit, 64, 64), (.fill, 128, 96), (.crop, 64, 48), (.pad, 128, 96),
        ]
        for (fit, width, height) in expected {
            let result = try await PhotoRun.convert(
                PhotoRequest(
                    inputPath: Fixtures.path("photos/zPug_3.heic"), format: .webp,
                    outputPath: directory.appendingPathComponent("\(fit).webp").path,
                    resize: PhotoResize(width: 128, height: 96, fit: fit)))
            let info = try ImageProbe.probeBlocking(path: try #require(result.outputs.first).path)
            #expect(info.width == width && info.height == height, "\(fit)")
        }
    }

    @Test("a target size lowers the resolution of the whole padded box, keeping its shape")
    func targetSize() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        var request = PhotoRequest(
            inputPath: Fixtures.path("photos/pug.heic"), format: .jpeg, outputDirectory: directory.path,
            targetByteCount: 30_000, resize: PhotoResize(width: 1200, height: 1200, fit: .pad))
        request.quality = 85
        let result = try await PhotoRun.convert(request)
        let output = try #require(result.outputs.first)
        #expect(output.byteCount <= 30_000)
        let info = try ImageProbe.probeBlocking(path: output.path)
        #expect(info.width == info.height && info.width < 1200, "\(info.width)x\(info.height)")
    }

    @Test("a resize with a long-edge limit, or a box over the pixel limit, is refused as a request error")
    func requestErrors() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let source = Fixtures.path("photos/zPug_3.heic")
        var both = PhotoRequest(inputPath: source, format: .png, outputDirectory: directory.path, maxLongEdge: 100)
        both.resize = PhotoResize(width: 100, height: 100)
        await expectConvertError(.requestResize) { try await PhotoRun.convert(both) }
        do {
            _ = try await PhotoRun.convert(both)
        } catch {
            #expect(error.category == .request && error.code == .requestResize)
        }
        let huge = PhotoRequest(
            inputPath: source, format: .png, outputDirectory: directory.path, maxPixels: 1_000_000,
            resize: PhotoResize(width: 2000, height: 2000, fit: .pad))
        do {
            _ = try await PhotoRun.convert(huge)
            Issue.record("a 4 MP box over a 1 MP limit was accepted")
        } catch {
            #expect(error.category == .request && error.code == .requestResizeTooLarge)
        }
        #expect(PhotoRun.files(directory).isEmpty)
    }
}
