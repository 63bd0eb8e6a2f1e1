import Foundation
import Testing

/// AVIF as people have it (issue #55): an alpha image libheif 1.15 drops (its item has no `ispe`)
/// is kept, an animated AVIF is said to be one (its still image converts, with a note; `--to mp4`
/// takes its frames through FFmpeg), and a grid whose tiles are not hidden is one image. The
/// files: libavif's own test images (TestMedia/photos/formats/alpha.avif, animated.avif) and a
/// libavif-style 1×5 grid (TestMedia/generators/66-avif-grid.sh). The oracles (Tests/Oracles/avif-oracle.py):
/// ffmpeg's decode of each item's AV1 data on its own (the alpha is a monochrome AV1 image),
/// libavif through Pillow's AVIF plugin; ffprobe for the clip.
@Suite("AVIF alpha, animation and grids", .enabled(if: MotionCommandsTests.haveTools))
struct AVIFInputCommandTests {
    static let oracle = CLIRunner.root.appendingPathComponent("Tests/Oracles/avif-oracle.py").path

    /// The oracle's JSON answer to `arguments`.
    static func oracle(_ arguments: [String]) async throws -> [String: Any] {
        let python = GainMapCommandTests.python
        try #require(
            FileManager.default.isExecutableFile(atPath: python.path),
            "Pillow is missing: .build/oracle-venv (Scripts/test makes it)")
        let outcome = try await CLIRunner.run([oracle] + arguments, executable: python)
        try #require(outcome.status == 0, "\(outcome.stderr)")
        return try #require(
            try JSONSerialization.jsonObject(with: Data(outcome.stdout.utf8)) as? [String: Any], "\(outcome.stdout)")
    }

    @Test("an alpha image without ispe is kept: info says alpha, PNG and WebP keep it as ffmpeg decodes the alpha item")
    func alphaWithoutSize() async throws {
        let folder = try UserFolder()
        defer { folder.remove() }
        try folder.add("photos/formats/alpha.avif", as: "alpha.avif")
        let info = try await folder.run(["info", "alpha.avif"])
        #expect(info.status == 0 && info.stdout.contains("80x80, 8-bit, alpha"), "\(info.stdout)")
        #expect(!info.stdout.contains("auxiliary: transparency"), "\(info.stdout)")
        for target in ["png", "webp"] {
            let outcome = try await folder.run(["convert", "alpha.avif", "--to", target])
            #expect(outcome.status == 0, "\(outcome.stderr)")
            let source = folder.url.appendingPathComponent("alpha.avif").path
            let ours = folder.url.appendingPathComponent("alpha.\(target)").path
            let compared = try await Self.oracle(["alpha", source, ours])
            // The PNG is within a level of ffmpeg's decode; lossy WebP moves the colour of this
            // small picture's sharp edges (37 levels at worst, 5 on average), its alpha is lossless.
            #expect((compared["translucent"] as? Int ?? 0) > 2000, "\(compared)")
            #expect((compared["alpha"] as? Int ?? 255) <= 1, "\(target): \(compared)")
            if target == "png" {
                #expect((compared["rgb"] as? Int ?? 255) <= 2, "\(compared)")
            } else {
                #expect((compared["rgb_mean"] as? Double ?? 255) <= 8, "\(compared)")
            }
        }
        let jpeg = try await folder.run(["convert", "alpha.avif", "--to", "jpg"])
        #expect(jpeg.status == 0, "\(jpeg.stderr)")
        let flat = try await Self.oracle([
            "flat", folder.url.appendingPathComponent("alpha.avif").path,
            folder.url.appendingPathComponent("alpha.jpg").path,
        ])
        #expect((flat["psnr"] as? Double ?? 0) >= 30, "flattened onto white: \(flat)")
    }

    @Test("an alpha image whose size cannot be read is dropped with a note, the picture converted")
    func alphaSizeUnreadable() async throws {
        let folder = try UserFolder()
        defer { folder.remove() }
        // The alpha item's data starts at byte 391 (its iloc) with a temporal delimiter OBU; a
        // reserved OBU type there hides its sequence header.
        var bytes = [UInt8](try Data(contentsOf: CLIRunner.media.appendingPathComponent("photos/formats/alpha.avif")))
        try #require(bytes[391] == 0x12)
        bytes[391] = 0
        try Data(bytes).write(to: folder.url.appendingPathComponent("hidden.avif"))
        let outcome = try await folder.run(["convert", "hidden.avif", "--to", "png"])
        #expect(outcome.status == 0, "\(outcome.stderr)")
        #expect(
            outcome.stderr.contains(
                "hidden.avif: transparency dropped: its alpha image has no size offconvert or libheif can read"),
            "\(outcome.stderr)")
        let probe = try CLIRunner.toolOutput(
            "/usr/bin/ffprobe",
            [
                "-v", "error", "-show_entries", "stream=width,height,pix_fmt", "-of", "csv=p=0",
                folder.url.appendingPathComponent("hidden.png").path,
            ])
        #expect(probe.trimmingCharacters(in: .whitespacesAndNewlines) == "80,80,rgb24", "\(probe)")
    }

    @Test(
        "an animated AVIF: info counts its frames, a still says only its still image is kept, --to mp4 keeps them all")
    func animated() async throws {
        let folder = try UserFolder()
        defer { folder.remove() }
        try folder.add("photos/formats/animated.avif", as: "anim.avif")
        let source = folder.url.appendingPathComponent("anim.avif").path
        let reference = try await Self.oracle(["frames", source])
        #expect(reference["frames"] as? Int == 5, "\(reference)")
        let info = try await folder.run(["info", "anim.avif"])
        #expect(info.status == 0 && info.stdout.contains("animated: 5 frames, 0.17 s"), "\(info.stdout)")

        let png = try await folder.run(["convert", "anim.avif", "--to", "png"])
        #expect(png.status == 0, "\(png.stderr)")
        #expect(
            png.stderr.contains(
                "an animated AVIF (5 frames, 0.2 s): its still image (the first frame) is kept (--to webp or --to mp4 keeps the animation)"
            ), "\(png.stderr)")
        let second = try await folder.run(["convert", "anim.avif", "--to", "png", "--frame", "2", "-o", "second"])
        #expect(
            second.status == 1 && second.stderr.contains("only its still image (frame 1) can be converted"),
            "\(second.stderr)")
        #expect(!folder.files().contains { $0.hasPrefix("second/") }, "\(folder.files())")

        let mp4 = try await folder.run(["convert", "anim.avif", "--to", "mp4"])
        #expect(mp4.status == 0, "\(mp4.stderr)")
        let probe = try CLIRunner.toolOutput(
            "/usr/bin/ffprobe",
            [
                "-v", "error", "-count_frames", "-select_streams", "v:0", "-show_entries",
                "stream=nb_read_frames,width,height", "-of", "csv=p=0",
                folder.url.appendingPathComponent("anim.mp4").path,
            ])
        #expect(probe.trimmingCharacters(in: .whitespacesAndNewlines) == "150,150,5", "\(probe)")
    }

    @Test(
        "an animated AVIF --to webp is an animated WebP of every frame at its time (Pillow reads the WebP, ffmpeg the AVIF); a still beside it stays a photo"
    )
    func animatedToWebP() async throws {
        let folder = try UserFolder()
        defer { folder.remove() }
        try folder.add("photos/formats/animated.avif", as: "my anim.avif")
        try folder.add("photos/formats/alpha.avif", as: "still.avif")
        let converted = try await folder.run(["convert", "my anim.avif", "still.avif", "--to", "webp", "-o", "out"])
        #expect(converted.status == 0, "\(converted.stderr)")
        #expect(converted.stderr.contains("animation kept (5 frames, 0.2 s)"), "\(converted.stderr)")
        #expect(!converted.stderr.contains("first frame"), "\(converted.stderr)")
        let webp = folder.url.appendingPathComponent("out/my anim.webp").path
        let (psnr, frames, durations) = try await AnimationCommandTests.compareFrames(
            gif: folder.url.appendingPathComponent("my anim.avif").path, webp: webp, size: (150, 150))
        #expect(frames == 5)
        // 30 fps: 33 or 34 ms a frame, as libwebp rounds each timestamp.
        #expect(durations.isSubset(of: [33, 34]), "\(durations)")
        #expect(psnr > 30, "the WebP's worst frame against ffmpeg's decode of the AVIF: \(psnr) dB")
        // The still AVIF went through the photo engine in the same batch: its alpha kept.
        let still = try CLIRunner.toolOutput(
            "/usr/bin/webpmux", ["-info", folder.url.appendingPathComponent("out/still.webp").path])
        #expect(still.contains("Features present: alpha") || still.contains("alpha"), "\(still)")
        // (compareFrames leaves ffmpeg's raw frames beside the WebP.)
        let written = folder.files().filter { $0.hasPrefix("out/") && !$0.hasSuffix(".rgb") }
        #expect(Set(written) == ["out/my anim.webp", "out/still.webp"])
        // --frame keeps the still path: one frame, nothing handed to the video engine.
        let first = try await folder.run(["convert", "my anim.avif", "--to", "webp", "--frame", "1", "-o", "first"])
        #expect(first.status == 0, "\(first.stderr)")
        let single = try CLIRunner.toolOutput(
            "/usr/bin/webpmux", ["-info", folder.url.appendingPathComponent("first/my anim.webp").path])
        #expect(!single.contains("animation"), "\(single)")
    }

    @Test("a 1×5 grid whose tiles are not hidden is one image to info and --all-images, as libavif reads it")
    func gridTilesAreNotImages() async throws {
        let folder = try UserFolder()
        defer { folder.remove() }
        try folder.add("generated/avif-grid/grid-1x5.avif", as: "grid.avif")
        // libavif shows one 64x320 picture; libheif (1.15 here, 1.23 in pillow-heif alike) lists
        // the five tiles beside it.
        let reference = try await Self.oracle(["picture", folder.url.appendingPathComponent("grid.avif").path])
        #expect(
            reference["width"] as? Int == 64 && reference["height"] as? Int == 320 && reference["frames"] as? Int == 1,
            "\(reference)")
        let info = try await folder.run(["info", "grid.avif"])
        #expect(info.status == 0 && info.stdout.contains("picture: 64x320, 8-bit, no alpha"), "\(info.stdout)")
        #expect(!info.stdout.contains("images"), "\(info.stdout)")
        let all = try await folder.run(["convert", "grid.avif", "--to", "png", "--all-images", "-o", "all"])
        #expect(all.status == 0, "\(all.stderr)")
        #expect(folder.files().filter { $0.hasPrefix("all/") } == ["all/grid.png"], "\(folder.files())")
    }
}
