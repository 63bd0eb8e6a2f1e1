import Foundation
import Testing

/// Issue #55: what the reference decoder (libjpeg-turbo, libpng, giflib, libtiff) shows, offconvert
/// converts, with a note naming the damage; `--strict` refuses it. Each file is made from a real
/// photo (tokyo.jpg, DSCN0010.jpg) the way the damage happens, and checked against djpeg, ffmpeg
/// or the picture the file's bytes describe.
@Suite(
    "photos the reference decoder shows, we show",
    .enabled(
        if: FileManager.default.isExecutableFile(atPath: "/usr/bin/djpeg")
            && FileManager.default.isExecutableFile(atPath: "/usr/bin/ffmpeg")
            && FileManager.default.isExecutableFile(atPath: "/usr/bin/python3")))
struct ReferenceDecoderCommandTests {
    /// `TestMedia/photos/<name>` as bytes.
    static func photo(_ name: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: CLIRunner.media.appendingPathComponent("photos/\(name)")))
    }

    /// Runs a python3 script with `arguments` in `folder`; fails the test when it fails.
    static func python(_ script: String, _ arguments: [String], in folder: UserFolder) async throws {
        let outcome = try await MotionCommandsTests.tool("python3", ["-c", script] + arguments)
        #expect(outcome.status == 0, "python3: \(outcome.stderr)")
    }

    /// The offset of the first `FF marker` segment of a JPEG's headers, found by walking the
    /// segments from SOI (an EXIF thumbnail inside APP1 has markers of its own).
    static func markerOffset(_ bytes: [UInt8], _ marker: UInt8) throws -> Int {
        var offset = 2
        while offset + 4 <= bytes.count, bytes[offset] == 0xFF, bytes[offset + 1] != marker {
            offset += 2 + (Int(bytes[offset + 2]) << 8 | Int(bytes[offset + 3]))
        }
        try #require(offset + 1 < bytes.count && bytes[offset + 1] == marker)
        return offset
    }

    @Test("a camera JPEG with 2 stray bytes before its DQT marker: convert, info and strip-location read it")
    func strayBytesBeforeDQT() async throws {
        let folder = try UserFolder()
        defer { folder.remove() }
        // DSCN0010.jpg: a Nikon photo with GPS in its EXIF; two bytes inserted before FF DB, as
        // some cameras write them (libjpeg: "Corrupt JPEG data: 2 extraneous bytes before marker 0xdb").
        var bytes = try Self.photo("DSCN0010.jpg")
        bytes.insert(contentsOf: [0x00, 0x00], at: try Self.markerOffset(bytes, 0xDB))
        try Data(bytes).write(to: folder.url.appendingPathComponent("camera.jpg"))

        let note = "camera.jpg: 2 stray bytes before the JPEG marker 0xdb skipped, as libjpeg and viewers skip them"
        let png = try await folder.run(["convert", "camera.jpg", "--to", "png"])
        #expect(png.status == 0, "\(png.stderr)")
        #expect(png.stderr.contains(note), "\(png.stderr)")
        #expect(
            try await DamagedPhotoCommandTests.psnrAgainstDjpeg(folder, input: "camera.jpg", output: "camera.png") >= 60
        )

        // Before the other conversions: the free allowance's three a day count only what is written.
        let strict = try await folder.run(["convert", "camera.jpg", "--to", "png", "--strict", "-o", "strict"])
        #expect(strict.status == 1 && strict.stderr.contains("is damaged"), "\(strict.stderr)")
        #expect(!folder.files().contains { $0.hasPrefix("strict/") })

        let jpeg = try await folder.run(["convert", "camera.jpg", "--to", "jpg", "-o", "again.jpg"])
        #expect(jpeg.status == 0, "\(jpeg.stderr)")

        let info = try await folder.run(["info", "camera.jpg"])
        #expect(info.status == 0 && info.stdout.contains("640x480"), "\(info.stdout)\(info.stderr)")

        let strip = try await folder.run(["strip-location", "camera.jpg", "-o", "clean.jpg"])
        #expect(strip.status == 0, "\(strip.stderr)")
        let cleaned = try await folder.run(["info", "clean.jpg"])
        #expect(cleaned.status == 0 && cleaned.stdout.contains("location: none"), "\(cleaned.stdout)")
    }

    @Test("a JPEG with junk bytes between SOI and its first marker is a JPEG, decoded as djpeg decodes it")
    func junkAfterSOI() async throws {
        let folder = try UserFolder()
        defer { folder.remove() }
        var bytes = try Self.photo("tokyo.jpg")
        bytes.insert(contentsOf: [0x00, 0x12, 0x34], at: 2)
        try Data(bytes).write(to: folder.url.appendingPathComponent("junk.jpg"))
        let png = try await folder.run(["convert", "junk.jpg", "--to", "png"])
        #expect(png.status == 0, "\(png.stderr)")
        #expect(png.stderr.contains("junk.jpg: 3 stray bytes before the JPEG marker 0xe0 skipped"), "\(png.stderr)")
        #expect(
            try await DamagedPhotoCommandTests.psnrAgainstDjpeg(folder, input: "junk.jpg", output: "junk.png") >= 60)
        let info = try await folder.run(["info", "junk.jpg"])
        #expect(info.status == 0 && info.stdout.contains("JPEG image"), "\(info.stdout)\(info.stderr)")
        let strict = try await folder.run(["convert", "junk.jpg", "--to", "png", "--strict", "-o", "strict"])
        #expect(strict.status == 1, "\(strict.stderr)")
    }

    @Test("a GIF cut short shows the rows it holds, the rest transparent, with a note; --strict refuses it")
    func gifCutShort() async throws {
        let folder = try UserFolder()
        defer { folder.remove() }
        let full = folder.url.appendingPathComponent("full.gif").path
        _ = try await MotionCommandsTests.tool(
            "ffmpeg",
            [
                "-v", "error", "-i", CLIRunner.media.appendingPathComponent("photos/tokyo.jpg").path, "-vf",
                "scale=240:320", full,
            ])
        let bytes = try Data(contentsOf: URL(fileURLWithPath: full))
        try bytes.prefix(bytes.count * 6 / 10).write(to: folder.url.appendingPathComponent("cut.gif"))
        let strict = try await folder.run(["convert", "cut.gif", "--to", "png", "--strict", "-o", "strict"])
        #expect(strict.status == 1 && strict.stderr.contains("is incomplete"), "\(strict.stderr)")

        let outcome = try await folder.run(["convert", "cut.gif", "--to", "png", "-o", "out"])
        #expect(outcome.status == 0, "\(outcome.stderr)")
        let note = "cut.gif: the file ends early (an interrupted copy or download): the bottom "
        #expect(outcome.stderr.contains(note), "\(outcome.stderr)")
        let percent = outcome.stderr.components(separatedBy: note).last?.prefix { $0.isNumber }
        let missing = try #require(percent.flatMap { Int($0) })
        #expect((20...60).contains(missing), "\(outcome.stderr)")
        let info = try await folder.run(["info", "cut.gif"])
        #expect(info.status == 0 && info.stdout.contains("240x320"), "\(info.stdout)\(info.stderr)")
        // The rows above the cut are ffmpeg's decode of the whole GIF exactly; the last rows are
        // transparent (alpha 0).
        let output = folder.url.appendingPathComponent("out/cut.png").path
        let kept = 320 * (99 - missing) / 100
        #expect(try await DamagedPhotoCommandTests.psnr(output, ["-i", full], top: 0, rows: kept) == .infinity)
        let alpha = try await MotionCommandsTests.tool(
            "ffmpeg",
            [
                "-v", "error", "-i", output, "-vf", "crop=240:8:0:312,format=rgba,alphaextract", "-f", "rawvideo",
                "-",
            ])
        #expect(alpha.stdout.utf8.allSatisfy { $0 == 0 } && !alpha.stdout.isEmpty)
    }

    /// Writes `tokyo.jpg` scaled to 64×48 as an 8-bit palette PNG with 16 grey entries to
    /// `name`, its tRNS chunk (every entry transparent) placed and sized by `layout`
    /// (`long`: one entry more than PLTE; `early`: before PLTE), and the picture libpng shows
    /// (the tRNS ignored: opaque grey) to `name.ref.pam`.
    static let palettePNG = """
        import struct, subprocess, sys, zlib
        source, out, layout = sys.argv[1], sys.argv[2], sys.argv[3]
        raw = subprocess.run(["ffmpeg", "-v", "error", "-i", source, "-vf", "scale=64:48", "-f", "rawvideo",
                              "-pix_fmt", "gray", "-"], check=True, capture_output=True).stdout
        w, h = 64, 48
        def chunk(kind, body):
            return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))
        palette = b"".join(bytes([i * 17] * 3) for i in range(16))
        rows = b"".join(b"\\0" + bytes(raw[y * w + x] >> 4 for x in range(w)) for y in range(h))
        ihdr = chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 3, 0, 0, 0))
        plte, trns = chunk(b"PLTE", palette), chunk(b"tRNS", bytes(17 if layout == "long" else 16))
        middle = plte + trns if layout == "long" else trns + plte
        png = b"\\x89PNG\\r\\n\\x1a\\n" + ihdr + middle + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b"")
        open(out, "wb").write(png)
        pixels = bytes(c for v in raw for c in [(v >> 4) * 17] * 3)
        open(out + ".ref.pam", "wb").write(
            f"P7\\nWIDTH {w}\\nHEIGHT {h}\\nDEPTH 3\\nMAXVAL 255\\nTUPLTYPE RGB\\nENDHDR\\n".encode() + pixels)
        """

    @Test(
        "a PNG whose tRNS has one entry more than PLTE, or comes before it, is read as libpng reads it",
        arguments: ["long", "early"])
    func invalidTransparency(layout: String) async throws {
        let folder = try UserFolder()
        defer { folder.remove() }
        let name = "\(layout).png"
        let path = folder.url.appendingPathComponent(name).path
        try await Self.python(
            Self.palettePNG, [CLIRunner.media.appendingPathComponent("photos/tokyo.jpg").path, path, layout],
            in: folder)
        let outcome = try await folder.run(["convert", name, "--to", "png", "-o", "out"])
        #expect(outcome.status == 0, "\(outcome.stderr)")
        let reason = layout == "long" ? "17 entries for a palette of 16" : "before the palette"
        #expect(
            outcome.stderr.contains(
                "\(name): its transparency chunk (tRNS) is invalid (\(reason)): ignored, as libpng ignores it"),
            "\(outcome.stderr)")
        #expect(
            try await DamagedPhotoCommandTests.psnr(
                folder.url.appendingPathComponent("out/\(name)").path, ["-i", path + ".ref.pam"]) == .infinity)
        let strict = try await folder.run(["convert", name, "--to", "png", "--strict", "-o", "strict"])
        #expect(strict.status == 1 && strict.stderr.contains("tRNS"), "\(strict.stderr)")
        #expect(!strict.stderr.contains("row layout"), "\(strict.stderr)")
    }

    /// Writes `tokyo.jpg` at 40×30 and 64×48 as 24-bit OS/2 bitmaps: `array.bmp` (a `BA` bitmap
    /// array of the two, the small one first), `os2v2.bmp` (the 64×48 one with a 16-byte
    /// BITMAPINFOHEADER2) and `os2v2.ref.pam`, the 64×48 picture.
    static let os2Bitmaps = """
        import struct, subprocess, sys
        source, folder = sys.argv[1], sys.argv[2]
        def pixels(w, h):
            return subprocess.run(["ffmpeg", "-v", "error", "-i", source, "-vf", f"scale={w}:{h}", "-f", "rawvideo",
                                   "-pix_fmt", "bgr24", "-"], check=True, capture_output=True).stdout
        def rows(w, h, bgr):
            stride = (w * 3 + 3) // 4 * 4
            return b"".join(bgr[y * w * 3:(y + 1) * w * 3].ljust(stride, b"\\0") for y in reversed(range(h)))
        def info16(w, h):
            return struct.pack("<IiiHH", 16, w, h, 1, 24)
        small, large = pixels(40, 30), pixels(64, 48)
        body = rows(64, 48, large)
        open(f"{folder}/os2v2.bmp", "wb").write(
            b"BM" + struct.pack("<IHHI", 14 + 16 + len(body), 0, 0, 30) + info16(64, 48) + body)
        rgb = bytes(c for i in range(0, len(large), 3) for c in (large[i + 2], large[i + 1], large[i]))
        open(f"{folder}/os2v2.ref.pam", "wb").write(
            b"P7\\nWIDTH 64\\nHEIGHT 48\\nDEPTH 3\\nMAXVAL 255\\nTUPLTYPE RGB\\nENDHDR\\n" + rgb)
        # The array: BA(14) BM(14) info(12: BITMAPCOREHEADER) for each, then the pixel data.
        first, second = rows(40, 30, small), rows(64, 48, large)
        data1 = 2 * 40
        data2 = data1 + len(first)
        def member(next_offset, w, h, offset):
            return (b"BA" + struct.pack("<IIHH", 40, next_offset, 0, 0) + b"BM" + struct.pack("<IHHI", 26, 0, 0, offset)
                    + struct.pack("<IHHHH", 12, w, h, 1, 24))
        array = member(40, 40, 30, data1) + member(0, 64, 48, data2) + first + second
        open(f"{folder}/array.bmp", "wb").write(array)
        """

    @Test("OS/2 bitmaps: a bitmap array is read as its largest bitmap, a 16-byte OS/2 2.x header as it is")
    func os2Bitmaps() async throws {
        let folder = try UserFolder()
        defer { folder.remove() }
        try await Self.python(
            Self.os2Bitmaps, [CLIRunner.media.appendingPathComponent("photos/tokyo.jpg").path, folder.url.path],
            in: folder)
        let outcome = try await folder.run(["convert", "array.bmp", "os2v2.bmp", "--to", "png", "-o", "out"])
        #expect(outcome.status == 0, "\(outcome.stderr)")
        #expect(
            outcome.stderr.contains("array.bmp: an OS/2 bitmap array of 2 bitmaps: the largest (64x48) converted"),
            "\(outcome.stderr)")
        let reference = folder.url.appendingPathComponent("os2v2.ref.pam").path
        for name in ["array", "os2v2"] {
            let output = folder.url.appendingPathComponent("out/\(name).png").path
            #expect(try await DamagedPhotoCommandTests.psnr(output, ["-i", reference]) == .infinity, "\(name)")
        }
        let info = try await folder.run(["info", "array.bmp"])
        #expect(info.status == 0 && info.stdout.contains("64x48"), "\(info.stdout)\(info.stderr)")
    }

    @Test("a BMP whose RLE data sets no pixel is converted with a note saying so; --strict refuses it")
    func emptyRLE() async throws {
        let folder = try UserFolder()
        defer { folder.remove() }
        // 8-bit RLE, 16×8, a grey ramp palette, the data an end-of-bitmap escape and nothing else.
        var file = Array("BM".utf8) + [0, 0, 0, 0, 0, 0, 0, 0]
        let palette: [UInt8] = (0..<256).flatMap { (level: Int) -> [UInt8] in
            [UInt8(level), UInt8(level), UInt8(level), 0]
        }
        let offset = 14 + 40 + palette.count
        file += [UInt8(offset & 0xFF), UInt8(offset >> 8), 0, 0]
        file += [40, 0, 0, 0, 16, 0, 0, 0, 8, 0, 0, 0, 1, 0, 8, 0, 1, 0, 0, 0, 2, 0, 0, 0]
        file += [UInt8](repeating: 0, count: 16) + palette + [0, 1]
        try Data(file).write(to: folder.url.appendingPathComponent("empty.bmp"))
        let outcome = try await folder.run(["convert", "empty.bmp", "--to", "png"])
        #expect(outcome.status == 0, "\(outcome.stderr)")
        #expect(outcome.stderr.contains("empty.bmp: its RLE data holds no pixels"), "\(outcome.stderr)")
        let strict = try await folder.run(["convert", "empty.bmp", "--to", "png", "--strict", "-o", "strict"])
        #expect(strict.status == 1 && strict.stderr.contains("holds no pixels"), "\(strict.stderr)")
    }

    @Test("a still format offconvert does not read is named; TGA, PNM, PAM, JPEG 2000 and ICO convert; none is a video")
    func foreignStills() async throws {
        let folder = try UserFolder()
        defer { folder.remove() }
        let source = CLIRunner.media.appendingPathComponent("photos/tokyo.jpg").path
        // Made by ffmpeg's own encoders and muxers, as other programs write them.
        let made: [(name: String, arguments: [String], says: String?)] = [
            ("lena.pcx", ["-vf", "scale=64:48"], "lena.pcx is PCX, which offconvert does not read."),
            ("shot.tga", ["-vf", "scale=64:48"], nil), ("scan.ppm", ["-vf", "scale=64:48"], nil),
            ("scan.pam", ["-vf", "scale=64:48", "-pix_fmt", "rgb24"], nil),
            ("art.jp2", ["-vf", "scale=64:48", "-c:v", "jpeg2000"], nil),
            ("app.ico", ["-vf", "scale=64:64", "-c:v", "bmp", "-f", "ico"], nil),
        ]
        for file in made {
            let outcome = try await MotionCommandsTests.tool(
                "ffmpeg",
                ["-v", "error", "-i", source, "-frames:v", "1"] + file.arguments
                    + [folder.url.appendingPathComponent(file.name).path])
            #expect(outcome.status == 0, "ffmpeg \(file.name): \(outcome.stderr)")
        }
        // A Photoshop document's header (PSD version 1, 3 channels, 48×64, 8 bits, RGB) without
        // its picture: damaged, and said so.
        var psd = Array("8BPS".utf8) + [0, 1] + [UInt8](repeating: 0, count: 6) + [0, 3]
        psd += [0, 0, 0, 48, 0, 0, 0, 64, 0, 8, 0, 3] + [UInt8](repeating: 0, count: 64)
        try Data(psd).write(to: folder.url.appendingPathComponent("layers.psd"))

        for (name, says) in made.map({ ($0.name, $0.says) }) + [("layers.psd", "layers.psd is damaged")] {
            let outcome = try await folder.run(
                ["convert", name, "--to", "png"], environment: BMPTIFFCommandTests.freshState(folder))
            let info = try await folder.run(["info", name])
            #expect(!info.stdout.contains("video") && !info.stdout.contains("Video"), "\(name): \(info.stdout)")
            guard let says else {
                #expect(outcome.status == 0, "\(name): \(outcome.status) \(outcome.stderr)")
                #expect(info.status == 0 && info.stdout.contains("picture: "), "\(name): \(info.stdout)")
                continue
            }
            #expect(outcome.status == 1, "\(name): \(outcome.status) \(outcome.stderr)")
            #expect(outcome.stderr.contains(says), "\(name): \(outcome.stderr)")
        }
        let pcxInfo = try await folder.run(["info", "lena.pcx"])
        #expect(pcxInfo.status == 0 && pcxInfo.stdout.contains("which offconvert does not read"), "\(pcxInfo.stdout)")
        let clip = try await folder.run(["convert", "lena.pcx", "--to", "mp4"])
        #expect(clip.status != 0 && !folder.files().contains("lena.mp4"), "\(clip.stderr)")
    }

    @Test("a JPEG with 4:1:0 chroma (Go's test frames, baseline, progressive): info and convert read it as djpeg")
    func chroma410() async throws {
        let folder = try UserFolder()
        defer { folder.remove() }
        // TurboJPEG's header call has no name for this layout and refuses it; libjpeg decodes it.
        for name in ["chroma-410.jpeg", "chroma-410-progressive.jpeg"] {
            try Data(try Self.photo("formats/\(name)")).write(to: folder.url.appendingPathComponent(name))
            let info = try await folder.run(["info", name])
            #expect(info.status == 0 && info.stdout.contains("picture: 150x103, 8-bit"), "\(info.stdout)\(info.stderr)")
            let png = try await folder.run(["convert", name, "--to", "png"])
            #expect(png.status == 0, "\(png.stderr)")
            let output = (name as NSString).deletingPathExtension + ".png"
            #expect(try await DamagedPhotoCommandTests.psnrAgainstDjpeg(folder, input: name, output: output) >= 99)
        }
    }
}
