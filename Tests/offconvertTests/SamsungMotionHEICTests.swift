import Foundation
import Testing

/// Samsung HEICs as One UI 6 writes them (TestMedia/generators/71-motion-samsung-heic.sh rebuilds
/// a real Galaxy S22+ file's layout: ftyp, mdat, meta, free, `mpvd` with the MP4, `sefd` whose
/// `MotionPhoto_Data` is a 12-byte pointer), and a Samsung HEIC without motion. Run from a user's
/// folder with relative paths; checked with exiftool (which reads the `mpvd` box and the SEF
/// trailer on its own), ffmpeg's stream hash and libheif's heif-convert.
@Suite("Samsung HEIC motion photos (One UI 6)", .enabled(if: MotionCommandsTests.haveTools))
struct SamsungMotionHEICTests {
    static let motion = "generated/motion-samsung-oneui6.heic"

    /// The top-level box types of the file at `path`, in order.
    static func boxTypes(_ path: String) throws -> [String] {
        let data = try #require(FileManager.default.contents(atPath: path))
        var types: [String] = []
        var at = 0
        while at + 8 <= data.count {
            let size = data[at..<(at + 4)].reduce(0) { $0 << 8 | Int($1) }
            types.append(String(decoding: data[(at + 4)..<(at + 8)], as: UTF8.self))
            guard size >= 8 else { break }
            at += size
        }
        return types
    }

    @Test("info names the video in the mpvd box; extract-motion copies it stream for stream")
    func extract() async throws {
        let folder = try UserFolder()
        defer { folder.remove() }
        try folder.add(Self.motion, as: "20240506_070809.heic")
        let info = try await folder.run(["info", "20240506_070809.heic"])
        #expect(info.status == 0, "\(info.stderr)")
        #expect(info.stdout.contains("motion: Samsung motion photo (HEIC), MP4 of 25.8 kB"), "\(info.stdout)")
        #expect(!info.stdout.contains("not there") && !info.stdout.contains("shortened"), "\(info.stdout)")
        let json = try await folder.run(["info", "--json", "20240506_070809.heic"])
        #expect(json.stdout.contains(#""layout":"samsung-heif""#), "\(json.stdout)")

        let extracted = try await folder.run(["extract-motion", "20240506_070809.heic"])
        #expect(extracted.status == 0, "\(extracted.stderr)")
        let video = folder.url.appendingPathComponent("20240506_070809.mp4").path
        #expect(
            try await MotionCommandsTests.streamHash(video)
                == MotionCommandsTests.streamHash(MotionCommandsTests.generated("motion-clip.mp4")))
        // exiftool finds the same MP4 in the box, byte for byte.
        let exif = folder.url.appendingPathComponent("exiftool.mp4")
        let dump = try await MotionCommandsTests.tool(
            "sh",
            [
                "-c", "exiftool -b -MotionPhotoVideo \"$0\" > \"$1\"",
                folder.url.appendingPathComponent("20240506_070809.heic").path, exif.path,
            ])
        #expect(dump.status == 0)
        #expect(
            FileManager.default.contents(atPath: exif.path)
                == FileManager.default.contents(atPath: MotionCommandsTests.generated("motion-clip.mp4")))
    }

    @Test("strip-motion removes the mpvd box and the trailer's motion entries, and keeps every other byte")
    func strip() async throws {
        let folder = try UserFolder()
        defer { folder.remove() }
        try folder.add(Self.motion, as: "S.heic")
        let outcome = try await folder.run(["strip-motion", "S.heic"])
        #expect(outcome.status == 0, "\(outcome.stderr)")
        #expect(outcome.stderr.contains("removed 25"), "\(outcome.stderr)")
        let output = folder.url.appendingPathComponent("S (still).heic").path
        #expect(try Self.boxTypes(output) == ["ftyp", "mdat", "meta", "free", "sefd"])

        let before = try await MotionCommandsTests.tool(
            "exiftool", ["-a", "-s", "-G1", folder.url.appendingPathComponent("S.heic").path])
        #expect(
            before.stdout.contains("MotionPhotoVideo") && before.stdout.contains("EmbeddedVideoFile"),
            "\(before.stdout)")
        let tags = try await MotionCommandsTests.tool("exiftool", ["-ee", "-a", "-s", "-G1", output])
        for gone in ["MotionPhotoVideo", "EmbeddedVideo", "GCamera", "Container", "Warning"] {
            #expect(!tags.stdout.contains(gone), "\(gone) left in the still: \(tags.stdout)")
        }
        // Samsung's other trailer entries are the user's metadata: kept.
        #expect(
            tags.stdout.contains("[Samsung]") && tags.stdout.contains("TimeStamp") && tags.stdout.contains("MCCData"),
            "\(tags.stdout)")

        // Up to the end of the free box, only the XMP packet differs (its pointers blanked).
        let original = try #require(
            FileManager.default.contents(atPath: folder.url.appendingPathComponent("S.heic").path))
        let stripped = try #require(FileManager.default.contents(atPath: output))
        let mpvd = try #require(original.range(of: Data("mpvd".utf8))).lowerBound - 4
        let packet = try #require(original.range(of: Data("<x:xmpmeta".utf8))).lowerBound
        // The packet as exiftool wrote it ends with its <?xpacket end?> processing instruction.
        let metaEnd = try #require(original.range(of: Data("</x:xmpmeta>".utf8))).upperBound
        let packetEnd = try #require(original.range(of: Data("?>".utf8), in: metaEnd..<original.count)).upperBound
        let differing = zip(original.prefix(mpvd), stripped.prefix(mpvd)).enumerated().filter {
            $0.element.0 != $0.element.1
        }.map(\.offset)
        #expect(
            !differing.isEmpty && differing.allSatisfy { (packet..<packetEnd).contains($0) },
            "bytes changed outside the XMP")
        #expect(stripped.count < mpvd + 200)

        let decode = try await MotionCommandsTests.tool(
            "heif-convert", [output, folder.url.appendingPathComponent("d.png").path])
        #expect(decode.status == 0, "libheif cannot read the still: \(decode.stderr)")
        let again = try await folder.run(["info", "S (still).heic"])
        #expect(again.status == 0 && !again.stdout.contains("motion:"), "\(again.stdout)")
    }

    @Test("a Samsung HEIC without motion gets no 'motion part not kept' note, and info shows no motion")
    func stillPhoto() async throws {
        let folder = try UserFolder()
        defer { folder.remove() }
        try folder.add("generated/samsung-still.heic", as: "IMG 1.heic")
        try folder.add(Self.motion, as: "IMG 2.heic")
        let outcome = try await folder.run(["heic-to-jpg"] + (try folder.star()))
        #expect(outcome.status == 0, "\(outcome.stderr)")
        #expect(!outcome.stderr.contains("IMG 1.heic: motion part not kept"), "\(outcome.stderr)")
        #expect(outcome.stderr.contains("IMG 2.heic: motion part not kept"), "\(outcome.stderr)")
        let info = try await folder.run(["info", "IMG 1.heic"])
        #expect(info.status == 0 && !info.stdout.contains("motion:"), "\(info.stdout)")
        let strip = try await folder.run(["strip-motion", "IMG 1.heic"])
        #expect(strip.status == 0 && strip.stderr.contains("not a motion photo"), "\(strip.stderr)")
    }
}
