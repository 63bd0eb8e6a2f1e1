import Foundation
import Testing

@testable import ConvertCore
@testable import ConvertMedia

/// Decompression bombs: small files that declare enormous pictures (TestMedia/generators/
/// 30-hostile.sh) are refused from their headers, with `input.too-many-pixels`, before any pixel
/// memory is allocated; the limit can be raised per request. (The key proves the refusal came from
/// the header check: a decoder that had started would fail differently, or take gigabytes. Peak
/// RSS is not asserted because it is process-wide and the other suites run in parallel.)
@Suite("Hostile: decompression bombs")
struct PixelLimitTests {
    @Test(
        "a photo bomb is refused from its header on every output format",
        arguments: [
            "bomb-100000x100000.png", "bomb-65500x65500.jpg", "bomb-20000x20000.heic",
        ])
    func photoBomb(name: String) async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let input = Fixtures.generated("bombs/" + name)
        for format in [PhotoFormat.jpeg, .png, .webp] {
            let result = await runJob(
                PhotoConverter.convert(PhotoRequest(inputPath: input, format: format, outputDirectory: directory.path))
            ).result
            guard case .failure(let error) = result else {
                Issue.record("\(name) → \(format) converted")
                continue
            }
            #expect(error.category == .input)
            #expect(error.code == .inputTooManyPixels, "\(error.key): \(error.message)")
        }
        #expect(fileNames(in: directory).isEmpty)
    }

    @Test("the message names the size and the limit and how to raise it")
    func message() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let result = await runJob(
            PhotoConverter.convert(
                PhotoRequest(
                    inputPath: Fixtures.generated("bombs/bomb-65500x65500.jpg"), format: .png,
                    outputDirectory: directory.path))
        ).result
        guard case .failure(let error) = result else {
            Issue.record("converted")
            return
        }
        #expect(error.message.contains("65500x65500"))
        #expect(error.message.contains("\(PixelLimit.defaultMaxPixels)"))
        // The library names no option; the CLI adds "Raise it with --max-pixels N." (MaxPixelsOptionTests).
        #expect(!error.message.contains("--"))
    }

    @Test("a lower limit refuses an ordinary photo; the default lets it through")
    func configurable() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let input = Fixtures.path("photos/zPug_3.heic")
        let refused = await runJob(
            PhotoConverter.convert(
                PhotoRequest(
                    inputPath: input, format: .jpeg, outputDirectory: directory.path, maxPixels: 64 * 64 - 1))
        ).result
        guard case .failure(let error) = refused else {
            Issue.record("converted over the limit")
            return
        }
        #expect(error.code == .inputTooManyPixels)
        let allowed = await runJob(
            PhotoConverter.convert(
                PhotoRequest(
                    inputPath: input, format: .jpeg, outputDirectory: directory.path, maxPixels: 64 * 64))
        ).result
        #expect((try? allowed.get()) != nil)
    }

    @Test("a video whose SPS claims 16000x16000 is refused before a decoder opens; remuxing it is allowed")
    func videoBomb() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let input = Fixtures.generated("bombs/bomb-h264-16000.mp4")
        let location = OutputLocation(directory: directory.path)
        // 256 MP is under the default (FFmpeg itself caps frames near 268 MP), so the bomb is
        // checked against a lower limit, as a user would set with --max-pixels.
        let jobs: [@Sendable () -> ConversionJob] = [
            {
                VideoConverter.convert(
                    VideoRequest(input: input, codec: .h264, maxHeight: 720, output: location, maxPixels: 100_000_000))
            },
            { VideoConverter.gif(GIFRequest(input: input, output: location, maxPixels: 100_000_000)) },
        ]
        for job in jobs {
            let result = await runJob(job()).result
            guard case .failure(let error) = result else {
                Issue.record("decoded the bomb")
                continue
            }
            #expect(error.code == .inputTooManyPixels, "\(error.key): \(error.message)")
            #expect(error.message.contains("16000x16000"))
        }
        #expect(fileNames(in: directory).isEmpty)
        // Copying packets never decodes them: a passthrough remux is not limited.
        let remux = await runJob(
            VideoConverter.convert(
                VideoRequest(input: input, container: .mkv, output: location, maxPixels: 100_000_000))
        ).result
        #expect((try? remux.get()) != nil)
    }

    @Test("an H.264 stream claiming 17600x17600 (over the default) fails as an input error")
    func videoOverDefault() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let result = await runJob(
            VideoConverter.convert(
                VideoRequest(
                    input: Fixtures.generated("bombs/bomb-h264-17600.264"), codec: .h264,
                    output: OutputLocation(directory: directory.path)))
        ).result
        guard case .failure(let error) = result else {
            Issue.record("decoded the bomb")
            return
        }
        // FFmpeg itself refuses a 17600x17600 SPS (over its own size check), so the stream shows
        // no picture size to compare with the limit: it is refused as damaged, before any decoding.
        #expect(
            error.code == .inputCorrupt && error.message.contains("no readable picture size"),
            "\(error.key): \(error.message)")
        #expect(fileNames(in: directory).isEmpty)
    }

    @Test("the check refuses overflowing and negative sizes")
    func arithmetic() {
        expectConvertError(.inputTooManyPixels) {
            try PixelLimit.check(width: Int.max, height: 2, limit: .max, path: "x")
        }
        expectConvertError(.inputCorrupt) { try PixelLimit.check(width: -1, height: 2, limit: 10, path: "x") }
        #expect(throws: Never.self) {
            try PixelLimit.check(width: 16383, height: 16383, limit: PixelLimit.defaultMaxPixels, path: "x")
        }
        expectConvertError(.inputTooManyPixels) {
            try PixelLimit.check(width: 16384, height: 16383, limit: PixelLimit.defaultMaxPixels, path: "x")
        }
    }

    @Test(
        "over the memory ceiling a picture is device.memory with its size, whatever the pixel limit; within it, nothing is thrown"
    )
    func memoryCeiling() throws {
        let ceiling = 1 << 30
        #expect(throws: Never.self) {
            try MemoryCeiling.check(width: 8000, height: 8000, path: "a.jpg", ceiling: ceiling)
        }
        for (width, height) in [(20_000, 20_000), (Int.max / 2, 3), (1 << 40, 1 << 40)] {
            do {
                try MemoryCeiling.check(width: width, height: height, path: "a.jpg", ceiling: ceiling)
                Issue.record("\(width)x\(height) passed")
            } catch {
                #expect(error.code == .deviceMemory && error.category == .device)
                #expect(
                    error.message.contains("\(width)×\(height)") && error.message.contains("a.jpg"), "\(error.message)")
            }
        }
        #expect(MemoryCeiling.bytes > 1 << 30, "this machine's ceiling: \(MemoryCeiling.bytes)")
    }
}
