import Foundation
import Testing

@testable import ConvertCore
@testable import ConvertMedia

/// The HEIC tile decoder behind heic-to-jpg's direct path, checked against libheif decoding the
/// same files.
@Suite("HEIC tiles decoded straight to YCbCr")
struct HeifYCbCrDecoderTests {
    /// Y, Cb and Cr as tightly packed arrays, with the luma size.
    struct Planes: Equatable, CustomStringConvertible {
        var width: Int
        var height: Int
        var planes: [[UInt8]]

        /// The size and a digest, not millions of samples, when an expectation fails.
        var description: String {
            "\(width)x\(height), plane sums \(planes.map { $0.reduce(0) { $0 &+ Int($1) } })"
        }

    }

    static func planes(of image: YCbCr420Image) -> Planes {
        image.withPlanes { pointers, strides in
            Planes(
                width: image.width, height: image.height,
                planes: Self.copy(pointers, strides, image.width, image.height))
        }
    }

    static func copy(_ pointers: [UnsafePointer<UInt8>], _ strides: [Int32], _ width: Int, _ height: Int) -> [[UInt8]] {
        (0..<3).map { index in
            let planeWidth = index == 0 ? width : (width + 1) / 2
            let planeHeight = index == 0 ? height : (height + 1) / 2
            return (0..<planeHeight).flatMap { row in
                Array(UnsafeBufferPointer(start: pointers[index] + row * Int(strides[index]), count: planeWidth))
            }
        }
    }

