import Foundation
import Testing

@testable import ConvertCore
@testable import ConvertMedia

/// offconvert's own HEIF reader (HeifFile on HeifMeta, tiles through libde265, YCbCr → RGB on
/// our planes) on the files libheif 1.15 refuses: an iOS 18 iPhone photo and generated variants of
/// its layout. Pixels are checked against pillow-heif (a newer libheif), run as a process.
@Suite("HEIF reader: iOS 18 HEICs")
struct HeifReaderTests {
    static let iPhone = Fixtures.path("photos/IMG_3853.HEIC")
    static let variants = ["tmap", "tmap-metadata", "aux", "all"].map { Fixtures.generated("heif-ios18/\($0).heic") }

    /// The oracle: pillow-heif in the venv Scripts/test makes. Missing, the test fails saying so.
    static func oracle(_ path: String, in directory: URL) throws -> PhotoReference.Pixels {
        let python = Fixtures.root.appendingPathComponent(".build/oracle-venv/bin/python").path
        let script = Fixtures.root.appendingPathComponent("Tests/Oracles/heif-oracle.py").path
        let ready =
            FileManager.default.isExecutableFile(atPath: python)
            && (try? PhotoReference.run(python, ["-c", "import pillow_heif"]).status) == 0
        try #require(ready, "the pixel oracle is missing: pillow-heif in .build/oracle-venv (Scripts/test installs it)")
        let ppm = directory.appendingPathComponent("oracle-\(UUID().uuidString.prefix(6)).ppm").path
        try #require(
            try PhotoReference.run(python, [script, path, ppm]).status == 0, "pillow-heif could not decode \(path)")
        return try PhotoReference.ffmpegRGB(ppm)
    }

    /// The largest difference of any sample.
    static func maximumDifference(_ a: PhotoReference.Pixels, _ b: PhotoReference.Pixels) -> Int {
        zip(a.rgb, b.rgb).reduce(0) { max($0, abs(Int($1.0) - Int($1.1))) }
    }

    @Test("libheif 1.15 refuses these files, so they test something", arguments: [iPhone] + variants.dropFirst())
    func libheifRefuses(path: String) {
        expectConvertError(.inputCorrupt) { try HeifContext(reading: path, decodingThreads: 0).primaryImage() }
    }

    @Test(
        "to PNG: upright, the Display P3 profile, pixels within one level of pillow-heif",
        arguments: [iPhone] + variants)
    func png(path: String) async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let result = try await PhotoRun.convert(
            PhotoRequest(inputPath: path, format: .png, outputDirectory: directory.path))
        let output = try #require(result.outputs.first?.path)
        let ours = try PhotoReference.ffmpegRGB(output)
        let reference = try Self.oracle(path, in: directory)
        try #require(ours.width == reference.width && ours.height == reference.height, "\(ours.width)x\(ours.height)")
        #expect(Self.maximumDifference(ours, reference) <= 2)
        #expect(PhotoReference.psnr(ours, reference) > 55)
        let tags = try PhotoReference.exiftool(output, ["-ProfileDescription"])
        #expect(tags.contains("Display P3"), "\(tags)")
    }

    @Test(
        "heic-to-jpg: upright, the profile and EXIF kept, pixels close to pillow-heif's", arguments: [iPhone] + variants
    )
    func jpeg(path: String) async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let result = try await PhotoRun.convert(
            PhotoRequest(inputPath: path, format: .jpeg, outputDirectory: directory.path))
        let output = try #require(result.outputs.first?.path)
        let ours = try PhotoReference.ffmpegRGB(output)
        let reference = try Self.oracle(path, in: directory)
        try #require(ours.width == reference.width && ours.height == reference.height, "\(ours.width)x\(ours.height)")
        // A JPEG at quality 85 of the same pixels; a tile out of place or a wrong turn is under 20 dB.
        #expect(PhotoReference.psnr(ours, reference) > 33)
        let tags = try PhotoReference.exiftool(output, ["-ProfileDescription", "-Make"])
        #expect(tags.contains("Display P3"), "\(tags)")
        #expect(tags.contains(path == Self.iPhone ? "Apple" : "offconvert test"), "\(tags)")
    }

    @Test("info reads them: size as displayed, profile, metadata, gain map and other auxiliary images")
    func info() throws {
        let photo = try ImageProbe.probeBlocking(path: Self.iPhone)
        #expect((photo.width, photo.height) == (5712, 4284))
        #expect(photo.color.iccDescription == "Display P3" && photo.bitDepth == 8 && !photo.hasAlpha)
        #expect(photo.hasEXIF && photo.hasXMP && photo.make == "Apple" && photo.model == "iPhone 15 Plus")
        #expect(photo.auxiliaryImages == ["urn:com:apple:photo:2020:aux:hdrgainmap"])
        #expect(photo.thumbnailCount == 1 && photo.imageCount == 1 && photo.hasLocation)
        let all = try ImageProbe.probeBlocking(path: Self.variants[3])
        #expect((all.width, all.height) == (236, 300) && all.containerRotates == true)
        #expect(
            all.auxiliaryImages.count == 8 && all.auxiliaryImages.first == "urn:com:apple:photo:2020:aux:hdrgainmap")
        #expect(all.hasEXIF && all.hasXMP && all.make == "offconvert test" && all.imageCount == 1)
    }

    @Test(
        "WebP, HEIC and AVIF outputs of an iOS 18 layout are written at the upright size",
        arguments: [PhotoFormat.webp, .heic, .avif])
    func otherFormats(format: PhotoFormat) async throws {
        guard PhotoConverter.canEncode(format) else {
            Issue.record("\(format) cannot be encoded on this system")
            return
        }
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let result = try await PhotoRun.convert(
            PhotoRequest(inputPath: Self.variants[3], format: format, outputDirectory: directory.path))
        let output = try #require(result.outputs.first?.path)
        let probe = try ImageProbe.probeBlocking(path: output)
        #expect((probe.width, probe.height) == (236, 300))
    }
}

