import Foundation
import Testing

/// Animated GIF, WebP and APNG inputs (TestMedia/generators/74-animations.sh): `info` counts
/// frames and time, a still output says it keeps one frame (`--frame N` picks it), and a WebP
/// output keeps the animation. ffmpeg decodes the GIF's frames and Pillow the WebP's, so neither
/// side of a comparison is offconvert's own reader; webpmux reads the animation's structure.
@Suite("Animated GIF, WebP and APNG")
struct AnimationCommandTests {
    /// The smallest PSNR over every frame between a GIF as ffmpeg decodes it and an animated WebP
    /// as Pillow decodes it, the WebP's frame count, and its frame durations (ms) as webpmux reads them.
    static func compareFrames(gif: String, webp: String, size: (Int, Int)) async throws -> (
        psnr: Double, frames: Int, durations: Set<Int>
    ) {
        let python = GainMapCommandTests.python
        try #require(
            FileManager.default.isExecutableFile(atPath: python.path),
            "Pillow is missing: .build/oracle-venv (Scripts/test makes it)")
        let raw = webp + ".gif.rgb"
        let ffmpeg = try await MotionCommandsTests.tool(
            "ffmpeg",
            [
                "-v", "error", "-i", gif, "-vf", "scale=\(size.0):\(size.1):flags=lanczos", "-f", "rawvideo",
                "-pix_fmt", "rgb24", "-y", raw,
            ])
        try #require(ffmpeg.status == 0, "\(ffmpeg.stderr)")
        let script = """
            import json, sys, numpy
            from PIL import Image
            webp = Image.open(sys.argv[1])
            width, height = int(sys.argv[3]), int(sys.argv[4])
            reference = numpy.fromfile(sys.argv[2], dtype=numpy.uint8).reshape(-1, height, width, 3).astype(float)
            worst = 99.0
            for index in range(webp.n_frames):
                webp.seek(index)
                ours = numpy.asarray(webp.convert("RGB"), dtype=float)
                error = ((ours - reference[min(index, len(reference) - 1)]) ** 2).mean()
                worst = min(worst, 99.0 if error == 0 else 10 * numpy.log10(255 ** 2 / error))
            print(json.dumps({"psnr": worst, "frames": webp.n_frames, "reference": len(reference)}))
            """
        let outcome = try await CLIRunner.run(["-c", script, webp, raw, "\(size.0)", "\(size.1)"], executable: python)
        try #require(outcome.status == 0, "\(outcome.stderr)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(outcome.stdout.utf8)) as? [String: Any])
        let reference = object["reference"] as? Int ?? 0
        let frames = object["frames"] as? Int ?? 0
        #expect(reference == frames, "ffmpeg decoded \(reference) frames of the GIF, the WebP has \(frames)")
        // webpmux's table: "No.: width height alpha x_offset y_offset duration ...", one row a frame.
        let table = try CLIRunner.toolOutput("/usr/bin/webpmux", ["-info", webp])
        let durations = table.split(separator: "\n").compactMap { line -> Int? in
            let fields = line.split(separator: " ")
            return fields.first?.hasSuffix(":") == true && fields.first != "No.:" && fields.count > 6
                ? Int(fields[6]) : nil
        }
        #expect(durations.count == frames, "\(table)")
        return (object["psnr"] as? Double ?? 0, frames, Set(durations))
    }

    @Test("info counts the frames and the time of a GIF, an animated WebP and an APNG")
    func info() async throws {
        let folder = try UserFolder()
        defer { folder.remove() }
        for name in ["spinner.gif", "spinner.webp", "spinner.apng"] {
            try folder.add("generated/anim/\(name)", as: name)
        }
        let text = try await folder.run(["info", "spinner.gif", "spinner.webp", "spinner.apng"])
        #expect(text.status == 0, "\(text.stderr)")
        #expect(text.stdout.components(separatedBy: "animated: 24 frames, 2.40 s").count == 4, "\(text.stdout)")
        let json = try await folder.run(["info", "--json", "spinner.webp"])
        #expect(json.stdout.contains("\"animation\":{\"duration\":2.4,\"frames\":24}"), "\(json.stdout)")
    }

    @Test(
        "a GIF to WebP keeps every frame and its timing, composited as ffmpeg composites them; --max-size shrinks each frame as ffmpeg's Lanczos does"
    )
    func gifToAnimatedWebP() async throws {
        let folder = try UserFolder()
        defer { folder.remove() }
        try folder.add("generated/anim/spinner.gif", as: "party cat.gif")
        let lossless = try await folder.run([
            "convert", "party cat.gif", "--to", "webp", "--lossless", "-o", "lossless",
        ])
        #expect(lossless.status == 0, "\(lossless.stderr)")
        #expect(lossless.stderr.contains("animation kept (24 frames, 2.4 s)"), "\(lossless.stderr)")
        let gif = folder.url.appendingPathComponent("party cat.gif").path
        let exact = try await Self.compareFrames(
            gif: gif, webp: folder.url.appendingPathComponent("lossless/party cat.webp").path, size: (160, 120))
        #expect(exact.psnr == 99 && exact.frames == 24 && exact.durations == [100], "\(exact)")
        let structure = try CLIRunner.toolOutput(
            "/usr/bin/webpmux", ["-info", folder.url.appendingPathComponent("lossless/party cat.webp").path])
        #expect(structure.contains("Number of frames: 24") && structure.contains("Loop Count : 0"), "\(structure)")

        let small = try await folder.run([
            "convert", "party cat.gif", "--to", "webp", "--lossless", "--max-size", "80", "-o", "small",
        ])
        #expect(small.status == 0, "\(small.stderr)")
        let shrunk = try await Self.compareFrames(
            gif: gif, webp: folder.url.appendingPathComponent("small/party cat.webp").path, size: (80, 60))
        #expect(shrunk.frames == 24 && shrunk.psnr == 99, "\(shrunk)")
        // Lossy at the default quality: the same frames and timing, and the first frame exactly
        // what cwebp -q 85 makes of it (the animation's loss is libwebp's own: 23-25 dB here, as
        // Pillow decodes both, on this busy test pattern).
        let lossy = try await folder.run(["convert", "party cat.gif", "--to", "webp", "-o", "lossy"])
        #expect(lossy.status == 0, "\(lossy.stderr)")
        let ours = folder.url.appendingPathComponent("lossy/party cat.webp").path
        let approximate = try await Self.compareFrames(gif: gif, webp: ours, size: (160, 120))
        #expect(approximate.frames == 24 && approximate.durations == [100] && approximate.psnr >= 22, "\(approximate)")
        let first = folder.url.appendingPathComponent("first.png").path
        let cwebp = folder.url.appendingPathComponent("cwebp.webp").path
        _ = try CLIRunner.toolOutput(
            "/bin/sh",
            [
                "-c", "ffmpeg -v error -i \"$0\" -frames:v 1 \"$1\" && cwebp -quiet -q 85 \"$1\" -o \"$2\"", gif, first,
                cwebp,
            ])
        let same = try await CLIRunner.run(
            [
                "-c",
                "import sys; from PIL import Image; a = Image.open(sys.argv[1]).convert('RGB'); b = Image.open(sys.argv[2]).convert('RGB'); print(a.tobytes() == b.tobytes())",
                ours, cwebp,
            ], executable: GainMapCommandTests.python)
        #expect(same.stdout == "True\n", "\(same.stdout) \(same.stderr)")
    }

    @Test("an animated WebP stays animated as WebP and becomes its first frame as JPEG, with a note")
    func animatedWebPInput() async throws {
        let folder = try UserFolder()
        defer { folder.remove() }
        try folder.add("generated/anim/spinner.webp", as: "s.webp")
        try folder.add("generated/anim/spinner.gif", as: "s.gif")
        let still = try await folder.run(["convert", "s.webp", "--to", "png"])
        #expect(still.status == 0, "\(still.stderr)")
        #expect(
            still.stderr.contains(
                "an animation (24 frames, 2.4 s): only the first frame is kept (--frame N picks another; --to webp keeps the animation)"
            ),
            "\(still.stderr)")
        let first = try await DamagedPhotoCommandTests.psnr(
            folder.url.appendingPathComponent("s.png").path, ["-i", folder.url.appendingPathComponent("s.gif").path])
        #expect(first == .infinity, "\(first)")
        let again = try await folder.run(["convert", "s.webp", "--to", "webp", "--lossless", "-o", "again"])
        #expect(again.status == 0 && again.stderr.contains("animation kept (24 frames, 2.4 s)"), "\(again.stderr)")
        let frames = try await Self.compareFrames(
            gif: folder.url.appendingPathComponent("s.gif").path,
            webp: folder.url.appendingPathComponent("again/s.webp").path, size: (160, 120))
        #expect(frames.psnr == 99 && frames.frames == 24, "\(frames)")
    }

    @Test(
        "--frame N writes that frame of a GIF as ffmpeg decodes it; past the last frame, or on an APNG, it fails and writes nothing"
    )
    func pickedFrame() async throws {
        let folder = try UserFolder()
        defer { folder.remove() }
        try folder.add("generated/anim/spinner.gif", as: "g.gif")
        try folder.add("generated/anim/spinner.apng", as: "a.png")
        let fifth = try await folder.run(["convert", "g.gif", "--to", "png", "--frame", "5"])
        #expect(fifth.status == 0 && fifth.stderr.contains("frame 5 kept"), "\(fifth.stderr)")
        let fifthByFFmpeg = folder.url.appendingPathComponent("ffmpeg-5.png").path
        let extracted = try await MotionCommandsTests.tool(
            "ffmpeg",
            [
                "-v", "error", "-i", folder.url.appendingPathComponent("g.gif").path, "-vf", "select=eq(n\\,4)",
                "-frames:v", "1", fifthByFFmpeg,
            ])
        #expect(extracted.status == 0, "\(extracted.stderr)")
        let reference = try await DamagedPhotoCommandTests.psnr(
            folder.url.appendingPathComponent("g.png").path, ["-i", fifthByFFmpeg])
        #expect(reference == .infinity, "\(reference)")
        let past = try await folder.run(["convert", "g.gif", "--to", "png", "--frame", "30", "-o", "past"])
        #expect(
            past.status == 1 && past.stderr.contains("g.gif has 24 frames: there is no frame 30."), "\(past.stderr)")
        let apng = try await folder.run(["convert", "a.png", "--to", "jpg", "--frame", "3", "-o", "past"])
        #expect(apng.status == 1 && apng.stderr.contains("only its first frame can be converted"), "\(apng.stderr)")
        #expect(!folder.files().contains { $0.hasPrefix("past/") }, "\(folder.files())")
        #expect(try folder.used() == 1, "only the conversion that wrote a file is charged")
        let first = try await folder.run(["convert", "a.png", "--to", "jpg"])
        #expect(
            first.status == 0
                && first.stderr.contains(
                    "an animation (24 frames, 2.4 s): only the first frame is kept (--to mp4 keeps the animation)"),
            "\(first.stderr)")
    }

    @Test("a GIF cut short keeps the frames that arrived, and says the rest is missing")
    func cutShort() async throws {
        let folder = try UserFolder()
        defer { folder.remove() }
        try folder.add("generated/anim/cut.gif", as: "cut.gif")
        let outcome = try await folder.run(["convert", "cut.gif", "--to", "webp"])
        #expect(outcome.status == 0, "\(outcome.stderr)")
        #expect(
            outcome.stderr.contains(
                "the file ends early (an interrupted copy or download): the frames after frame 16 are missing"),
            "\(outcome.stderr)")
        // The 16th frame is cut inside its picture data: its rows that arrived are kept, as giflib
        // and browsers show them (the rest transparent), so 15 whole frames and that one.
        let structure = try CLIRunner.toolOutput(
            "/usr/bin/webpmux", ["-info", folder.url.appendingPathComponent("cut.webp").path])
        #expect(structure.contains("Number of frames: 16"), "\(structure)")
    }
}

