import Foundation
import Testing

@testable import ConvertCore
@testable import ConvertMedia

/// Length fields that claim more than the file holds (TestMedia/generators/60-hostile-lengths.sh):
/// each is refused with its real reason before anything is allocated for the claim.
@Suite("Hostile: length mutations")
struct LengthMutationTests {
    static func chunk(_ type: String, _ payload: [UInt8]) -> [UInt8] {
        let body = Array(type.utf8) + payload
        let crc = CRC32.checksum(body)
        return [
            UInt8(payload.count >> 24 & 0xFF), UInt8(payload.count >> 16 & 0xFF), UInt8(payload.count >> 8 & 0xFF),
            UInt8(payload.count & 0xFF),
        ] + body
            + [UInt8(crc >> 24), UInt8((crc >> 16) & 0xFF), UInt8((crc >> 8) & 0xFF), UInt8(crc & 0xFF)]
    }

    /// The generated GPS PNG with `extra` chunks inserted after IHDR.
    static func png(inserting extra: [UInt8]) throws -> [UInt8] {
        let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: Fixtures.generated("gps-exif-xmp.png"))))
        let afterHeader = 8 + 12 + 13
        return Array(bytes[..<afterHeader]) + extra + Array(bytes[afterHeader...])
    }

    @Test("a tEXt length of 0x7FFFFFFF in a 480 kB PNG: every reader refuses it as damaged, naming the chunk")
    func pngTextLength() async throws {
        let input = Fixtures.generated("bombs/png-text-2gb.png")
        let data = try ImageDecoder.readAll(path: input)
        #expect(data.count < 600_000)
        var refusals: [ConvertError] = []
        do { _ = try ImageProbe.probeBlocking(path: input) } catch { refusals.append(error) }
        do { _ = try PNGCodec.header(data, path: input) } catch { refusals.append(error) }
        do { _ = try PNGCodec.decode(data, maxPixels: PixelLimit.defaultMaxPixels, path: input) } catch {
            refusals.append(error)
        }
        #expect(refusals.count == 3)
        for error in refusals {
            #expect(error.code == .inputCorrupt)
            #expect(error.message.contains("tEXt chunk declares 2147483647 bytes"), "\(error.message)")
        }
        #expect(PNGText.xmp(data) == nil)
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let result = await runJob(
            PhotoConverter.convert(PhotoRequest(inputPath: input, format: .jpeg, outputDirectory: directory.path))
        ).result
        guard case .failure(let error) = result else {
            Issue.record("converted")
            return
        }
        #expect(error.code == .inputCorrupt)
        #expect(fileNames(in: directory).isEmpty)
    }

    @Test("an ancillary chunk over 16 MiB is refused; a 1 MiB one is read")
    func ancillaryLimit() throws {
        let large = try Self.png(
            inserting: Self.chunk("tEXt", Array("Comment".utf8) + [0] + [UInt8](repeating: 0x41, count: 17 << 20)))
        expectConvertError(.inputCorrupt) {
            try PNGCodec.decode(large, maxPixels: PixelLimit.defaultMaxPixels, path: "large.png")
        }
        do {
            _ = try PNGCodec.header(large, path: "large.png")
            Issue.record("read")
        } catch {
            #expect(error.message.contains("over the limit"), "\(error.message)")
        }
        let ordinary = try Self.png(
            inserting: Self.chunk("tEXt", Array("Comment".utf8) + [0] + [UInt8](repeating: 0x41, count: 1 << 20)))
        let decoded = try PNGCodec.decode(ordinary, maxPixels: PixelLimit.defaultMaxPixels, path: "ordinary.png")
        #expect(decoded.bitmap.width > 0)
    }

    @Test("the PNG probe reads only the header chunks and agrees with ffprobe")
    func pngHeaderProbe() throws {
        let input = Fixtures.generated("gps-exif-xmp.png")
        let info = try ImageProbe.probeBlocking(path: input)
        let size = String(
            decoding: try PhotoReference.run(
                "ffprobe",
                [
                    "-v", "error", "-select_streams", "v:0", "-show_entries", "stream=width,height", "-of", "csv=p=0",
                    input,
                ]
            ).output, as: UTF8.self
        ).trimmingCharacters(in: .whitespacesAndNewlines)
        #expect("\(info.width),\(info.height)" == size)
        #expect(info.hasEXIF && info.hasXMP && info.hasLocation)
    }

    @Test("a GIF's size comes from its header; its frames are counted, none decoded")
    func gifHeader() throws {
        let many = try ImageDecoder.readAll(path: Fixtures.generated("bombs/gif-screen-16000-2000.gif"))
        let image = try GIFAnimation(many, maxPixels: nil, path: "many.gif")
        #expect(image.width == 16000 && image.height == 16000 && image.frameCount == 2000 && !image.isCutShort)
        // Cut after the first frame: the same canvas, one frame.
        let firstFrameEnd = 13 + 6 + 19 + 8 + 10 + 5
        var cut = Array(many[..<firstFrameEnd])
        cut.append(0x3B)
        let alone = try GIFAnimation(cut, maxPixels: nil, path: "one.gif")
        #expect(alone.width == image.width && alone.height == image.height && alone.frameCount == 1)
        let info = try ImageProbe.probeBlocking(path: Fixtures.generated("bombs/gif-screen-16000-2000.gif"))
        #expect(info.width == 16000 && info.height == 16000)
    }

    @Test("a 65535x65535-screen GIF is refused as over the pixel limit, not as damaged")
    func gifOverLimit() async throws {
        let input = Fixtures.generated("bombs/gif-screen-65535.gif")
        do {
            _ = try GIFAnimation(ImageDecoder.readAll(path: input), maxPixels: PixelLimit.defaultMaxPixels, path: input)
            Issue.record("decoded")
        } catch {
            #expect(error.code == .inputTooManyPixels, "\(error.key): \(error.message)")
            #expect(error.message.contains("65535x65535"))
        }
        let info = try ImageProbe.probeBlocking(path: input)
        #expect(info.width == 65535)
    }

    @Test("an MJPEG MP4 claiming 16384x16384 gets the real reason, not 'no video track'")
    func mjpegClaim() async throws {
        let input = Fixtures.generated("bombs/mjpeg-claims-16384.mp4")
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let location = OutputLocation(directory: directory.path)
        let refused = await runJob(
            VideoConverter.convert(VideoRequest(input: input, container: .mkv, output: location))
        ).result
        guard case .failure(let error) = refused else {
            Issue.record("converted")
            return
        }
        #expect(error.code == .inputTooManyPixels, "\(error.key): \(error.message)")
        #expect(error.message.contains("16384x16384"))
        // Over a raised limit, the size is still one FFmpeg refuses: said so.
        let raised = await runJob(
            VideoConverter.convert(
                VideoRequest(
                    input: input, container: .mp4, output: location, maxPixels: 300_000_000))
        ).result
        guard case .failure(let unsupported) = raised else {
            Issue.record("converted")
            return
        }
        #expect(unsupported.code == .unsupportedSize, "\(unsupported.key): \(unsupported.message)")
        #expect(fileNames(in: directory).isEmpty)
    }
}
