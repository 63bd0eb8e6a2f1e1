import Foundation
import Testing

/// BMP and TIFF photos from the command line (issue #38): `info` calls a TIFF an image with its
/// pages, `convert` reads both (a multi-page TIFF's first page with a note, or each page with
/// `--all-images`), 16 bits stay 16 bits in a PNG, damaged files convert with a note or fail
/// cleanly. Pictures are checked with FFmpeg's decoders. Fixtures: TestMedia/generators/85-bmp-tiff.sh.
@Suite(
    "BMP and TIFF commands",
    .enabled(
        if: FileManager.default.fileExists(
            atPath: CLIRunner.media.appendingPathComponent("generated/tiff/multi.tiff").path)))
struct BMPTIFFCommandTests {
    /// An environment with a state folder of its own: each conversion starts with a fresh free
    /// allowance (three a day), so a test may run more than three.
    static func freshState(_ folder: UserFolder) -> [String: String] {
        ["XDG_STATE_HOME": folder.url.appendingPathComponent(".state-\(UUID().uuidString.prefix(8))").path]
    }

    /// FFmpeg's decode of `path` as raw `pixelFormat` samples (through a file: the samples are
    /// not text).
    static func ffmpeg(_ path: String, _ pixelFormat: String, in folder: UserFolder) async throws -> [UInt8] {
        let raw = folder.url.appendingPathComponent("ffmpeg-\(UUID().uuidString.prefix(8)).raw").path
        let outcome = try await MotionCommandsTests.tool(
            "ffmpeg", ["-v", "error", "-i", path, "-f", "rawvideo", "-pix_fmt", pixelFormat, "-y", raw])
        #expect(outcome.status == 0, "\(outcome.stderr)")
        defer { try? FileManager.default.removeItem(atPath: raw) }
        return Array(try Data(contentsOf: URL(fileURLWithPath: raw)))
    }

