import Foundation
import Testing

@testable import ConvertCore
@testable import ConvertMedia
@testable import FFmpegLayer

/// `strip-location` in the engine: every file that records a location loses it, the compressed
/// pictures and packets stay byte-identical, and the file stays readable.
@Suite("Location stripper")
struct LocationStripperTests {
    /// Every TestMedia file that records a location, real and generated.
    static let located = [
        "photos/IMG_5195.HEIC", "photos/pug.heic", "photos/xiaomi.heic", "photos/empty_icc.heic",
        "photos/spatial_photo.heic", "photos/tokyo.jpg", "photos/DSCN0010.jpg", "video/sample.mp4",
        "video/dolbyVision-hdr.MOV", "generated/gps-exif-xmp.png", "generated/gps-exif-xmp.webp",
        "generated/gps-xmp.jpg", "generated/gps-exif-xmp.heic", "generated/gps-exif-xmp.avif",
        "generated/location-xyz.mp4", "generated/location-keys.mov", "video/bt601.mov",
        "video/h265_with_metadata_track.mp4", "video/hlg10-color-test.mp4", "video/motion.mov",
        "video/sample_rotate_and_reflect.mp4", "video/sample_with_color_info.mp4",
    ]

    private static func strip(_ input: String, into folder: URL, name: String) async throws -> (JobResult, [UInt8]) {
        let destination = folder.appendingPathComponent(name).path
        let result = try await LocationStripper.strip(StripLocationRequest(input: input, destination: destination))
            .result()
        return (result, Array(try Data(contentsOf: URL(fileURLWithPath: destination))))
    }

