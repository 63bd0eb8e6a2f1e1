import Foundation
import Testing

@testable import ConvertCore
@testable import ConvertMedia

/// Issue #53: inputs that cannot be converted as asked, each made the way a user's file gets that
/// way (a damaged table, a broken colour profile, a clip that lost its samples or its length), fail
/// with their own code, a message naming the problem, and nothing written.
@Suite("Error codes: inputs that cannot be converted")
struct InputErrorCodeTests {
    /// Writes `bytes` as `name` in `folder` and returns its path.
    static func write(_ bytes: [UInt8], _ name: String, in folder: URL) throws -> String {
        let path = folder.appendingPathComponent(name).path
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// The bytes of a fixture.
    static func bytes(_ path: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
    }

    /// A photo request writing into `outputs`.
    static func photo(_ input: String, _ format: PhotoFormat, outputs: URL, color: ColorPolicy = .keep) -> ConversionJob
    {
        PhotoConverter.convert(
            PhotoRequest(inputPath: input, format: format, outputDirectory: outputs.path, color: color))
    }

    @Test("a HEIF whose item table is over offconvert's limit: input.limit, the limit named")
    func heifTableOverLimit() async throws {
        let folder = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let outputs = try Fixtures.temporaryDirectory("outputs")
        defer { try? FileManager.default.removeItem(at: outputs) }
        let path = try Self.write(CraftedFiles.heifWithItems(HeifMeta.Limits.items + 1), "many.heic", in: folder)
        await ErrorCodeMessages.expectFailure(
            Self.photo(path, .jpeg, outputs: outputs), .inputLimit, saying: "limit of \(HeifMeta.Limits.items)",
            folder: outputs)
    }

    @Test("a HEIF whose image data claims 4 GB: libheif refuses the memory, input.too-large")
    func heifTooLarge() async throws {
        let folder = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let outputs = try Fixtures.temporaryDirectory("outputs")
        defer { try? FileManager.default.removeItem(at: outputs) }
        var file = try Self.bytes(Fixtures.path("photos/zPug_3.heic"))
        #expect(CraftedFiles.setExtentLengths(in: &file, to: 0xF000_0000) > 0)
        let path = try Self.write(file, "claims-4gb.heic", in: folder)
        await ErrorCodeMessages.expectFailure(
            Self.photo(path, .jpeg, outputs: outputs), .inputTooLarge, saying: "is too large to", folder: outputs)
    }

    @Test("an RGB colour profile without tags cannot be converted to sRGB: input.color-profile")
    func colourProfile() async throws {
        let folder = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let outputs = try Fixtures.temporaryDirectory("outputs")
        defer { try? FileManager.default.removeItem(at: outputs) }
        let jpeg = try Self.bytes(Fixtures.path("photos/tokyo.jpg"))
        let path = try Self.write(
            CraftedFiles.jpeg(jpeg, withICC: CraftedFiles.taglessRGBProfile()), "profile.jpg", in: folder)
        await ErrorCodeMessages.expectFailure(
            Self.photo(path, .png, outputs: outputs, color: .sRGB), .inputColorProfile,
            saying: "colour profile that cannot be converted to sRGB", folder: outputs)
        // Kept as it is, the profile is no obstacle: only the conversion to sRGB needs it to work.
        let kept = try await Self.photo(path, .png, outputs: outputs).result()
        #expect(kept.outputs.count == 1)
    }

    @Test("a path that is a loop of symbolic links: input.unreadable for a photo and a video")
    func symlinkLoop() async throws {
        let folder = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let outputs = try Fixtures.temporaryDirectory("outputs")
        defer { try? FileManager.default.removeItem(at: outputs) }
        let first = folder.appendingPathComponent("a.jpg").path
        let second = folder.appendingPathComponent("b.mp4").path
        try FileManager.default.createSymbolicLink(atPath: first, withDestinationPath: second)
        try FileManager.default.createSymbolicLink(atPath: second, withDestinationPath: first)
        await ErrorCodeMessages.expectFailure(
            Self.photo(first, .png, outputs: outputs), .inputUnreadable, saying: "cannot be read", folder: outputs)
        await ErrorCodeMessages.expectFailure(
            VideoConverter.convert(.sendToWindows(second, output: OutputLocation(directory: outputs.path))),
            .inputUnreadable, saying: "cannot be read", folder: outputs)
    }

    @Test("sound only, with or without cover art, asked to become a video: input.no-video")
    func noVideo() async throws {
        let outputs = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: outputs) }
        for input in [Fixtures.generated("tone-1s.wav"), Fixtures.generated("song-cover.flac")] {
            await ErrorCodeMessages.expectFailure(
                VideoConverter.convert(.sendToWindows(input, output: OutputLocation(directory: outputs.path))),
                .inputNoVideo, saying: "has no video track", folder: outputs)
        }
    }

    @Test("an MP4 whose video track lost its samples: a copy has no data to write, input.no-data")
    func noData() async throws {
        let folder = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let outputs = try Fixtures.temporaryDirectory("outputs")
        defer { try? FileManager.default.removeItem(at: outputs) }
        var file = try Self.bytes(Fixtures.path("video/bikes.mp4"))
        // stsz, stts, stsc, stco, stss and ctts.
        #expect(CraftedFiles.emptySampleTables(in: &file) == 6)
        let path = try Self.write(file, "no-samples.mp4", in: folder)
        // The track still declares H.264 at 640x272, so the file is a video; it just has no frames.
        #expect(try MediaTool.probe(path).video?.int("width") == 640)
        await ErrorCodeMessages.expectFailure(
            VideoConverter.convert(
                VideoRequest(input: path, container: .mp4, output: OutputLocation(directory: outputs.path))),
            .inputNoData, saying: "has no readable data", folder: outputs)
    }

    @Test("an MP4 whose durations are all 0: a size target cannot be planned, input.no-duration")
    func noDuration() async throws {
        let folder = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let outputs = try Fixtures.temporaryDirectory("outputs")
        defer { try? FileManager.default.removeItem(at: outputs) }
        var file = try Self.bytes(Fixtures.path("video/bikes.mp4"))
        #expect(CraftedFiles.zeroDurations(in: &file) >= 3)
        let path = try Self.write(file, "no-duration.mp4", in: folder)
        await ErrorCodeMessages.expectFailure(
            VideoConverter.compress(
                VideoCompressRequest(
                    input: path, targetBytes: 1_000_000, output: OutputLocation(directory: outputs.path))),
            .inputNoDuration, saying: "does not say how long it is", folder: outputs)
    }

    @Test("strip-location on a PNG with compressed XMP or ImageMagick's raw profile: privacy.compressed-metadata")
    func compressedMetadata() async throws {
        let folder = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let outputs = try Fixtures.temporaryDirectory("outputs")
        defer { try? FileManager.default.removeItem(at: outputs) }
        let png = try Self.bytes(Fixtures.generated("stress-tiny.png"))
        let rawProfile = PNGChunkTests.chunk("tEXt", Array("Raw profile type exif\0\nexif\n      4\n45786966\n".utf8))
        // iTXt: keyword, NUL, compression flag 1 (zlib), method 0, empty language and translated keyword.
        let compressed = PNGChunkTests.chunk(
            "iTXt", Array("XML:com.adobe.xmp\0".utf8) + [1, 0, 0, 0, 0x78, 0x9C, 3, 0, 0, 0, 0, 1])
        for (name, chunk, words) in [
            ("raw-profile.png", rawProfile, "legacy text chunk"), ("compressed-xmp.png", compressed, "XMP compressed"),
        ] {
            // After the 8-byte signature and the 25-byte IHDR chunk.
            let path = try Self.write(Array(png[..<33]) + chunk + Array(png[33...]), name, in: folder)
            let destination = outputs.appendingPathComponent(name).path
            await ErrorCodeMessages.expectFailure(
                LocationStripper.strip(StripLocationRequest(input: path, destination: destination)),
                .privacyCompressedMetadata, saying: words, folder: outputs)
        }
    }

    @Test(
        "the tone-map measurement: an SDR clip is not HDR, a raw output it cannot create or fill is a device error",
        .enabled(if: TinyDisk.canMount, "filling a disk needs a tmpfs, which needs root with CAP_SYS_ADMIN"))
    func toneMapMeasurement() throws {
        let sdr = expectConvertError(.requestNotHdr) {
            try ToneMapFloor.run(path: Fixtures.path("video/bikes.mp4"), mode: .table)
        }
        #expect(sdr?.message.contains("has no PQ or HLG video") == true)
        let folder = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let hdr = Fixtures.generated("pq-hevc.mp4")
        let missing = folder.appendingPathComponent("no folder/frames.yuv").path
        expectConvertError(.deviceCreate) { try ToneMapFloor.run(path: hdr, mode: .table, rawOutput: missing) }
        // Room for a few kilobytes: the first frame's rows do not fit.
        let disk = try TinyDisk.mount(size: "64k", leavingFree: 4_096)
        defer { TinyDisk.unmount(disk) }
        let full = disk.appendingPathComponent("frames.yuv").path
        let error = expectConvertError(.deviceWrite) { try ToneMapFloor.run(path: hdr, mode: .table, rawOutput: full) }
        #expect(error?.message.contains("Cannot write") == true)
    }
}