    /// libheif's decode of the primary image, asked for YCbCr 4:2:0 (irot/imir applied by libheif).
    static func libheifPlanes(_ path: String) throws -> Planes {
        let handle = try HeifContext(reading: path, decodingThreads: 0).primaryImage()
        let image = try handle.decodeYCbCr420(cancellation: CancellationFlag())
        return try #require(
            try image.withYCbCr420Planes { pointers, strides, width, height in
                Planes(width: width, height: height, planes: copy(pointers, strides, width, height))
            })
    }

    static func decode(_ path: String, threads: Int = 0) throws -> HeifYCbCrDecoder.Decoded? {
        try HeifYCbCrDecoder.decodePrimary(
            path: path, threads: threads, maxPixels: PixelLimit.defaultMaxPixels, cancellation: CancellationFlag())
    }

    /// libheif and the tile decoder apply each rotation and mirror to each plane on its own. The
    /// decoded samples themselves differ by one level in about 1% of places on heif-enc's files
    /// (libheif's doing, not libde265's: FFmpeg's HEVC decoder gives exactly the tile decoder's
    /// planes for base.heic; 54 dB), so the bound is a PSNR that a wrong turn or flip (under
    /// 10 dB) is nowhere near.
    @Test(
        "single-image HEICs match libheif with every irot and imir",
        arguments: [
            "base", "irot1", "irot2", "irot3", "imir0", "imir1", "irot1-imir0",
        ])
    func transformsMatchLibheif(name: String) throws {
        let path = Fixtures.generated("heif-transforms/\(name).heic")
        let decoded = try #require(try Self.decode(path))
        let ours = Self.planes(of: decoded.image)
        let reference = try Self.libheifPlanes(path)
        try #require(ours.width == reference.width && ours.height == reference.height)
        for index in 0..<3 {
            let psnr = Self.psnr(ours, reference, plane: index)
            #expect(psnr > 50, "plane \(index): \(psnr) dB")
        }
        let turned = name.hasPrefix("irot1") || name == "irot3"
        #expect(turned ? (ours.width, ours.height) == (200, 332) : (ours.width, ours.height) == (332, 200))
    }

    /// PSNR of one plane of two pictures of the same size.
    static func psnr(_ a: Planes, _ b: Planes, plane index: Int) -> Double {
        let (width, height) = index == 0 ? (a.width, a.height) : ((a.width + 1) / 2, (a.height + 1) / 2)
        return PhotoReference.psnr(
            .init(width: width, height: height, rgb: a.planes[index]),
            .init(width: width, height: height, rgb: b.planes[index]))
    }

    @Test("the real single-image HEIC gives libheif's planes too")
    func singleImagePhoto() throws {
        let path = Fixtures.path("photos/sample_still_photo.heic")
        let decoded = try #require(try Self.decode(path))
        #expect(Self.planes(of: decoded.image) == (try Self.libheifPlanes(path)))
    }

    /// libheif assembles a grid in RGB, so its YCbCr output went through one round trip and is
    /// close, not equal: a tile out of place or a wrong crop would be far below this bound.
    @Test(
        "grid photos match libheif's decode, partial edge tiles and odd widths included",
        arguments: [
            "photos/pug.heic", "photos/IMG_5195.HEIC", "photos/xiaomi.heic", "photos/empty_icc.heic",
        ])
    func gridsMatchLibheif(fixture: String) throws {
        let path = Fixtures.path(fixture)
        let decoded = try #require(try Self.decode(path, threads: 2))
        let ours = Self.planes(of: decoded.image)
        let reference = try Self.libheifPlanes(path)
        #expect(ours.width == reference.width && ours.height == reference.height)
        for index in 0..<3 {
            let psnr = Self.psnr(ours, reference, plane: index)
            #expect(psnr > 40, "plane \(index): \(psnr) dB")
        }
        // iPhone and Xiaomi photos code full-range BT.601 YCbCr, JPEG's own.
        #expect(decoded.fullRange)
        #expect([5, 6].contains(decoded.matrix))
    }

    @Test("tile threads do not change a single byte")
    func threadsAgree() throws {
        let path = Fixtures.path("photos/IMG_5195.HEIC")
        let one = Self.planes(of: try #require(try Self.decode(path, threads: 0)).image)
        let three = Self.planes(of: try #require(try Self.decode(path, threads: 3)).image)
        #expect(one == three)
    }

    @Test(
        "what it does not do exactly is left to libheif",
        arguments: [
            "generated:heif-transforms/clap.heic",  // a clean-aperture crop
            "photos/zPug_3.heic",  // a monochrome grid
            "generated:gps-exif-xmp.avif",  // AV1, not HEVC
            "photos/tokyo.jpg",  // not HEIF at all
        ])
    func declines(fixture: String) throws {
        // (A 4:2:2 HIF is decoded for JPEG and declined for RGB: HeifCameraLayoutTests.)
        let path =
            fixture.hasPrefix("generated:") ? Fixtures.generated(String(fixture.dropFirst(10))) : Fixtures.path(fixture)
        #expect(try Self.decode(path) == nil)
    }

    /// A cut inside the tiles' data is declined; a cut that only loses data the primary image does
    /// not use (pug.heic ends with its thumbnail) still gives exactly the whole file's picture.
    @Test(
        "a HEIC cut short is declined or decoded in full, never decoded differently", arguments: [0.2, 0.5, 0.9, 0.999])
    func truncated(fraction: Double) throws {
        let original = try Data(contentsOf: URL(fileURLWithPath: Fixtures.path("photos/pug.heic")))
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("cut.heic").path
        try original.prefix(Int(Double(original.count) * fraction)).write(to: URL(fileURLWithPath: path))
        if let decoded = try Self.decode(path, threads: 2) {
            let whole = try #require(try Self.decode(Fixtures.path("photos/pug.heic")))
            #expect(Self.planes(of: decoded.image) == Self.planes(of: whole.image))
        } else {
            #expect(fraction < 0.9, "the tiles of pug.heic are all in its first 90%")
        }
    }

    @Test("a clean-aperture HEIC still converts, through libheif, at its cropped size")
    func clapStillConverts() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let result = try await PhotoRun.convert(
            PhotoRequest(
                inputPath: Fixtures.generated("heif-transforms/clap.heic"), format: .jpeg,
                outputDirectory: directory.path))
        let output = try #require(result.outputs.first)
        let probe = try ImageProbe.probeBlocking(path: output.path)
        #expect(probe.width == 321 && probe.height == 191)
    }

    /// Damaged tile data must never crash or hang the decoder: each mutated file either decodes
    /// (libde265 conceals some damage without a warning) or is declined for libheif to judge.
    @Test("mutated tile data is declined or decoded, never a crash")
    func mutatedTiles() throws {
        let original = try [UInt8](Data(contentsOf: URL(fileURLWithPath: Fixtures.path("photos/xiaomi.heic"))))
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        var mixer = FuzzMixer(state: 0x5EED_0001)
        var declined = 0
        for round in 0..<24 {
            var bytes = original
            // Past the first 4 KB: the tiles, not the meta box the item-table tests cover.
            for _ in 0..<8 {
                let at = 4096 + Int(mixer.next() % UInt64(bytes.count - 4096))
                bytes[at] = UInt8(truncatingIfNeeded: mixer.next())
            }
            let path = directory.appendingPathComponent("mutated-\(round).heic").path
            try Data(bytes).write(to: URL(fileURLWithPath: path))
            if try Self.decode(path, threads: 2) == nil { declined += 1 }
        }
        #expect(declined > 0, "some of 24 damaged files must be noticed")
    }

    @Test("a damaged hvcC record is refused, a sound one parsed")
    func configurationRecord() throws {
        #expect(HEVCConfiguration([]) == nil)
        #expect(HEVCConfiguration([UInt8](repeating: 0, count: 22)) == nil)  // no array count
        #expect(HEVCConfiguration([UInt8](repeating: 0, count: 23)) != nil)  // no arrays
        var record = [UInt8](repeating: 0, count: 23)
        record[16] = 1  // 4:2:0
        record[21] = 2  // lengthSizeMinusOne = 2: a 3-byte length, which the format forbids
        #expect(HEVCConfiguration(record) == nil)
        record[21] = 3
        record[22] = 1  // one array ...
        #expect(HEVCConfiguration(record) == nil)  // ... that is missing
        record += [0x20, 0, 1, 0, 2, 0xAA, 0xBB]
        let parsed = try #require(HEVCConfiguration(record))
        #expect(parsed.lengthSize == 4 && parsed.chromaFormat == 1 && parsed.parameterSets == [[0xAA, 0xBB]])
    }
}
