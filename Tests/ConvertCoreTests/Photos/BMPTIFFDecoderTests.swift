import Foundation
import Testing

@testable import ConvertCore

/// BMP and TIFF inputs (issue #38), decoded in process and compared with readers that share no
/// code with ours: FFmpeg's BMP and TIFF decoders, the pictures the fixture generator meant
/// (`*.ref.pam`, which FFmpeg reads the same way), lcms2's `tificc` for a CMYK page with a profile.
/// Fixtures: TestMedia/generators/85-bmp-tiff.sh.
@Suite(
    "BMP and TIFF decoding", .enabled(if: FileManager.default.fileExists(atPath: Fixtures.generated("tiff/multi.tiff")))
)
struct BMPTIFFDecoderTests {
    /// FFmpeg's decode of `path` as raw samples of `pixelFormat` (`rgba`, `rgb48be`).
    static func ffmpeg(_ path: String, _ pixelFormat: String, filter: String? = nil) throws -> [UInt8] {
        let decoded = try PhotoReference.run(
            "ffmpeg",
            ["-v", "error", "-i", path] + (filter.map { ["-vf", $0] } ?? []) + [
                "-frames:v", "1", "-f", "rawvideo", "-pix_fmt", pixelFormat, "-",
            ])
        try #require(decoded.status == 0, "ffmpeg cannot read \(path)")
        return Array(decoded.output)
    }

    /// Our decode of `path` (the first page, or every page with `allImages`).
    static func decode(_ path: String, allImages: Bool = false, strict: Bool = false) throws(ConvertError)
        -> DecodedPhoto
    {
        var options = DecodeOptions()
        options.allImages = allImages
        options.strict = strict
        return try ImageDecoder.decode(path: path, options: options, cancellation: CancellationFlag())
    }

    /// A bitmap as 8-bit RGBA bytes (opaque alpha added when it has none).
    static func rgba(_ bitmap: Bitmap) -> [UInt8] { bitmap.toEightBit().withAlpha().eightBitSamples }

    /// The largest difference between two sample arrays of the same length, and their PSNR (dB).
    static func difference(_ a: [UInt8], _ b: [UInt8]) -> (maximum: Int, psnr: Double) {
        precondition(a.count == b.count, "equal sizes")
        var largest = 0
        var sum = 0.0
        for i in a.indices {
            let d = Int(a[i]) - Int(b[i])
            largest = max(largest, abs(d))
            sum += Double(d * d)
        }
        return (largest, sum == 0 ? .infinity : 10 * log10(255 * 255 / (sum / Double(a.count))))
    }

    /// (fixture, reference, largest sample difference allowed). The 5- and 6-bit fields of 16-bit
    /// BMPs are scaled by rounding (31 → 255), FFmpeg's by bit replication: one step apart at most.
    static let bmps: [(String, String, Int)] = [
        ("bgr24.bmp", "bgr24.png", 0), ("bgra.bmp", "bgra.png", 0), ("rgb555.bmp", "rgb555.png", 1),
        ("rgb565.bmp", "rgb565.png", 1), ("pal8.bmp", "pal8.png", 0), ("gray.bmp", "gray.png", 0),
        ("monob.bmp", "monob.png", 0),
        ("rle8.bmp", "rle8.ref.pam", 0), ("rle4.bmp", "rle4.ref.pam", 0), ("pal4.bmp", "pal4.ref.pam", 0),
        ("topdown.bmp", "topdown.ref.pam", 0), ("core8.bmp", "core8.ref.pam", 0), ("v5-icc.bmp", "v5-icc.ref.pam", 0),
        ("v5-alpha.bmp", "v5-alpha.ref.pam", 0), ("zero-alpha.bmp", "zero-alpha.ref.pam", 0),
        ("rgb32.bmp", "rgb32.ref.pam", 0),
    ]

    @Test("every BMP variant decodes to the reference picture", arguments: 0..<bmps.count)
    func bmp(index: Int) throws {
        let (name, reference, tolerance) = Self.bmps[index]
        let path = Fixtures.generated("bmp/\(name)")
        let photo = try Self.decode(path)
        #expect(
            photo.format == .bmp && photo.frames.count == 1 && photo.notes.messages.isEmpty, "\(photo.notes.messages)")
        let bitmap = try #require(photo.frames.first).bitmap
        let expected = try Self.ffmpeg(Fixtures.generated("bmp/\(reference)"), "rgba")
        // FFmpeg agrees with the generator about the hand-built files too (its decode of the BMP
        // equals the .ref.pam), so the reference is not just the generator's own idea.
        if reference.hasSuffix(".ref.pam") { #expect(try Self.ffmpeg(path, "rgba") == expected) }
        let (largest, psnr) = Self.difference(Self.rgba(bitmap), expected)
        #expect(largest <= tolerance, "\(name): max difference \(largest), \(psnr) dB")
        #expect(psnr >= 45, "\(name): \(psnr) dB")
        // Alpha only where a mask gives some pixel alpha; an all-zero alpha channel is opaque.
        #expect(bitmap.hasAlpha == (name == "v5-alpha.bmp"), "\(name)")
    }