/// offconvert's reader against libheif 1.15 on the HEICs both read: the same description.
@Suite("HEIF reader agrees with libheif")
struct HeifReaderAgreementTests {
    @Test(
        "info from our reader equals libheif's",
        arguments: [
            "photos/IMG_5195.HEIC", "photos/pug.heic", "photos/xiaomi.heic", "photos/empty_icc.heic",
            "photos/zPug_3.heic",
            "photos/spatial_photo.heic", "photos/sample_still_photo.heic", "photos/cat.hif",
        ])
    func sameInfo(fixture: String) throws {
        let path = Fixtures.path(fixture)
        let file = try #require(try HeifFile.open(path: path))
        let context = try HeifContext(reading: path, decodingThreads: 0)
        let handle = try context.primaryImage()
        let id = file.primaryID
        #expect(file.isHEVC(id))
        let size = try #require(file.displayedSize(id))
        #expect(size.width == handle.width && size.height == handle.height)
        #expect(file.bitDepth(id) == handle.bitDepth)
        #expect(file.hasAlpha(id) == handle.hasAlpha)
        #expect(file.iccProfile(id) == handle.iccProfile)
        #expect(file.nclx(id) == handle.nclx || (file.nclx(id) == nil && handle.iccProfile != nil))
        #expect(file.exif(id) == handle.exif)
        #expect(file.xmp(id) == handle.xmp)
        // cat.hif's third, JPEG-coded thumbnail is not counted, as libheif 1.15 does not count it.
        #expect(file.thumbnails(of: id).count == handle.thumbnailCount)
        #expect(file.otherAuxiliaryTypes(id) == handle.auxiliaryTypes)
        #expect(file.depthImageCount(id) == handle.depthImageCount)
        #expect(file.topLevelImageIDs == context.topLevelImageIDs)
    }

    @Test("a table over its limit is refused with the limit named")
    func limits() throws {
        // A meta box whose iinf lists one item more than the limit.
        func box(_ type: String, _ payload: [UInt8]) -> [UInt8] {
            let size = UInt32(8 + payload.count)
            return withUnsafeBytes(of: size.bigEndian, Array.init) + Array(type.utf8) + payload
        }
        let count = HeifMeta.Limits.items + 1
        var entries: [UInt8] = []
        for id in 0..<count {
            entries += box(
                "infe", [2, 0, 0, 0, UInt8(id >> 8 & 0xFF), UInt8(id & 0xFF), 0, 0] + Array("hvc1".utf8) + [0])
        }
        let iinf = box("iinf", [0, 0, 0, 0, UInt8(count >> 8 & 0xFF), UInt8(count & 0xFF)] + entries)
        let meta = box(
            "meta",
            [0, 0, 0, 0] + box("pitm", [0, 0, 0, 0, 0, 1]) + iinf + box("iloc", [1, 0, 0, 0, 0x44, 0, 0, 0])
                + box("iprp", box("ipco", [])))
        let source = MemoryByteSource(bytes: meta)
        #expect(throws: BoxError.overLimit(what: "items", limit: HeifMeta.Limits.items)) {
            try HeifMeta(source: source)
        }
        #expect(BoxError.overLimit(what: "items", limit: 50_000).description.contains("50000"))
    }
}

