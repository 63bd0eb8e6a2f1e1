import Foundation
import Testing

@testable import ConvertCore

/// A HEIC's item structure is read once per conversion: the direct JPEG path, the gain-map worker
/// beside it, the general decoder and the probe that estimated its cost all share one
/// ``HeifMeta``; a file libheif decodes is read by libheif once, its one context shared by the
/// direct path's fallback, the decoder and every smaller decode of a target-size search.
/// Counted with ``FileReadCounter`` on a private copy of each file (tests run in parallel; only
/// watched paths are counted), and each output checked with ffprobe.
@Suite("HEIF: parsed once per conversion")
struct HeifParseOnceTests {
    /// A copy of `fixture` in a fresh folder, watched by both counters.
    static func watchedCopy(_ fixture: String) throws -> (folder: URL, path: String) {
        let folder = try Fixtures.temporaryDirectory("heif-once")
        let path = folder.appendingPathComponent("in.heic").path
        try FileManager.default.copyItem(atPath: Fixtures.path(fixture), toPath: path)
        HeifMeta.parses.watch(path)
        HeifContext.reads.watch(path)
        return (folder, path)
    }

    /// A conversion of a fixture and how often each reader may read its structure.
    struct Reads: Sendable, CustomTestStringConvertible {
        var fixture: String
        var format: PhotoFormat
        var target: Int64? = nil
        /// ``HeifMeta`` parses: one for a HEIC (offconvert's reader decides how to decode it);
        /// none for an AVIF, which libheif decodes and no other step of a conversion reads.
        var parses: Int
        /// libheif contexts read from the file: none where offconvert's reader decodes it.
        var libheifReads: Int
        var testDescription: String { "\(fixture) → \(format.rawValue)\(target.map { " under \($0) B" } ?? "")" }
    }

    @Test(
        "an AVIF, a HEIC offconvert decodes and one libheif decodes are each read once by each reader",
        arguments: [
            Reads(fixture: "generated/gps-exif-xmp.avif", format: .jpeg, parses: 0, libheifReads: 1),
            Reads(fixture: "generated/gps-exif-xmp.avif", format: .png, parses: 0, libheifReads: 1),
            Reads(fixture: "photos/pug.heic", format: .jpeg, parses: 1, libheifReads: 0),
            Reads(fixture: "photos/pug.heic", format: .png, parses: 1, libheifReads: 0),
            Reads(fixture: "photos/zPug_3.heic", format: .jpeg, parses: 1, libheifReads: 1),
            Reads(fixture: "photos/cat.hif", format: .png, parses: 1, libheifReads: 1),
            // Shrunk several times to meet the target: each smaller decode reuses the one context.
            Reads(fixture: "photos/cat.hif", format: .jpeg, target: 150_000, parses: 1, libheifReads: 1),
        ])
    func readsOnce(_ reads: Reads) async throws {
        let (folder, path) = try Self.watchedCopy(reads.fixture)
        defer {
            HeifMeta.parses.stopWatching(path)
            HeifContext.reads.stopWatching(path)
            try? FileManager.default.removeItem(at: folder)
        }
        let info = try ImageProbe.probeBlocking(path: Fixtures.path(reads.fixture))
        var request = PhotoRequest(inputPath: path, format: reads.format, outputDirectory: folder.path)
        request.targetByteCount = reads.target
        let result = try await PhotoConverter.convert(request).result()
        #expect(HeifMeta.parses.parses(of: path) == reads.parses)
        #expect(HeifContext.reads.parses(of: path) == reads.libheifReads)
        let output = try #require(result.outputs.first)
        if let target = reads.target {
            #expect(output.byteCount <= target)
            #expect(result.notes.messages.contains { $0.hasPrefix("resized to") }, "\(result.notes.messages)")
        } else {
            #expect(try Self.size(output.path) == "\(info.width),\(info.height)")
        }
    }