    @Test("the location goes, the file keeps its size and its compressed data", arguments: located)
    func strips(relative: String) async throws {
        let input = Fixtures.path(relative)
        let before = try await MediaProbe.probe(path: input)
        try #require(before.location.present, "the fixture must record a location")
        let folder = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let name = "out." + (relative as NSString).pathExtension
        let (result, output) = try await Self.strip(input, into: folder, name: name)
        let original = Array(try Data(contentsOf: URL(fileURLWithPath: input)))
        #expect(result.notes.messages.first?.hasPrefix("location removed") == true, "\(result.notes.messages)")
        #expect(output.count == original.count)
        #expect(output != original)

        let after = try await MediaProbe.probe(path: folder.appendingPathComponent(name).path)
        #expect(!after.location.present, "\(after.location.sources)")
        #expect(after.format == before.format)
        #expect(after.image?.width == before.image?.width && after.image?.make == before.image?.make)
        #expect(after.container?.tracks.count == before.container?.tracks.count)

        if ["heic", "heif", "avif"].contains(before.format) {
            try Self.onlyExifChanged(original, output, input: input)
        } else {
            let payload = try Self.compressedData(of: before.format, original)
            #expect(!payload.isEmpty)
            #expect(
                try Self.compressedData(of: before.format, output) == payload,
                "the compressed picture or packets changed")
        }
    }

    /// The bytes that must not change, found without the stripper's own parsers: JPEG from the
    /// first SOS to the end, PNG's IDAT chunks, WebP's VP8/VP8L chunk, everything outside the
    /// movie box of an MP4/MOV. (HEIF is checked by ``onlyExifChanged(_:_:input:)``.)
    static func compressedData(of format: String, _ bytes: [UInt8]) throws -> [UInt8] {
        func u32be(_ at: Int) -> Int {
            Int(bytes[at]) << 24 | Int(bytes[at + 1]) << 16 | Int(bytes[at + 2]) << 8 | Int(bytes[at + 3])
        }
        switch format {
        case "jpeg":
            let sos = try #require((2..<(bytes.count - 1)).first { bytes[$0] == 0xFF && bytes[$0 + 1] == 0xDA })
            return Array(bytes[sos...])
        case "png":
            var offset = 8
            var idat: [UInt8] = []
            while offset + 12 <= bytes.count {
                let length = u32be(offset)
                if bytes[(offset + 4)..<(offset + 8)].elementsEqual("IDAT".utf8) {
                    idat += bytes[(offset + 8)..<(offset + 8 + length)]
                }
                offset += 12 + length
            }
            return idat
        case "webp":
            var offset = 12
            while offset + 8 <= bytes.count {
                let type = String(decoding: bytes[offset..<(offset + 4)], as: UTF8.self)
                let size =
                    Int(bytes[offset + 4]) | Int(bytes[offset + 5]) << 8 | Int(bytes[offset + 6]) << 16 | Int(
                        bytes[offset + 7]) << 24
                if type.hasPrefix("VP8") { return Array(bytes[offset..<(offset + 8 + size)]) }
                offset += 8 + size + (size & 1)
            }
            return []
        default:
            var offset = 0
            var outside: [UInt8] = []
            while offset + 8 <= bytes.count {
                let size = u32be(offset)
                guard size >= 8 else { break }
                if !bytes[(offset + 4)..<(offset + 8)].elementsEqual("moov".utf8) {
                    outside += bytes[offset..<min(bytes.count, offset + size)]
                }
                offset += size
            }
            return outside
        }
    }

    /// Every changed byte of a HEIF file lies inside one of its EXIF or XMP blocks as libheif reads them.
    static func onlyExifChanged(_ original: [UInt8], _ output: [UInt8], input: String) throws {
        let context = try HeifContext(reading: input, decodingThreads: 1)
        var blocks: [[UInt8]] = []
        for id in context.topLevelImageIDs {
            let image = try context.image(id: id)
            blocks +=
                [image.exif, image.xmp].compactMap { $0 }
                + image.thumbnails().flatMap { [$0.exif, $0.xmp].compactMap { $0 } }
        }
        let ranges = blocks.compactMap { block -> Range<Int>? in
            guard let first = block.first, block.count >= 8 else { return nil }
            var start = 0
            while start + block.count <= original.count {
                if original[start] == first && original[start..<(start + block.count)].elementsEqual(block) {
                    return start..<(start + block.count)
                }
                start += 1
            }
            return nil
        }
        try #require(!ranges.isEmpty, "the EXIF blocks were found in the file")
        let changed = (0..<original.count).filter { original[$0] != output[$0] }
        #expect(!changed.isEmpty)
        #expect(
            changed.allSatisfy { offset in ranges.contains { $0.contains(offset) } },
            "bytes outside the EXIF and XMP blocks changed")
    }

    @Test(
        "MP4/MOV packets are identical, as ffprobe hashes them, and other tags stay",
        .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/ffprobe")),
        arguments: ["video/sample.mp4", "video/dolbyVision-hdr.MOV", "generated/location-keys.mov"])
    func packets(relative: String) async throws {
        let folder = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = Fixtures.path(relative)
        _ = try await Self.strip(input, into: folder, name: "out.mov")
        let output = folder.appendingPathComponent("out.mov").path
        func probe(_ path: String, _ arguments: [String]) throws -> String {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/ffprobe")
            process.arguments = ["-v", "error"] + arguments + [path]
            let pipe = Pipe()
            process.standardOutput = pipe
            try process.run()
            let data = pipe.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            return String(decoding: data, as: UTF8.self)
        }
        let packets = ["-show_packets", "-show_data_hash", "md5"]
        #expect(try probe(input, packets) == probe(output, packets))
        let tags = try probe(output, ["-show_format"])
        #expect(!tags.lowercased().contains("location"))
        if relative.hasSuffix("location-keys.mov") { #expect(tags.contains("com.apple.quicktime.make=Apple")) }
    }

    @Test("the GPS directory is unlinked in place; everything else in the EXIF reads the same")
    func exifInPlace() throws {
        let data = Array(try Data(contentsOf: URL(fileURLWithPath: Fixtures.path("photos/tokyo.jpg"))))
        let tiff = try #require(JPEGMarkers.metadata(data).exif)
        let exif = try #require(Exif(tiff: tiff))
        #expect(exif.hasGPS)
        let cleaned = exif.withoutLocationInPlace()
        #expect(cleaned.count == tiff.count)
        let reread = try #require(Exif(tiff: cleaned))
        #expect(!reread.hasGPS)
        #expect(reread.ifd0.entry(Exif.Tag.gpsIFD) == nil)
        #expect(reread.make == exif.make && reread.model == exif.model)
        #expect(reread.orientation == exif.orientation && reread.dateTimeOriginal == exif.dateTimeOriginal)
        #expect(reread.ifd0.entries.count == exif.ifd0.entries.count - 1)
    }

    @Test("in place: the same path, the same permissions, no location, no temporary left")
    func inPlace() async throws {
        let folder = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("tokyo.jpg").path
        try FileManager.default.copyItem(atPath: Fixtures.path("photos/tokyo.jpg"), toPath: path)
        chmod(path, 0o644)
        let result = try await LocationStripper.strip(StripLocationRequest(input: path, destination: path)).result()
        #expect(result.outputs.map(\.path) == [path])
        #expect(!(try await MediaProbe.probe(path: path)).location.present)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["tokyo.jpg"])
        var info = stat()
        #expect(stat(path, &info) == 0 && info.st_mode & 0o777 == 0o644)
    }

    @Test("a file without a location: nothing written (no identical copy), the result has no output")
    func nothingToRemove() async throws {
        let folder = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = Fixtures.path("photos/orientation/Landscape_6.jpg")
        let destination = folder.appendingPathComponent("out.jpg").path
        let result = try await LocationStripper.strip(StripLocationRequest(input: input, destination: destination))
            .result()
        #expect(result.outputs.isEmpty)
        #expect(result.notes.messages == ["no location found; nothing written"])
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).isEmpty)
    }

    @Test("a box that overruns its parent before the location box is refused, not reported clean")
    func overrunningBox() async throws {
        let folder = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        // The clip's udta holds a meta box, then the loci location: make meta claim more than udta.
        var bytes = Array(try Data(contentsOf: URL(fileURLWithPath: Fixtures.generated("location-xyz.mp4"))))
        let udta = try #require(bytes.indices.dropLast(8).first { bytes[$0..<($0 + 4)].elementsEqual("udta".utf8) })
        #expect(bytes[(udta + 8)..<(udta + 12)].elementsEqual("meta".utf8))
        bytes.replaceSubrange((udta + 4)..<(udta + 8), with: BoxBytes.u32(0x7000))
        let input = folder.appendingPathComponent("in.mp4")
        try Data(bytes).write(to: input)
        let destination = folder.appendingPathComponent("out.mp4").path
        do {
            let result = try await LocationStripper.strip(
                StripLocationRequest(input: input.path, destination: destination)
            ).result()
            Issue.record("stripped a file it could not walk: \(result)")
        } catch {
            #expect(error.code == .inputCorrupt, "\(error)")
        }
        #expect(!FileManager.default.fileExists(atPath: destination))
    }

    @Test(
        "formats without an editor and playlists are refused, nothing is written; a Matroska file without a location tag has none"
    )
    func refused() async throws {
        let folder = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let none = try await LocationStripper.strip(
            StripLocationRequest(
                input: Fixtures.generated("sdr-h264.mkv"), destination: folder.appendingPathComponent("none.mkv").path)
        ).result()
        #expect(none.outputs.isEmpty && none.notes.messages == ["no location found; nothing written"], "\(none)")
        let located = folder.appendingPathComponent("located.mkv").path
        let made = try MediaTool.run(
            "ffmpeg",
            [
                "-v", "error", "-i", Fixtures.generated("sdr-h264.mkv"), "-c", "copy",
                "-metadata", "location=+40.6892-074.0445/", located,
            ])
        #expect(made.status == 0, "\(made.errors)")
        for (input, code) in [
            (located, ConvertError.Code.privacyUnsupportedFormat),
            (Fixtures.generated("playlist.mp4"), .inputCorrupt),
        ] {
            let destination = folder.appendingPathComponent("out").path
            await expectConvertError(code) {
                try await LocationStripper.strip(StripLocationRequest(input: input, destination: destination)).result()
            }
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["located.mkv"])
    }

    @Test("FFmpeg opens no playlist or list: a file named .mp4 or .m3u8 that lists others is not media")
    func playlists() async throws {
        for name in ["playlist.mp4", "playlist.m3u8", "list.mp4"] {
            await expectConvertError(.inputCorrupt) { _ = try await MediaProbe.probe(path: Fixtures.generated(name)) }
        }
        #expect(
            !Demuxer.formatWhitelist.split(separator: ",").contains { Demuxer.referencingDemuxers.contains(String($0)) }
        )
        #expect(Demuxer.formatWhitelist.contains("mov,mp4,m4a"))
    }

    @Test("filter graph descriptions are checked for filters that open files")
    func filterNames() {
        #expect(
            FilterGraph.filterNames("scale=w=2:h=2,format=yuv420p;movie=/etc/passwd") == ["scale", "format", "movie"])
        #expect(!Set(FilterGraph.filterNames("trim=start=0:duration=1,fps=10")).contains("movie"))
    }
}