/// Layouts other cameras write (overhanging grids, BT.601 limited range, 10-bit tiles, one image
/// without a grid in BT.709, Canon's 10-bit 4:2:2 BT.2020 PQ): heic-to-jpg takes them straight
/// from the tiles, and every output's pixels match pillow-heif's.
@Suite("HEIF reader: other cameras' layouts")
struct HeifCameraLayoutTests {
    static let layouts = ["overhang-irot", "bt601-limited", "ten-bit", "single-709", "canon-422-pq", "photos/cat.hif"]
    /// The layouts whose RGB outputs offconvert's reader decodes: 4:2:2 goes to libheif 1.15 for
    /// RGB, which reads the generated 4:2:2 PQ layout 26 dB away from the newer libheif (as
    /// heif-convert does); on it the JPEG path agrees with the newer one.
    static let rgbLayouts = ["overhang-irot", "bt601-limited", "ten-bit", "single-709"]
    static func path(_ name: String) -> String {
        name.hasPrefix("photos/") ? Fixtures.path(name) : Fixtures.generated("heif-cameras/\(name).heic")
    }

    @Test("heic-to-jpg decodes them straight from the tiles, not through libheif", arguments: layouts)
    func directPath(name: String) throws {
        let path = Self.path(name)
        let opened = try OpenedPhoto(PhotoInput.open(path: path, for: .converting), decodingThreads: 2)
        let source = try #require(try PhotoConverter.directJPEGSource(opened, maxPixels: PixelLimit.defaultMaxPixels))
        #expect(source.file != nil)
        let picture = try #require(
            try PhotoConverter.directPicture(
                source, opened: opened, maxPixels: PixelLimit.defaultMaxPixels, cancellation: CancellationFlag()))
        guard case .ycbcr(let image) = picture else {
            Issue.record("libheif decoded \(name)")
            return
        }
        #expect((image.width, image.height) == (source.width, source.height))
    }

    /// 4:2:2 goes to JPEG's 4:2:0 on the planes; an RGB output needs every chroma row, so the
    /// native planes are not made from it (libheif decodes it for PNG).
    @Test(
        "4:2:2 tiles are decoded for JPEG only",
        arguments: [("canon-422-pq", 368, 240), ("photos/cat.hif", 4240, 2832)])
    func fourTwoTwoForJPEGOnly(name: String, width: Int, height: Int) throws {
        let path = Self.path(name)
        let flag = CancellationFlag()
        let jpeg = try #require(
            try HeifYCbCrDecoder.decodePrimary(
                path: path, threads: 2, maxPixels: PixelLimit.defaultMaxPixels, output: .jpeg, cancellation: flag))
        // JPEG's BT.601: cat.hif's own matrix 5, or the BT.2020 layout re-expressed (6).
        #expect((jpeg.image.width, jpeg.image.height) == (width, height))
        #expect([5, 6].contains(jpeg.matrix))
        #expect(
            try HeifYCbCrDecoder.decodePrimary(
                path: path, threads: 1, maxPixels: PixelLimit.defaultMaxPixels, output: .native, cancellation: flag)
                == nil)
        // For a picture that is tone mapped anyway, the averaged rows at the stream's depth.
        let averaged = try #require(
            try HeifYCbCrDecoder.decodePrimary(
                path: path, threads: 1, maxPixels: PixelLimit.defaultMaxPixels, output: .nativeAveraging422,
                cancellation: flag))
        #expect((averaged.image.width, averaged.image.height, averaged.image.bitDepth) == (width, height, 10))
    }

    /// An nclx-only photo gets an ICC profile of its own primaries in JPEG and PNG, as exiftool
    /// reads it: BT.601's green differs from BT.709's, so its colorant columns must too.
    @Test(
        "nclx-only sources get a matching ICC profile, BT.601 (nclx primaries 5) included",
        arguments: [("bt601-limited", "BT.601 (625 lines)"), ("single-709", "BT.709")])
    func nclxProfile(name: String, description: String) async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = Self.path(name)
        for format in [PhotoFormat.jpeg, .png] {
            let result = try await PhotoRun.convert(
                PhotoRequest(inputPath: path, format: format, outputDirectory: directory.path))
            let output = try #require(result.outputs.first?.path)
            let tags = try PhotoReference.exiftool(output, ["-ProfileDescription", "-GreenMatrixColumn"])
            #expect(tags.contains(description), "\(format): \(tags)")
            if name == "bt601-limited" {
                // sRGB/BT.709's green colorant, D50-adapted, is 0.3851 0.7169 0.0971.
                #expect(tags.contains("GreenMatrixColumn") && !tags.contains("0.3851 0.7169"), "\(tags)")
            }
        }
    }

    /// A PQ photo is tone mapped for JPEG as for PNG (``HDRStill``): the same BT.2020 profile
    /// (over the sRGB curve) and the same note.
    @Test("heic-to-jpg of 4:2:2 PQ: the same profile and note as the RGB path's PNG")
    func pqColor() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = Self.path("canon-422-pq")
        let jpeg = try await PhotoRun.convert(
            PhotoRequest(inputPath: path, format: .jpeg, outputDirectory: directory.path))
        let png = try await PhotoRun.convert(
            PhotoRequest(inputPath: path, format: .png, outputDirectory: directory.path))
        let jpegProfile = try PhotoReference.exiftool(try #require(jpeg.outputs.first?.path), ["-ProfileDescription"])
        let pngProfile = try PhotoReference.exiftool(try #require(png.outputs.first?.path), ["-ProfileDescription"])
        #expect(jpegProfile.contains("BT.2020"), "\(jpegProfile)")
        #expect(jpegProfile == pngProfile)
        #expect(jpeg.notes.messages.contains("HDR tone mapped to SDR (PQ, BT.2390)"), "\(jpeg.notes.messages)")
        #expect(png.notes.messages.contains("HDR tone mapped to SDR (PQ, BT.2390)"), "\(png.notes.messages)")
    }

    @Test("to PNG: pixels within two levels of pillow-heif's, upright", arguments: rgbLayouts)
    func png(name: String) async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let result = try await PhotoRun.convert(
            PhotoRequest(inputPath: Self.path(name), format: .png, outputDirectory: directory.path))
        let ours = try PhotoReference.ffmpegRGB(try #require(result.outputs.first?.path))
        let reference = try HeifReaderTests.oracle(Self.path(name), in: directory)
        try #require(ours.width == reference.width && ours.height == reference.height, "\(ours.width)x\(ours.height)")
        // A 10-bit picture is written as 16-bit PNG and read back at 8 bits here, the oracle's at
        // 8 bits by libheif: one more rounding each.
        let deep = name == "ten-bit" || name == "single-709"
        #expect(HeifReaderTests.maximumDifference(ours, reference) <= (deep ? 3 : 2))
        #expect(PhotoReference.psnr(ours, reference) > (deep ? 45 : 50))
    }

    /// The direct path must be about as close as heif-convert's own JPEG of the same file (which
    /// rounds a 10-bit picture to 8 bits in RGB, not on the planes: up to 1.5 dB closer then).
    /// Not the PQ layout: it is tone mapped, which neither heif-convert nor pillow-heif does
    /// (HDRStillCommandTests checks it against its own oracle).
    @Test(
        "heic-to-jpg is as close to pillow-heif's pixels as heif-convert's JPEG",
        arguments: layouts.filter { $0 != "canon-422-pq" })
    func jpeg(name: String) async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = Self.path(name)
        let result = try await PhotoRun.convert(
            PhotoRequest(inputPath: path, format: .jpeg, quality: 95, outputDirectory: directory.path))
        let ours = try PhotoReference.ffmpegRGB(try #require(result.outputs.first?.path))
        let theirs = directory.appendingPathComponent("heif-convert.jpg").path
        try #require(try PhotoReference.run("heif-convert", ["-q", "95", path, theirs]).status == 0)
        let reference = try HeifReaderTests.oracle(path, in: directory)
        try #require(ours.width == reference.width && ours.height == reference.height, "\(ours.width)x\(ours.height)")
        let ourPSNR = PhotoReference.psnr(ours, reference)
        let theirPSNR = PhotoReference.psnr(try PhotoReference.ffmpegRGB(theirs), reference)
        #expect(ourPSNR > theirPSNR - 2, "ours \(ourPSNR) dB, heif-convert's \(theirPSNR) dB")
    }
}
