import Foundation
import Testing

@testable import ConvertCore
@testable import ConvertMedia

@Suite("10-bit HEIC output (--depth)", .serialized, .enabled(if: PhotoConverter.canEncode(.heic)))
struct HeifDepthTests {
    static let deep = Fixtures.path("photos/cat.hif")

    static func convert(
        _ source: String, to format: PhotoFormat, depth: PhotoBitDepth? = nil, edge: Int = 512, in directory: URL,
        name: String
    ) async throws(ConvertError) -> JobResult {
        var request = PhotoRequest(
            inputPath: source, format: format, outputPath: directory.appendingPathComponent(name).path,
            maxLongEdge: edge)
        request.bitDepth = depth
        return try await PhotoRun.convert(request)
    }

    @Test("a 10-bit HEIC stays 10-bit: probe says 10, the samples hold more than 8 bits, pixels close to the source")
    func tenBit() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let result = try await Self.convert(Self.deep, to: .heic, in: directory, name: "cat.heic")
        let output = try #require(result.outputs.first).path
        let info = try ImageProbe.probeBlocking(path: output)
        #expect(info.bitDepth == 10)
        #expect(!result.notes.messages.contains { $0.contains("8 bits") })

        let handle = try HeifContext(reading: output, decodingThreads: 1).primaryImage()
        let bitmap = try handle.decode(cancellation: CancellationFlag())
        #expect(bitmap.sourceBitDepth == 10)
        guard case .sixteen(let samples) = bitmap.samples else {
            Issue.record("expected 16-bit samples from a 10-bit decode")
            return
        }
        // 8-bit data widened to 16 bits is a multiple of 257; 10-bit data mostly is not.
        #expect(samples.filter { $0 % 257 != 0 }.count > samples.count / 2)

        // The same resize written losslessly is the reference; heif-convert decodes the HEIC.
        let png = try await Self.convert(Self.deep, to: .png, in: directory, name: "reference.png")
        let reference = try PhotoReference.ffmpegRGB(try #require(png.outputs.first).path)
        let decoded = try PhotoReference.heifRGB(output, in: directory)
        try #require(decoded.width == reference.width && decoded.height == reference.height)
        // Measured 46.9 dB at quality 85.
        #expect(PhotoReference.psnr(decoded, reference) > 40)
        // The colour profile is the one the 8-bit path writes.
        let eight = try await Self.convert(Self.deep, to: .heic, depth: .eight, in: directory, name: "eight.heic")
        let eightInfo = try ImageProbe.probeBlocking(path: try #require(eight.outputs.first).path)
        #expect(eightInfo.bitDepth == 8)
        #expect(info.color.iccDescription != nil && info.color.iccDescription == eightInfo.color.iccDescription)
        #expect(info.color.iccBytes == eightInfo.color.iccBytes)
    }

    @Test("8-bit sources stay 8-bit unless --depth 10; a 16-bit PNG becomes 10-bit HEIC")
    func sources() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let eightBit = Fixtures.path("photos/sample_still_photo.heic")
        let plain = try await Self.convert(eightBit, to: .heic, edge: 256, in: directory, name: "plain.heic")
        #expect(try ImageProbe.probeBlocking(path: try #require(plain.outputs.first).path).bitDepth == 8)
        let forced = try await Self.convert(
            eightBit, to: .heic, depth: .ten, edge: 256, in: directory, name: "forced.heic")
        #expect(try ImageProbe.probeBlocking(path: try #require(forced.outputs.first).path).bitDepth == 10)

        let png = try await Self.convert(Self.deep, to: .png, edge: 256, in: directory, name: "deep.png")
        let pngPath = try #require(png.outputs.first).path
        try #require(try ImageProbe.probeBlocking(path: pngPath).bitDepth == 16)
        let fromPNG = try await Self.convert(pngPath, to: .heic, edge: 256, in: directory, name: "from-png.heic")
        #expect(try ImageProbe.probeBlocking(path: try #require(fromPNG.outputs.first).path).bitDepth == 10)
    }

    @Test(
        "AVIF: a deep source is written at 8 bits with a note; --depth 10 is refused as unsupported",
        .enabled(if: PhotoConverter.canEncode(.avif)))
    func avif() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let result = try await Self.convert(Self.deep, to: .avif, edge: 256, in: directory, name: "cat.avif")
        #expect(try ImageProbe.probeBlocking(path: try #require(result.outputs.first).path).bitDepth == 8)
        #expect(result.notes.messages.contains("AVIF written at 8 bits"))
        do {
            _ = try await Self.convert(Self.deep, to: .avif, depth: .ten, edge: 256, in: directory, name: "ten.avif")
            Issue.record("10-bit AVIF was accepted")
        } catch {
            #expect(error.category == .unsupported && error.code == .outputDepthUnsupported)
            #expect(error.message.contains("10-bit AVIF"))
        }
        #expect(PhotoRun.files(directory) == ["cat.avif"])
    }
}