/// "Make this GIF small enough to send": an animated GIF or APNG is a silent clip to the video
/// commands. ffprobe counts what was written; ffmpeg's own decode of the GIF is the reference.
@Suite("Animated GIF and APNG as clips")
struct AnimationAsVideoTests {
    @Test(
        "convert --to mp4, send-to-windows and compress take an animated GIF or APNG: every frame, its timing, its picture"
    )
    func gifToMP4() async throws {
        let folder = try UserFolder()
        defer { folder.remove() }
        try folder.add("generated/anim/spinner.gif", as: "funny cat.gif")
        try folder.add("generated/anim/spinner.apng", as: "a.png")
        try folder.add("photos/tokyo.jpg", as: "still.jpg")
        let mp4 = try await folder.run(["convert", "funny cat.gif", "--to", "mp4"])
        #expect(mp4.status == 0, "\(mp4.stderr)")
        let windows = try await folder.run(["send-to-windows", "a.png", "still.jpg", "-o", "win"])
        #expect(
            windows.status == 0 && windows.stderr.contains("still.jpg: skipped, a photo, not a video"),
            "\(windows.stderr)")
        let small = try await folder.run(["compress", "funny cat.gif", "--target", "100KB", "-o", "small"])
        #expect(small.status == 0, "\(small.stderr)")
        // The reference is ffmpeg's own H.264 of the same animation at CRF 23 (the colour edges of
        // this test pattern lose to 4:2:0 alike: 19.6 dB RGB against the GIF for both; from the
        // APNG's full-colour frames our RGB to YCbCr rounds differently, 36 dB from ffmpeg's).
        for (output, input) in [
            ("funny cat.mp4", "funny cat.gif"), ("win/a.mp4", "a.png"), ("small/funny cat.mp4", "funny cat.gif"),
        ] {
            let reference = folder.url.appendingPathComponent("reference.mp4").path
            let encoded = try await MotionCommandsTests.tool(
                "ffmpeg",
                [
                    "-v", "error", "-y", "-i", folder.url.appendingPathComponent(input).path, "-c:v", "libx264", "-crf",
                    "23", "-pix_fmt", "yuv420p", reference,
                ])
            #expect(encoded.status == 0, "\(encoded.stderr)")
            let path = folder.url.appendingPathComponent(output).path
            let probe = try CLIRunner.toolOutput(
                "/usr/bin/ffprobe",
                [
                    "-v", "error", "-count_frames", "-show_entries",
                    "stream=codec_name,width,height,nb_read_frames:format=duration", "-of", "compact", path,
                ])
            #expect(
                probe.contains("codec_name=h264|width=160|height=120|nb_read_frames=24")
                    && probe.contains("duration=2.4"), "\(output): \(probe)")
            let psnr = try await DamagedPhotoCommandTests.psnr(path, ["-i", reference])
            #expect(psnr >= 35, "\(output): \(psnr) dB")
        }
        #expect(try folder.used() == 3)
    }

    @Test("a still GIF is still a photo to a video command, and an animated WebP (which FFmpeg cannot decode) too")
    func stillsAreNotClips() async throws {
        let folder = try UserFolder()
        defer { folder.remove() }
        try folder.add("generated/anim/spinner.webp", as: "moving.webp")
        let gif = folder.url.appendingPathComponent("one.gif").path
        _ = try await MotionCommandsTests.tool(
            "ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "testsrc2=size=64x48", "-frames:v", "1", gif])
        let outcome = try await folder.run(["send-to-windows", "one.gif", "moving.webp"])
        #expect(outcome.status == 64 && outcome.stderr.contains("is a photo and cannot become"), "\(outcome.stderr)")
        #expect(try folder.star() == ["moving.webp", "one.gif"])
    }

    @Test("an animation bomb is refused at once as WebP, resized or not: nothing written, charged or budgeted")
    func bombs() async throws {
        let folder = try UserFolder()
        defer { folder.remove() }
        try folder.add("generated/anim/bomb.webp", as: "bomb.webp")
        try folder.add("generated/anim/bomb.gif", as: "bomb.gif")
        for (name, frames) in [("bomb.webp", 10000), ("bomb.gif", 3000)] {
            for extra in [[], ["--resize", "100x100"]] {
                let outcome = try await folder.run(["convert", name, "--to", "webp", "-o", "out", "--json"] + extra)
                #expect(outcome.status == 1, "\(name) \(extra): \(outcome.stdout) \(outcome.stderr)")
                #expect(outcome.stdout.contains("input.too-many-pixels"), "\(outcome.stdout)")
                #expect(
                    outcome.stdout.contains("is an animation of \(frames) frames on a 16383x16383 canvas"),
                    "\(outcome.stdout)")
            }
            let planned = try await folder.run(["convert", name, "--to", "webp", "--dry-run", "--json"])
            let line = try #require(
                planned.stdout.split(separator: "\n").compactMap {
                    try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
                }.first { $0["memoryBytes"] != nil }, "\(planned.stdout)")
            let memory = try #require(line["memoryBytes"] as? Int)
            #expect(memory < 256 << 20, "\(name): --dry-run budgets \(memory) bytes for a job refused at once")
        }
        #expect(folder.files() == ["bomb.gif", "bomb.webp"])
        #expect(try folder.used() == 0)
    }
}
