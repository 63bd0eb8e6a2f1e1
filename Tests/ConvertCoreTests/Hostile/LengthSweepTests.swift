import Foundation
import Testing

@testable import ConvertCore
@testable import ConvertMedia

/// Every length field of a few small real files set, in turn, to each value that breaks size
/// arithmetic (``Mutator/hostileWords``): length mutations were the 3,125-run campaign's most
/// productive kind. Each mutant must be read or refused as an input error, never crash, never be
/// an internal error, never leave a temporary; a copied movie must have timestamps that only go
/// forward (checked with ffprobe).
@Suite("Hostile: length sweeps")
struct LengthSweepTests {
    @Test("every PNG chunk length × every hostile value: read, or refused as damaged input")
    func pngChunkLengths() throws {
        let original = try ImageDecoder.readAll(path: Fixtures.generated("gps-exif-xmp.png"))
        var refused = 0
        for chunk in Mutator.pngChunks(original) {
            for word in Mutator.hostileWords {
                var bytes = original
                Mutator.put(word, at: chunk, in: &bytes)
                let label = "chunk at \(chunk) length \(word)"
                do {
                    _ = try PNGCodec.header(bytes, path: "m.png")
                    _ = try PNGCodec.decode(bytes, maxPixels: PixelLimit.defaultMaxPixels, path: "m.png")
                } catch {
                    refused += 1
                    #expect(error.category == .input, "\(label): \(error.key) \(error.message)")
                }
                _ = PNGText.xmp(bytes)
            }
        }
        #expect(refused > 0)
    }

    @Test("every GIF screen and sub-block length × every hostile value: read, or refused as input")
    func gifLengths() throws {
        let original = try ImageDecoder.readAll(path: Fixtures.generated("bombs/gif-screen-16000-2000.gif"))
        let small = Array(original[..<61]) + [0x3B]
        // The screen size, the first descriptor's size, the extension and LZW sub-block lengths.
        let fields = [6, 8, 13 + 6 + 2, 13 + 6 + 19 + 8 + 5, 13 + 6 + 19 + 8 + 7, 13 + 6 + 19 + 8 + 10 + 1]
        for field in fields {
            for word in Mutator.hostileWords {
                var bytes = small
                bytes[field] = UInt8(word & 0xFF)
                if field + 1 < bytes.count { bytes[field + 1] = UInt8(word >> 8 & 0xFF) }
                do {
                    let image = try GIFAnimation(bytes, maxPixels: nil, path: "m.gif")
                    // Decoding is only tried under a small limit: the header alone must refuse the rest.
                    _ = try AnimatedPicture.gif(GIFAnimation(bytes, maxPixels: 4096, path: "m.gif")).frame(0)
                    #expect(image.width * image.height <= 4096)
                } catch {
                    #expect(error.category == .input, "field \(field) = \(word): \(error.key)")
                    #expect(["input.corrupt", "input.too-many-pixels"].contains(error.key))
                }
            }
        }
    }

    @Test(
        "every box size of an MP4 set to 0, 1 or 0x7FFFFFFF: an MKV copy fails as input or has timestamps that go forward",
        .enabled(if: PhotoReference.has("ffprobe"), "needs ffprobe"))
    func movieBoxSizes() async throws {
        let original = try ImageDecoder.readAll(path: Fixtures.path("video/sample.mp4"))
        let directory = try Fixtures.temporaryDirectory("box-sweep")
        defer { try? FileManager.default.removeItem(at: directory) }
        let output = directory.appendingPathComponent("out")
        try FileManager.default.createDirectory(at: output, withIntermediateDirectories: true)
        let input = directory.appendingPathComponent("m.mp4")
        var copies = 0
        for header in Mutator.boxHeaders(original) {
            for word: UInt32 in [0, 1, 0x7FFF_FFFF] {
                var bytes = original
                Mutator.put(word, at: header, in: &bytes)
                try Data(bytes).write(to: input)
                let type = String(decoding: original[(header + 4)..<(header + 8)], as: UTF8.self)
                let label = "\(type) at \(header) size \(word)"
                let result = await runJob(
                    VideoConverter.convert(
                        VideoRequest(
                            input: input.path, container: .mkv,
                            output: OutputLocation(directory: output.path, overwrite: true)))
                ).result
                switch result {
                case .failure(let error):
                    #expect(error.category != .internal, "\(label): \(error.key) \(error.message)")
                case .success(let job):
                    copies += 1
                    let path = try #require(job.outputs.first).path
                    #expect(try Self.timestampsGoForward(path), "\(label)")
                }
                #expect(fileNames(in: output).allSatisfy { !$0.hasPrefix(".") }, "\(label): \(fileNames(in: output))")
            }
        }
        #expect(copies > 0)
    }

    /// Whether every stream's packet DTS never goes back, as ffprobe reads the file (packets
    /// without a DTS, Matroska's B-frames before the parser has seen a reference, are skipped).
    static func timestampsGoForward(_ path: String) throws -> Bool {
        let listing = String(
            decoding: try PhotoReference.run(
                "ffprobe",
                [
                    "-v", "error", "-show_entries", "packet=stream_index,dts", "-of", "csv=p=0", path,
                ]
            ).output, as: UTF8.self)
        var last: [String: Int] = [:]
        for line in listing.split(separator: "\n") {
            let fields = line.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
            guard fields.count >= 2, let time = Int(fields[1]) else { continue }
            if let previous = last[fields[0]], time < previous { return false }
            last[fields[0]] = time
        }
        return true
    }

    @Test(
        "inputs named as people name them: one letter, spaces, unicode",
        arguments: [
            "p", "my photo.jpg", "フォト 1.jpg", "é",
        ])
    func names(name: String) async throws {
        let directory = try Fixtures.temporaryDirectory("names")
        defer { try? FileManager.default.removeItem(at: directory) }
        let input = directory.appendingPathComponent(name).path
        try FileManager.default.copyItem(atPath: Fixtures.path("photos/tokyo.jpg"), toPath: input)
        let result = try await PhotoRun.convert(
            PhotoRequest(inputPath: input, format: .png, outputDirectory: directory.path))
        let output = try #require(result.outputs.first).path
        let stem = (name as NSString).deletingPathExtension
        #expect((output as NSString).lastPathComponent == stem + ".png")
        let info = try ImageProbe.probeBlocking(path: output)
        #expect(info.format == .png && info.width == 600)
    }
}