    @Test("info calls a TIFF an image (not a video) with its size and pages, and a BMP an image")
    func info() async throws {
        let folder = try UserFolder()
        defer { folder.remove() }
        try folder.add("generated/tiff/multi.tiff", as: "scan.tiff")
        try folder.add("generated/bmp/v5-alpha.bmp", as: "icon.bmp")
        let text = try await folder.run(["info", "scan.tiff"])
        #expect(text.status == 0, "\(text.stderr)")
        #expect(
            text.stdout.contains("TIFF image") && text.stdout.contains("121x87") && text.stdout.contains("3 images"),
            "\(text.stdout)")
        #expect(!text.stdout.contains("fps") && !text.stdout.contains("video"), "\(text.stdout)")
        let json = try await folder.run(["info", "--json", "scan.tiff", "icon.bmp"])
        #expect(json.status == 0, "\(json.stderr)")
        #expect(
            json.stdout.contains("\"imageCount\":3") && json.stdout.contains("\"format\":\"tiff\""), "\(json.stdout)")
        #expect(json.stdout.contains("\"format\":\"bmp\""), "\(json.stdout)")
    }

    @Test("convert scan.tiff --to jpg (the issue's command) and a BMP to PNG, checked against FFmpeg's decodes")
    func convert() async throws {
        let folder = try UserFolder()
        defer { folder.remove() }
        try folder.add("generated/tiff/rgb-lzw.tiff", as: "scan.tiff")
        try folder.add("generated/bmp/rle8.bmp", as: "old picture.bmp")
        let jpeg = try await folder.run(["convert", "scan.tiff", "--to", "jpg"], environment: Self.freshState(folder))
        #expect(jpeg.status == 0, "\(jpeg.stderr)")
        let tiff = folder.url.appendingPathComponent("scan.tiff").path
        let jpegPSNR = try await DamagedPhotoCommandTests.psnr(
            folder.url.appendingPathComponent("scan.jpg").path, ["-i", tiff])
        #expect(jpegPSNR >= 30, "\(jpegPSNR) dB")
        let png = try await folder.run(
            ["convert", "old picture.bmp", "--to", "png"], environment: Self.freshState(folder))
        #expect(png.status == 0, "\(png.stderr)")
        let bmp = folder.url.appendingPathComponent("old picture.bmp").path
        let pngPSNR = try await DamagedPhotoCommandTests.psnr(
            folder.url.appendingPathComponent("old picture.png").path, ["-i", bmp])
        #expect(pngPSNR == .infinity, "\(pngPSNR) dB")
        // Read only: asking for a TIFF or BMP output is a usage error.
        let refused = try await folder.run(
            ["convert", "old picture.bmp", "--to", "tiff"], environment: Self.freshState(folder))
        #expect(refused.status == 64, "\(refused.stderr)")
    }

    @Test("a 3-page TIFF: the first page with a note; --all-images writes each page")
    func pages() async throws {
        let folder = try UserFolder()
        defer { folder.remove() }
        try folder.add("generated/tiff/multi.tiff", as: "scan.tif")
        let one = try await folder.run(
            ["convert", "scan.tif", "--to", "png", "-o", "one"], environment: Self.freshState(folder))
        #expect(one.status == 0, "\(one.stderr)")
        #expect(one.stderr.contains("scan.tif: 3 pages; the first kept (--all-images writes each)"), "\(one.stderr)")
        #expect(folder.files().filter { $0.hasPrefix("one/") } == ["one/scan.png"])
        // --json: the note as the terminal shows it, and its stable kind beside it.
        let json = try await folder.run(
            ["convert", "scan.tif", "--to", "png", "--json", "-o", "json"], environment: Self.freshState(folder))
        let finished = try #require(
            try PhotoCommandsTests.jsonLines(json.stdout).first { $0["event"] as? String == "finished" },
            "\(json.stdout)")
        #expect(
            finished["notes"] as? [String] == ["3 pages; the first kept (--all-images writes each)"], "\(json.stdout)")
        #expect(finished["noteKeys"] as? [String] == ["image.pages-left-out"], "\(json.stdout)")
        let all = try await folder.run(
            ["convert", "scan.tif", "--to", "png", "--all-images", "-o", "all"], environment: Self.freshState(folder))
        #expect(all.status == 0, "\(all.stderr)")
        #expect(!all.stderr.contains("pages; the first kept"), "\(all.stderr)")
        #expect(
            folder.files().filter { $0.hasPrefix("all/") } == ["all/scan-1.png", "all/scan-2.png", "all/scan-3.png"])
        let third = try await MotionCommandsTests.tool(
            "ffprobe",
            [
                "-v", "error", "-show_entries", "stream=width,height", "-of", "csv=p=0",
                folder.url.appendingPathComponent("all/scan-3.png").path,
            ])
        #expect(third.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "64,48")
        let second = try await DamagedPhotoCommandTests.psnr(
            folder.url.appendingPathComponent("all/scan-2.png").path,
            ["-i", CLIRunner.media.appendingPathComponent("generated/tiff/gray.tiff").path])
        #expect(second == .infinity, "\(second) dB")
    }

    @Test("a 16-bit TIFF gives a 16-bit PNG equal to FFmpeg's 16-bit decode of the TIFF")
    func sixteenBit() async throws {
        let folder = try UserFolder()
        defer { folder.remove() }
        try folder.add("generated/tiff/tiled48.tiff", as: "deep.tiff")
        let outcome = try await folder.run(["convert", "deep.tiff", "--to", "png"])
        #expect(outcome.status == 0, "\(outcome.stderr)")
        let png = folder.url.appendingPathComponent("deep.png").path
        let format = try await MotionCommandsTests.tool(
            "ffprobe", ["-v", "error", "-show_entries", "stream=pix_fmt", "-of", "csv=p=0", png])
        #expect(format.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "rgb48be", "\(format.stdout)")
        // The tiled file's reference is the striped one it was made from (FFmpeg 5.1 reads no tiles).
        let ours = try await Self.ffmpeg(png, "rgb48be", in: folder)
        let reference = try await Self.ffmpeg(
            CLIRunner.media.appendingPathComponent("generated/tiff/rgb48.tiff").path, "rgb48be", in: folder)
        #expect(ours.count == 121 * 87 * 6 && ours == reference)
    }

    @Test(
        "damaged BMP and TIFF: cut short converts with a note, --strict and a hostile size fail with exit 1 and write nothing"
    )
    func damaged() async throws {
        let folder = try UserFolder()
        defer { folder.remove() }
        try folder.add("generated/bmp/cut.bmp", as: "cut.bmp")
        try folder.add("generated/tiff/cut.tiff", as: "cut.tiff")
        try folder.add("generated/bmp/huge.bmp", as: "huge.bmp")
        for name in ["cut.bmp", "cut.tiff"] {
            let strict = try await folder.run(
                ["convert", name, "--to", "png", "--strict", "-o", "strict"], environment: Self.freshState(folder))
            #expect(strict.status == 1 && strict.stderr.contains("\(name) is damaged"), "\(strict.stderr)")
        }
        #expect(!folder.files().contains { $0.hasPrefix("strict/") })
        let kept = try await folder.run(
            ["convert", "cut.bmp", "cut.tiff", "--to", "png", "-o", "kept"], environment: Self.freshState(folder))
        #expect(kept.status == 0, "\(kept.stderr)")
        #expect(
            kept.stderr.contains(
                "cut.bmp: the file ends early (an interrupted copy or download): the top 40% of the picture is missing (shown grey)"
            ), "\(kept.stderr)")
        #expect(kept.stderr.contains("cut.tiff: part of the picture cannot be read"), "\(kept.stderr)")
        #expect(folder.files().filter { $0.hasPrefix("kept/") }.count == 2, "\(folder.files())")
        let huge = try await folder.run(
            ["convert", "huge.bmp", "--to", "png", "-o", "huge"], environment: Self.freshState(folder))
        #expect(huge.status == 1 && huge.stderr.contains("huge.bmp declares a 65535x65535 picture"), "\(huge.stderr)")
        #expect(!folder.files().contains { $0.hasPrefix("huge/") })
    }

    @Test(
        "a TIFF's camera and GPS tags: info reports the location, a conversion removes it (exiftool), --keep-location keeps it"
    )
    func location() async throws {
        let folder = try UserFolder()
        defer { folder.remove() }
        try folder.add("generated/tiff/gps.tiff", as: "scan.tiff")
        let info = try await folder.run(["info", "scan.tiff"])
        #expect(
            info.stdout.contains("location: yes, in EXIF GPS") && info.stdout.contains("Scanner X1"), "\(info.stdout)")
        let shared = try await folder.run(
            ["convert", "scan.tiff", "--to", "jpg", "--json"], environment: Self.freshState(folder))
        #expect(
            shared.status == 0 && shared.stdout.contains("\"privacy\":{\"location\":\"removed\"}"), "\(shared.stdout)")
        let tags = try await MotionCommandsTests.tool(
            "exiftool", ["-s", "-Make", "-GPSLatitude", folder.url.appendingPathComponent("scan.jpg").path])
        #expect(tags.stdout.contains("Scanner") && !tags.stdout.contains("GPSLatitude"), "\(tags.stdout)")
        let kept = try await folder.run(
            ["convert", "scan.tiff", "--to", "jpg", "--keep-location", "-o", "kept.jpg"],
            environment: Self.freshState(folder))
        #expect(kept.status == 0, "\(kept.stderr)")
        let keptTags = try await MotionCommandsTests.tool(
            "exiftool", ["-s", "-GPSLatitude", folder.url.appendingPathComponent("kept.jpg").path])
        #expect(keptTags.stdout.contains("48 deg 51"), "\(keptTags.stdout)")
    }

    @Test("a folder's .bmp and .tif files are photos to the batch; a .tif that is not one is a failure, not skipped")
    func triage() async throws {
        let folder = try UserFolder()
        defer { folder.remove() }
        try folder.add("generated/bmp/pal8.bmp", as: "in/a.bmp")
        try folder.add("generated/tiff/gray16.tiff", as: "in/b.tif")
        // TIFF's signature, then a first directory far past the end of the file.
        try Data([0x49, 0x49, 0x2A, 0, 0xFF, 0xFF, 0xFF, 0x7F, 0, 1, 2, 3]).write(
            to: folder.url.appendingPathComponent("in/c.tif"))
        let outcome = try await folder.run(["heic-to-jpg", "in", "-o", "out"])
        #expect(outcome.status == 1, "\(outcome.stderr)")
        #expect(folder.files().filter { $0.hasPrefix("out/") } == ["out/a.jpg", "out/b.jpg"], "\(folder.files())")
        #expect(outcome.stderr.contains("in/c.tif is damaged or not a TIFF image"), "\(outcome.stderr)")
    }
}