    @Test("a V5 BMP's embedded profile is kept byte for byte")
    func bmpProfile() throws {
        let bitmap = try #require(try Self.decode(Fixtures.generated("bmp/v5-icc.bmp")).frames.first).bitmap
        let profile = try Data(contentsOf: URL(fileURLWithPath: "/usr/share/color/icc/ghostscript/a98.icc"))
        #expect(bitmap.icc == Array(profile))
    }

    @Test("a BMP cut short: the rows it has, the top grey, with a note; strict refuses it as input.truncated")
    func bmpCut() throws {
        let path = Fixtures.generated("bmp/cut.bmp")
        expectConvertError(.inputTruncated) { try Self.decode(path, strict: true) }
        do {
            _ = try Self.decode(path, strict: true)
        } catch {
            #expect(error.code == .inputTruncated && error.category == .input && error.message.contains(path))
        }
        let photo = try Self.decode(path)
        #expect(
            photo.notes.messages == [
                "the file ends early (an interrupted copy or download): the top 40% of the picture is missing (shown grey)"
            ])
        // The bottom rows (stored first) are the whole file's.
        let bitmap = try #require(photo.frames.first).bitmap
        let whole = try Self.ffmpeg(Fixtures.generated("bmp/bgr24.bmp"), "rgba")
        let ours = Self.rgba(bitmap)
        let rowBytes = bitmap.width * 4
        let kept = bitmap.height * 6 / 10 - 1
        #expect(Array(ours.suffix(kept * rowBytes)) == Array(whole.suffix(kept * rowBytes)))
        #expect(ours[0] == 128 && ours[1] == 128 && ours[2] == 128)
    }

    @Test(
        "a 100-byte BMP claiming 65535x65535 is refused before anything is allocated; a large claim in a small file too"
    )
    func bmpHostileSizes() throws {
        do {
            _ = try Self.decode(Fixtures.generated("bmp/huge.bmp"))
            Issue.record("decoded")
        } catch {
            #expect(error.code == .inputTooManyPixels && error.message.contains("65535x65535"), "\(error.message)")
        }
        // 16000x16000 is under the default limit: the file holds no whole row, so no picture
        // is allocated for it (BMPDecoder counts the rows before it allocates).
        var header = Array(try Data(contentsOf: URL(fileURLWithPath: Fixtures.generated("bmp/huge.bmp"))))
        header.replaceSubrange(18..<26, with: [0x80, 0x3E, 0, 0, 0x80, 0x3E, 0, 0])
        do {
            _ = try BMPDecoder.decode(header, maxPixels: PixelLimit.defaultMaxPixels, path: "x.bmp", tolerateCut: true)
            Issue.record("decoded")
        } catch {
            #expect(error.code == .inputTruncated, "\(error.key): \(error.message)")
        }
    }

    @Test("damaged BMPs and TIFFs decode or throw .input, never crash")
    func damaged() throws {
        for name in [
            "bmp/rle8.bmp", "bmp/rle4.bmp", "bmp/v5-alpha.bmp", "bmp/rgb565.bmp", "bmp/core8.bmp", "tiff/rgb-lzw.tiff",
            "tiff/tiled48.tiff", "tiff/jpeg.tiff", "tiff/multi.tiff", "tiff/cmyk-icc.tiff",
        ] {
            let source = Array(try Data(contentsOf: URL(fileURLWithPath: Fixtures.generated(name))))
            for bytes in HostileImageTests.damaged(source, seed: 38, count: 60) {
                do {
                    if name.hasPrefix("bmp") {
                        _ = try BMPDecoder.decode(bytes, maxPixels: 1 << 22, path: name, tolerateCut: true)
                    } else {
                        _ = try TIFFDecoder.decode(
                            bytes, maxPixels: 1 << 22, allImages: true, strict: false, path: name,
                            cancellation: CancellationFlag())
                    }
                } catch {
                    #expect(error.category == .input || error.category == .unsupported, "\(name): \(error.message)")
                }
            }
        }
    }

    /// (fixture, reference, how FFmpeg is asked to read it, largest sample difference allowed).
    /// FFmpeg 5.1 reads neither tiles, BigTIFF nor JPEG-in-TIFF: those are compared with the
    /// striped file they were made from (tiffcp copies samples; JPEG loses some).
    static let tiffs: [(String, String, Int)] = [
        ("rgb-packbits.tiff", "rgb-packbits.tiff", 0), ("rgb-lzw.tiff", "rgb-lzw.tiff", 0),
        ("rgb-deflate.tiff", "rgb-deflate.tiff", 0),
        ("gray.tiff", "gray.tiff", 0), ("pal8.tiff", "pal8.tiff", 0), ("monob.tiff", "monob.tiff", 0),
        ("rgba.tiff", "rgba.tiff", 0),
        ("strips.tiff", "rgb-packbits.tiff", 0), ("tiled.tiff", "rgb-packbits.tiff", 0),
        ("bigtiff.tiff", "rgb-packbits.tiff", 0), ("planar.tiff", "rgb-packbits.tiff", 0),
        ("multi.tiff", "rgb-lzw.tiff", 0), ("icc.tiff", "rgb-packbits.tiff", 0), ("cmyk.tiff", "cmyk.ref.pam", 0),
        ("cmyk-icc.tiff", "cmyk-icc.ref.tiff", 1),
    ]

    @Test("every 8-bit TIFF variant decodes to the reference picture", arguments: 0..<tiffs.count)
    func tiff(index: Int) throws {
        let (name, reference, tolerance) = Self.tiffs[index]
        let photo = try Self.decode(Fixtures.generated("tiff/\(name)"))
        #expect(photo.format == .tiff && photo.frames.count == 1)
        let bitmap = try #require(photo.frames.first).bitmap
        #expect(!bitmap.isSixteenBit)
        let (largest, psnr) = Self.difference(
            Self.rgba(bitmap), try Self.ffmpeg(Fixtures.generated("tiff/\(reference)"), "rgba"))
        #expect(largest <= tolerance && psnr >= 45, "\(name): max difference \(largest), \(psnr) dB")
        #expect(bitmap.hasAlpha == (name == "rgba.tiff"))
    }

    @Test("JPEG-in-TIFF: what libtiff's tiff2rgba makes of it, and close to the picture it was made from")
    func tiffJPEG() throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = Fixtures.generated("tiff/jpeg.tiff")
        let bitmap = try #require(try Self.decode(path).frames.first).bitmap
        let ours = Self.rgba(bitmap)
        let source = try Self.difference(ours, Self.ffmpeg(Fixtures.generated("tiff/rgb-packbits.tiff"), "rgba"))
        #expect(source.psnr >= 30, "\(source.psnr) dB against the picture before JPEG")
        if PhotoReference.has("tiff2rgba") {
            let converted = directory.appendingPathComponent("rgba.tiff").path
            try #require(try PhotoReference.run("tiff2rgba", [path, converted]).status == 0)
            #expect(Self.difference(ours, try Self.ffmpeg(converted, "rgba")).maximum == 0)
        }
    }

    @Test("16-bit TIFFs (strips and tiles, RGB and grey) stay 16-bit, equal to FFmpeg's 16-bit decode")
    func tiffSixteen() throws {
        for (name, reference) in [
            ("rgb48.tiff", "rgb48.tiff"), ("tiled48.tiff", "rgb48.tiff"), ("gray16.tiff", "gray16.tiff"),
        ] {
            let bitmap = try #require(try Self.decode(Fixtures.generated("tiff/\(name)")).frames.first).bitmap
            guard case .sixteen(let samples) = bitmap.samples else {
                Issue.record("\(name) is not 16-bit")
                continue
            }
            #expect(bitmap.sourceBitDepth == 16 && bitmap.channels == 3)
            let expected = try Self.ffmpeg(Fixtures.generated("tiff/\(reference)"), "rgb48be")
            let ours = samples.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] }
            #expect(ours == expected, "\(name)")
            // Every low byte is used: the 16 bits are real.
            #expect(Set(samples.map { $0 & 0xFF }).count > 200)
        }
    }

    @Test("a multi-page TIFF: the first page with a note, or every page with allImages")
    func tiffPages() throws {
        let path = Fixtures.generated("tiff/multi.tiff")
        let first = try Self.decode(path)
        #expect(first.frames.count == 1 && first.notes.messages == ["3 pages; the first kept"])
        #expect(first.notes.map(\.code) == [.pagesLeftOut] && first.notes.first?.detail == .pagesLeftOut(pages: 3))
        let all = try Self.decode(path, allImages: true)
        #expect(all.notes.messages.isEmpty)
        #expect(all.frames.map { "\($0.bitmap.width)x\($0.bitmap.height)" } == ["121x87", "121x87", "64x48"])
        let grey = try Self.ffmpeg(Fixtures.generated("tiff/gray.tiff"), "rgba")
        #expect(Self.rgba(try #require(all.frames.dropFirst().first).bitmap) == grey)
        let info = try ImageProbe.probeBlocking(path: path)
        #expect(info.format == .tiff && info.imageCount == 3 && info.width == 121 && info.height == 87)
    }

    @Test("Orientation 6 turns the picture a quarter clockwise, as FFmpeg's transpose does")
    func tiffOrientation() throws {
        let path = Fixtures.generated("tiff/orient6.tiff")
        let bitmap = try #require(try Self.decode(path).frames.first).bitmap
        #expect(bitmap.width == 87 && bitmap.height == 121)
        #expect(
            Self.rgba(bitmap)
                == (try Self.ffmpeg(Fixtures.generated("tiff/rgb-lzw.tiff"), "rgba", filter: "transpose=clock")))
        let info = try ImageProbe.probeBlocking(path: path)
        #expect(info.width == 87 && info.height == 121 && info.exifOrientation == 6)
        // Through libtiff's RGBA interface (JPEG-in-TIFF, YCbCr) too: Orientation 8 is a quarter
        // turn anticlockwise of the same page without the tag.
        let jpeg = try #require(try Self.decode(Fixtures.generated("tiff/jpeg.tiff")).frames.first).bitmap
        let turned = try #require(try Self.decode(Fixtures.generated("tiff/orient8-jpeg.tiff")).frames.first).bitmap
        #expect(turned.width == 87 && turned.height == 121)
        #expect(Self.rgba(turned) == Self.rgba(jpeg.applyingOrientation(8)))
    }

    @Test("ICC profiles: an RGB one is kept; a CMYK page comes out tagged sRGB")
    func tiffProfiles() throws {
        let icc = try #require(try Self.decode(Fixtures.generated("tiff/icc.tiff")).frames.first).bitmap.icc
        #expect(icc == Array(try Data(contentsOf: URL(fileURLWithPath: "/usr/share/color/icc/ghostscript/a98.icc"))))
        let cmyk = try #require(try Self.decode(Fixtures.generated("tiff/cmyk-icc.tiff")).frames.first).bitmap
        #expect(cmyk.icc.flatMap(ColorProfiles.describe)?.contains("sRGB") == true)
        #expect(try #require(try Self.decode(Fixtures.generated("tiff/cmyk.tiff")).frames.first).bitmap.icc == nil)
    }

    @Test("a TIFF cut short keeps what it has with a note; strict refuses it")
    func tiffCut() throws {
        let path = Fixtures.generated("tiff/cut.tiff")
        do {
            _ = try Self.decode(path, strict: true)
            Issue.record("decoded")
        } catch {
            #expect(error.code == .inputCorrupt && error.message.contains(path), "\(error.message)")
        }
        let photo = try Self.decode(path)
        #expect(
            photo.notes.messages == [
                "part of the picture cannot be read (a damaged or cut-short file); what could be read is kept"
            ])
        let bitmap = try #require(photo.frames.first).bitmap
        // The strips in the file are the whole file's; the first rows match FFmpeg's decode of it.
        let rows = 40 * bitmap.width * 4
        let whole = try Self.ffmpeg(Fixtures.generated("tiff/strips.tiff"), "rgba")
        #expect(Array(Self.rgba(bitmap).prefix(rows)) == Array(whole.prefix(rows)))
    }

    @Test("a TIFF page over the pixel limit is refused before it is read")
    func tiffLimit() throws {
        let data = Array(try Data(contentsOf: URL(fileURLWithPath: Fixtures.generated("tiff/rgb-lzw.tiff"))))
        do {
            _ = try TIFFDecoder.decode(
                data, maxPixels: 1000,
                allImages: false, strict: false, path: "x.tiff", cancellation: CancellationFlag())
            Issue.record("decoded")
        } catch {
            #expect(error.code == .inputTooManyPixels, "\(error.message)")
        }
    }
}
