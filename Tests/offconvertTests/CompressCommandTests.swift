import Foundation
import Testing

/// `offconvert compress` and `offconvert email` end to end: outputs, messages and exit codes.
@Suite("compress and email commands")
struct CompressCommandTests {
    static func temporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent(
            "offconvert-cli-compress-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    static func size(_ path: String) throws -> Int64 {
        try #require(try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int64)
    }

    @Test("compress --target writes an MP4 no larger than the target and exits 0")
    func compress() async throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let input = CLIRunner.media.appendingPathComponent("video/motion.mov").path
        let outcome = try await CLIRunner.run(["compress", input, "--target", "250KiB", "--output-dir", directory.path])
        #expect(outcome.status == 0, "\(outcome.stderr)")
        let output = directory.appendingPathComponent("motion.mp4").path
        // Not a terminal: stdout holds only the output path.
        #expect(outcome.stdout == output + "\n")
        let bytes = try Self.size(output)
        #expect(bytes <= 250 * 1024)
        #expect(bytes >= 225 * 1024)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["motion.mp4"])
    }

    @Test(
        "compress's output gets the source's permissions, as send-to-windows's does (one pipeline, one commit)",
        arguments: [["compress", "--target", "250KiB"], ["compress", "--target", "25MB"], ["send-to-windows"]])
    func permissionsFollowSource(_ command: [String]) async throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let input = directory.appendingPathComponent("private.mov").path
        try FileManager.default.copyItem(
            atPath: CLIRunner.media.appendingPathComponent("video/motion.mov").path, toPath: input)
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: input)
        let out = directory.appendingPathComponent("out")
        let outcome = try await CLIRunner.run([command[0], input] + command.dropFirst() + ["--output-dir", out.path])
        #expect(outcome.status == 0, "\(outcome.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: out.path) == ["private.mp4"])
        let mode = try FileManager.default.attributesOfItem(atPath: out.appendingPathComponent("private.mp4").path)[
            .posixPermissions]
        #expect(mode as? Int == 0o600, "\(command): \(String(describing: mode))")
    }

    @Test("compress keeps what a shared copy carries: SRT/ASS/WebVTT as mov_text cue for cue, the cover byte for byte")
    func keepsSubtitlesAndCover() async throws {
        let folder = try UserFolder()
        defer { folder.remove() }
        try folder.add("generated/subtitles.mkv", as: "film.mkv")
        let film = try await folder.run(["compress", "film.mkv", "--target", "60KB", "-o", "small"])
        #expect(film.status == 0, "\(film.stderr)")
        #expect(film.stderr.contains("3 subtitle tracks kept (as mov_text)"), "\(film.stderr)")
        let output = folder.url.appendingPathComponent("small/film.mp4").path
        #expect(try Self.size(output) <= 60_000)
        #expect(try VideoSubtitleTests.subtitles(output) == ["mov_text,1,eng", "mov_text,0,fra", "mov_text,0,ger"])
        let source = folder.url.appendingPathComponent("film.mkv").path
        for index in 0..<3 {
            let (words, sourceWords) = (
                VideoSubtitleTests.words(try VideoSubtitleTests.cues(output, index)),
                VideoSubtitleTests.words(try VideoSubtitleTests.cues(source, index))
            )
            #expect(!words.isEmpty && words == sourceWords, "track \(index)")
        }
        try VideoCoverTests.clipWithCover(folder, container: "mp4", picture: "jpg")
        let clip = try await folder.run(["compress", "c.mp4", "--target", "200KB", "-o", "small"])
        #expect(clip.status == 0, "\(clip.stderr)")
        #expect(clip.stderr.contains("cover art kept"), "\(clip.stderr)")
        let compressed = folder.url.appendingPathComponent("small/c.mp4").path
        #expect(try VideoCoverTests.streams(compressed).contains("mjpeg,1"))
        #expect(
            try VideoCoverTests.coverBytes(compressed, folder: folder)
                == (try Data(contentsOf: folder.url.appendingPathComponent("cover.jpg"))))
    }

    @Test("an impossible target exits 1 with the smallest reachable size and writes nothing")
    func impossible() async throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let input = CLIRunner.media.appendingPathComponent("video/motion.mov").path
        let outcome = try await CLIRunner.run(["compress", input, "--target", "1KB", "--output-dir", directory.path])
        #expect(outcome.status == 1)
        #expect(outcome.stderr.contains("the smallest it can reach is"))
        // In the unit the target was given in.
        #expect(outcome.stderr.contains("cannot be compressed to 1 kB"))
        #expect(outcome.stderr.contains(" kB."))
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty)
    }

    @Test(
        "a missing or malformed --target is a usage error (exit 64)",
        arguments: [
            [] as [String], ["--target", "25 furlongs"], ["--target", "0MB"],
        ])
    func usage(_ extra: [String]) async throws {
        let input = CLIRunner.media.appendingPathComponent("video/motion.mov").path
        let outcome = try await CLIRunner.run(["compress", input] + extra)
        #expect(outcome.status == 64)
        #expect(outcome.stderr.contains("--target"))
    }

    @Test("email copies a clip that already fits 25 MB and plays everywhere")
    func email() async throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let input = CLIRunner.media.appendingPathComponent("video/motion.mov").path
        let outcome = try await CLIRunner.run(["email", input, "--output-dir", directory.path, "--json"])
        #expect(outcome.status == 0, "\(outcome.stderr)")
        #expect(outcome.stdout.contains("\"event\":\"finished\""))
        #expect(outcome.stdout.contains("copied without re-encoding"))
        #expect(try Self.size(directory.appendingPathComponent("motion.mp4").path) <= 25_000_000)
    }

    @Test("help documents the size units")
    func help() async throws {
        let outcome = try await CLIRunner.run(["compress", "--help"])
        #expect(outcome.status == 0)
        #expect(outcome.stdout.contains("MB = 1000^2"))
        #expect(outcome.stdout.contains("MiB = 1024^2"))
        let email = try await CLIRunner.run(["email", "--help"])
        #expect(email.status == 0)
        #expect(email.stdout.contains("25,000,000 bytes"))
    }

    static func generated(_ name: String) -> String {
        CLIRunner.media.appendingPathComponent("generated/\(name)").path
    }

    @Test(
        "--target needs a unit and a positive size: exit 64 with a message that says what to write",
        arguments: [
            ("25", "has no unit: write e.g. 25MB"), ("-5MB", "must be more than 0"), ("0kB", "must be more than 0"),
        ])
    func targetUnits(_ value: String, _ message: String) async throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let outcome = try await CLIRunner.run([
            "compress", Self.generated("sizing-5frames.mp4"), "--target", value,
            "--output-dir", directory.path,
        ])
        #expect(outcome.status == 64)
        #expect(outcome.stderr.contains(message), "\(outcome.stderr)")
        #expect(outcome.stderr.contains("'\(value)'"))
        #expect(!outcome.stderr.contains("Missing value"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty)
    }

    @Test("compress and email read their inputs from --from-file, as their help says")
    func fromFile() async throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let list = directory.appendingPathComponent("list.txt")
        try (Self.generated("sizing-5frames.mp4") + "\n").write(to: list, atomically: true, encoding: .utf8)
        for command in [["compress", "--target", "8MB"], ["email"]] {
            let help = try await CLIRunner.run([command[0], "--help"])
            #expect(help.stdout.contains("--from-file"))
            let out = directory.appendingPathComponent(command[0])
            let outcome = try await CLIRunner.run(command + ["--from-file", list.path, "--output-dir", out.path])
            #expect(outcome.status == 0, "\(outcome.stderr)")
            let output = out.appendingPathComponent("sizing-5frames.mp4").path
            #expect(outcome.stdout == output + "\n")
            // Five frames in, five out (ffprobe), and no 8 MB or 25 MB file for a 10 kB clip.
            let frames = try CLIRunner.toolOutput(
                "/usr/bin/ffprobe",
                [
                    "-v", "error", "-count_frames", "-select_streams", "v:0",
                    "-show_entries", "stream=nb_read_frames", "-of", "csv=p=0", output,
                ])
            #expect(frames.trimmingCharacters(in: .whitespacesAndNewlines) == "5")
            let sourceBytes = try Self.size(Self.generated("sizing-5frames.mp4"))
            #expect(try Self.size(output) <= 2 * sourceBytes)
        }
    }

    @Test("email of an iPhone HDR clip of 64 kB is not a 24 MB attachment")
    func emailPhoneClip() async throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let input = CLIRunner.media.appendingPathComponent("video/dolbyVision-hdr.MOV").path
        let outcome = try await CLIRunner.run(["email", input, "--output-dir", directory.path])
        #expect(outcome.status == 0, "\(outcome.stderr)")
        #expect(outcome.stderr.contains("normal quality (CRF 23)"))
        let bytes = try Self.size(directory.appendingPathComponent("dolbyVision-hdr.mp4").path)
        let sourceBytes = try Self.size(input)
        #expect(bytes <= sourceBytes)
    }

    @Test("--dry-run says what it plans: copy, re-encode (bitrate, size, frame rate) or unreachable; writes nothing")
    func dryRun() async throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let copy = try await CLIRunner.run([
            "email", CLIRunner.media.appendingPathComponent("video/motion.mov").path,
            "--dry-run", "--output-dir", directory.path,
        ])
        #expect(copy.status == 0)
        #expect(copy.stdout.contains("plan: copy without re-encoding"))

        let encode = try await CLIRunner.run([
            "compress", Self.generated("sizing-120fps.mp4"), "--target", "8MB",
            "--dry-run", "--output-dir", directory.path,
        ])
        #expect(encode.status == 0, "\(encode.stderr)")
        #expect(
            encode.stdout.contains(
                "plan: re-encode to H.264 160x90 at 120 fps: the normal quality (CRF 23) if it fits, else "))
        #expect(encode.stdout.contains(" kb/s, about ") && encode.stdout.contains(" at most; target 8 MB"))

        let tight = try await CLIRunner.run([
            "compress", Self.generated("sizing-120fps.mp4"), "--target", "9kB",
            "--dry-run", "--output-dir", directory.path,
        ])
        #expect(tight.stdout.contains("at 60 fps"))
        #expect(tight.stdout.contains("frame rate lowered from 120 fps"))

        let unreachable = try await CLIRunner.run([
            "compress", Self.generated("sizing-lowrate.mp4"), "--target", "50kB",
            "--dry-run", "--json", "--output-dir", directory.path,
        ])
        #expect(unreachable.status == 1)
        let plan = try #require(
            unreachable.stdout.split(separator: "\n").compactMap { line in
                (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any]
            }.first { $0["event"] as? String == "plan" })
        #expect(plan["reachable"] as? Bool == false)
        #expect(plan["action"] as? String == "unreachable")
        let smallest = try #require((plan["smallestReachableBytes"] as? NSNumber)?.int64Value)
        let sourceBytes = try Self.size(Self.generated("sizing-lowrate.mp4"))
        #expect(smallest <= sourceBytes * 11 / 10)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty)
        // Without --json the summary counts it as failing, not as "would be converted".
        let text = try await CLIRunner.run([
            "compress", Self.generated("sizing-lowrate.mp4"), "--target", "50kB",
            "--dry-run", "--output-dir", directory.path,
        ])
        #expect(text.status == 1)
        #expect(text.stderr.contains("0 would be converted, 1 failed"), "\(text.stderr)")
    }

    @Test("--dry-run of a Samsung slow-motion clip plans the flattened 0.99 s; --slow-motion keep the file's 2.15 s")
    func dryRunSlowMotion() async throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let input = CLIRunner.media.appendingPathComponent("video/slowmo/sample_sef_slow_motion.mp4").path
        let flat = try await CLIRunner.run([
            "compress", input, "--target", "20kB", "--dry-run", "--output-dir", directory.path,
        ])
        #expect(flat.status == 0, "\(flat.stderr)")
        #expect(
            flat.stdout.contains(
                "plan: slow motion played as the phone plays it (0.09–0.88 s at 1/2, 1.26–1.97 s at 1/8, captured at "
                    + "240 fps), 0.99 s long: re-encode to H.264 320x240 at 30.34 fps"), "\(flat.stdout)")
        let kept = try await CLIRunner.run([
            "compress", input, "--target", "1MB", "--slow-motion", "keep", "--dry-run", "--json", "--output-dir",
            directory.path,
        ])
        #expect(kept.status == 0, "\(kept.stderr)")
        let plan = try #require(
            kept.stdout.split(separator: "\n").compactMap { line in
                (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any]
            }.first { $0["event"] as? String == "plan" })
        #expect(plan["action"] as? String == "copy")
        #expect(plan["slowMotion"] == nil)
        let duration = try #require((plan["duration"] as? NSNumber)?.doubleValue)
        #expect(abs(duration - 2.15175) < 0.001)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty)
    }
}
