import ConvertCore
import Foundation
import Testing

@testable import OffconvertCLI

/// Gain-map JPEGs as phones write them, in and out: an iPhone 16 Pro JPEG (ISO 21496-1 APP2 and
/// Apple's gain-map XMP, EXIF "Rotate 90 CW"), a Pixel 6 Pro and a Pixel 8 Ultra HDR JPEG (hdrgm
/// XMP, GPS). Each is a lossless `jpegtran` cut of the original (TestMedia/tools/
/// crop-gainmap-jpeg.py; the phones' own bitstreams and segments). Every command is run from a
/// temporary folder with relative names, and every output is checked by exiftool (MPF, hdrgm)
/// and by libultrahdr: its HDR decode of the output against its HDR decode of the input, turned
/// upright and resized by the oracle itself (Tests/Oracles/gainmap-oracle.py).
@Suite("HDR gain maps: real phone JPEGs in and out")
struct GainMapRealJPEGTests {
    typealias Base = GainMapCommandTests

    /// A real gain-map JPEG: its TestMedia name, the origin and headroom offconvert reports, and
    /// its stored size (the iPhone's is displayed turned).
    struct Phone: Sendable, CustomTestStringConvertible {
        var name: String
        var note: String
        var upright: (width: Int, height: Int)
        var testDescription: String { name }
    }

    static let phones = [
        Phone(
            name: "iphone16-crop.jpg", note: "HDR gain map kept (ISO 21496-1, headroom 1.7 stops)", upright: (672, 896)),
        Phone(
            name: "pixel6pro-crop.jpg", note: "HDR gain map kept (Ultra HDR, headroom 2.2 stops)", upright: (1024, 768)),
        Phone(name: "pixel8-crop.jpg", note: "HDR gain map kept (Ultra HDR, headroom 1.1 stops)", upright: (640, 832)),
    ]

    /// `phone` copied as `p.jpg` into a fresh folder (a one-letter name, as users type them).
    static func stage(_ phone: Phone) throws -> URL {
        let directory = try Base.temporaryDirectory()
        let source = CLIRunner.media.appendingPathComponent("photos/hdr/\(phone.name)")
        try FileManager.default.copyItem(at: source, to: directory.appendingPathComponent("p.jpg"))
        return directory
    }

    /// At the same size and the default quality, the HDR rendition stays within JPEG's own
    /// generation loss of the phone's: ≥ 35 dB, upright.
    @Test("convert --to jpg keeps a phone's gain map, upright", arguments: phones)
    func sameSize(phone: Phone) async throws {
        let directory = try Self.stage(phone)
        defer { try? FileManager.default.removeItem(at: directory) }
        let outcome = try await CLIRunner.run(
            ["convert", "--to", "jpg", "p.jpg", "--output-dir", "out"], directory: directory)
        #expect(outcome.status == 0, "\(outcome.stderr)")
        #expect((outcome.stdout + outcome.stderr).contains(phone.note), "\(outcome.stdout)")
        let output = directory.appendingPathComponent("out/p.jpg").path
        try GainMapJPEGCommandTests.expectUltraHDR(output)
        // djpeg decodes at 1/8 scale (every coefficient still decoded).
        let size = try #require(try await Base.djpegSize(output))
        #expect(size.0 * 8 == phone.upright.width && size.1 * 8 == phone.upright.height, "\(size)")
        let result = try await Base.oracle(directory.appendingPathComponent("p.jpg").path, output)
        let psnr = try #require(result["hdr_psnr"])
        #expect(psnr >= 35, "HDR PSNR \(psnr) dB against the phone's own HDR")
    }