    /// ffprobe's `width,height` of `path`'s first video stream.
    static func size(_ path: String) throws -> String {
        String(
            decoding: try PhotoReference.run(
                "ffprobe",
                [
                    "-v", "error", "-select_streams", "v:0", "-show_entries", "stream=width,height", "-of", "csv=p=0",
                    path,
                ]
            ).output, as: UTF8.self
        ).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test(
        "heic-to-jpg (direct path, gain map encoded beside it) and heic-to-png (general path) parse the file once",
        arguments: ["photos/IMG_3853.HEIC", "photos/pug.heic"], [PhotoFormat.jpeg, .png])
    func conversion(fixture: String, format: PhotoFormat) async throws {
        let (folder, path) = try Self.watchedCopy(fixture)
        defer {
            HeifMeta.parses.stopWatching(path)
            try? FileManager.default.removeItem(at: folder)
        }
        let info = try ImageProbe.probeBlocking(path: Fixtures.path(fixture))
        let result = try await PhotoConverter.convert(
            PhotoRequest(inputPath: path, format: format, outputDirectory: folder.path)
        ).result()
        #expect(HeifMeta.parses.parses(of: path) == 1)
        let output = try #require(result.outputs.first).path
        #expect(try Self.size(output) == "\(info.width),\(info.height)")
    }

    @Test("a target size met by shrinking decodes the HEIC again, from the same item model")
    func targetSize() async throws {
        let (folder, path) = try Self.watchedCopy("photos/pug.heic")
        defer {
            HeifMeta.parses.stopWatching(path)
            try? FileManager.default.removeItem(at: folder)
        }
        let request = PhotoRequest(
            inputPath: path, format: .jpeg, outputDirectory: folder.path, targetByteCount: 60_000)
        let result = try await PhotoConverter.convert(request).result()
        let output = try #require(result.outputs.first)
        #expect(output.byteCount <= 60_000)
        #expect(result.notes.messages.contains { $0.hasPrefix("resized to") }, "\(result.notes.messages)")
        #expect(HeifMeta.parses.parses(of: path) == 1)
        #expect(try !Self.size(output.path).isEmpty)
    }

    @Test("a probe handed to the conversion (a batch item's) makes the probe and the conversion one parse together")
    func probeHandedOver() async throws {
        let (folder, path) = try Self.watchedCopy("photos/IMG_3853.HEIC")
        defer {
            HeifMeta.parses.stopWatching(path)
            try? FileManager.default.removeItem(at: folder)
        }
        let opened = try PhotoInput.open(path: path)
        let info = try ImageProbe.probe(opened)
        var request = PhotoRequest(inputPath: path, format: .jpeg, outputDirectory: folder.path)
        request.probed = opened.detached()
        let result = try await PhotoConverter.convert(request).result()
        #expect(HeifMeta.parses.parses(of: path) == 1)
        #expect(try Self.size(try #require(result.outputs.first).path) == "\(info.width),\(info.height)")
    }

    @Test("a file that changed size after its probe is read again, not from the stale model")
    func changedAfterProbe() async throws {
        let (folder, path) = try Self.watchedCopy("photos/pug.heic")
        defer {
            HeifMeta.parses.stopWatching(path)
            try? FileManager.default.removeItem(at: folder)
        }
        let probed = try PhotoInput.open(path: path).detached()
        let handle = try #require(FileHandle(forWritingAtPath: path))
        try handle.seekToEnd()
        try handle.write(contentsOf: Data(count: 100))
        try handle.close()
        var request = PhotoRequest(inputPath: path, format: .jpeg, outputDirectory: folder.path)
        request.probed = probed
        let result = try await PhotoConverter.convert(request).result()
        #expect(HeifMeta.parses.parses(of: path) == 2)
        #expect(try Self.size(try #require(result.outputs.first).path) == "4032,3024")
    }

    @Test("the WebP probe reads the headers only, agrees with ffprobe, and refuses a file cut short")
    func webpHeaderProbe() async throws {
        let folder = try Fixtures.temporaryDirectory("webp-probe")
        defer { try? FileManager.default.removeItem(at: folder) }
        let request = PhotoRequest(
            inputPath: Fixtures.path("photos/pug.heic"), format: .webp, outputDirectory: folder.path)
        let webp = try #require(try await PhotoConverter.convert(request).result().outputs.first).path
        let info = try ImageProbe.probeBlocking(path: webp)
        #expect(info.format == .webp && info.bitDepth == 8 && info.hasEXIF)
        #expect("\(info.width),\(info.height)" == (try Self.size(webp)))
        // Cut short, its chunks (and so its metadata) cannot be told: damaged, as the decoder says.
        let data = try Data(contentsOf: URL(fileURLWithPath: webp))
        let cut = folder.appendingPathComponent("cut.webp").path
        try data.prefix(data.count / 2).write(to: URL(fileURLWithPath: cut))
        expectConvertError(.inputCorrupt) { try ImageProbe.probeBlocking(path: cut) }
    }
}