    /// A smaller or more compressed output: the HDR rendition loses no more than the SDR one
    /// (a gain map that did not follow the turn or the scale would be far below either).
    @Test(
        "compress-photos and --max-size keep a phone's gain map lined up", arguments: phones,
        [
            ["compress-photos", "--quality", "60"], ["convert", "--to", "jpg", "--max-size", "500"],
        ])
    func smaller(phone: Phone, arguments: [String]) async throws {
        let directory = try Self.stage(phone)
        defer { try? FileManager.default.removeItem(at: directory) }
        let outcome = try await CLIRunner.run(arguments + ["p.jpg", "--output-dir", "out"], directory: directory)
        #expect(outcome.status == 0, "\(outcome.stderr)")
        #expect((outcome.stdout + outcome.stderr).contains(phone.note), "\(outcome.stdout)")
        let output = directory.appendingPathComponent(
            arguments[0] == "compress-photos" ? "out/p (small).jpg" : "out/p.jpg"
        ).path
        try GainMapJPEGCommandTests.expectUltraHDR(output)
        let result = try await Base.oracle(directory.appendingPathComponent("p.jpg").path, output)
        let hdr = try #require(result["hdr_psnr"])
        let sdr = try #require(result["sdr_psnr"])
        #expect(hdr >= 30 && hdr >= sdr - 6, "HDR PSNR \(hdr) dB, SDR \(sdr) dB")
    }

    /// `--target-size` counts the primary and the gain map together.
    @Test("compress-photos --target-size on a phone's gain-map JPEG counts both images", arguments: phones)
    func targetSize(phone: Phone) async throws {
        let directory = try Self.stage(phone)
        defer { try? FileManager.default.removeItem(at: directory) }
        let outcome = try await CLIRunner.run(
            ["compress-photos", "p.jpg", "--target-size", "40000", "--output-dir", "out"], directory: directory)
        #expect(outcome.status == 0, "\(outcome.stderr)")
        let output = directory.appendingPathComponent("out/p (small).jpg").path
        let size = try #require(try FileManager.default.attributesOfItem(atPath: output)[.size] as? Int)
        #expect(size <= 40000 && size > 20000, "\(size)")
        try GainMapJPEGCommandTests.expectUltraHDR(output)
    }

    /// strip-location edits the primary's EXIF only: the Pixel 8's GPS goes, its gain map and
    /// the MPF index stay valid, and libultrahdr's HDR decode is the same picture.
    @Test("strip-location on a Pixel 8 Ultra HDR JPEG keeps the gain map")
    func stripLocation() async throws {
        let phone = Self.phones[2]
        let directory = try Self.stage(phone)
        defer { try? FileManager.default.removeItem(at: directory) }
        let before = try Base.tags(directory.appendingPathComponent("p.jpg").path, ["GPS:GPSLatitude"])
        try #require(before["GPS:GPSLatitude"] != nil, "the fixture has GPS")
        let outcome = try await CLIRunner.run(["strip-location", "p.jpg"], directory: directory)
        #expect(outcome.status == 0, "\(outcome.stderr)")
        let output = directory.appendingPathComponent("p (no location).jpg").path
        try GainMapJPEGCommandTests.expectUltraHDR(output)
        #expect(try Base.tags(output, ["GPS:GPSLatitude"])["GPS:GPSLatitude"] == nil)
        let result = try await Base.oracle(directory.appendingPathComponent("p.jpg").path, output)
        #expect(try #require(result["hdr_psnr"]) > 60, "\(result)")  // 999: the same pixels
    }

    /// A batch's memory estimate counts a JPEG's kept gain map as it does a HEIC's, and not when
    /// it is dropped (`--hdr sdr`) or has no headroom (the flat Pixel 8 map).
    @Test("the memory estimate counts a JPEG's gain map only when it is kept")
    func memoryEstimate() throws {
        let path = CLIRunner.media.appendingPathComponent("photos/hdr/pixel6pro-crop.jpg").path
        var request = PhotoRequest(inputPath: path, format: .jpeg)
        let kept = PhotoWork.cost(of: path, request: request)
        request.hdr = .sdr
        let dropped = PhotoWork.cost(of: path, request: request)
        #expect(kept - dropped == 1024 * 768 * 2, "kept \(kept), dropped \(dropped)")
        let flat = CLIRunner.media.appendingPathComponent("photos/hdr/pixel_8.jpg").path
        var flatRequest = PhotoRequest(inputPath: flat, format: .jpeg)
        let flatKept = PhotoWork.cost(of: flat, request: flatRequest)
        flatRequest.hdr = .sdr
        #expect(flatKept == PhotoWork.cost(of: flat, request: flatRequest))
    }
}
