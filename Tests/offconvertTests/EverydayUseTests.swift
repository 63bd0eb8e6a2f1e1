import Foundation
import Testing

/// The first minutes of a new user, as they type it: relative paths in a folder of their own,
/// `*` over a phone's export folder, folders as inputs, the same command twice, `-o` with a
/// file name. Every run starts in a temporary working directory; nothing is absolute.
@Suite("Everyday use from a user's folder")
struct EverydayUseTests {
    /// A phone export: a HEIC with its MOV and `.AAE` edit sidecar, a JPEG named with a space, a
    /// one-letter file, a stray text file and macOS's `.DS_Store`.
    private func exportFolder() throws -> UserFolder {
        let folder = try UserFolder()
        try folder.add("photos/zPug_3.heic", as: "IMG_0001.HEIC")
        try folder.add("video/sample.mp4", as: "IMG_0001.MOV")
        try folder.write("<?xml version=\"1.0\"?><plist/>", to: "IMG_0001.AAE")
        try folder.add("photos/tokyo.jpg", as: "my photo.jpg")
        try folder.add("photos/DSCN0010.jpg", as: "p")
        try folder.write("what to print\n", to: "notes.txt")
        try folder.write("", to: ".DS_Store")
        return folder
    }

    @Test(
        "heic-to-jpg * in a phone export folder converts the HEICs, leaves its JPEGs alone, names what it skipped, exits 0"
    )
    func exportFolderStar() async throws {
        let folder = try exportFolder()
        defer { folder.remove() }
        let outcome = try await folder.run(["heic-to-jpg"] + folder.star())
        #expect(outcome.status == 0, "\(outcome.stderr)")
        // No near-duplicates of the JPEGs already there ("my photo (2).jpg"), whatever their name.
        #expect(folder.files().filter { $0.hasSuffix(".jpg") && $0 != "my photo.jpg" } == ["IMG_0001.jpg"])
        #expect(
            outcome.stderr.contains("my photo.jpg: skipped, already JPEG (add --include-jpeg to re-encode it)"),
            "\(outcome.stderr)")
        #expect(outcome.stderr.contains("p: skipped, already JPEG"), "\(outcome.stderr)")
        #expect(outcome.stderr.contains("IMG_0001.MOV: skipped, a video, not a photo"))
        #expect(outcome.stderr.contains("notes.txt: skipped, a text file"))
        #expect(!outcome.stderr.contains("IMG_0001.AAE"), "sidecars are counted, not named: \(outcome.stderr)")
        #expect(outcome.stderr.contains("1 sidecar file(s) ignored"))

        let json = try await folder.run(
            ["heic-to-jpg", "--json", "--no-resume", "-o", "again"] + folder.star().filter { !$0.hasSuffix(".jpg") })
        let lines = try PhotoCommandsTests.jsonLines(json.stdout)
        let skipped = lines.filter { $0["event"] as? String == "skipped" }
        #expect(
            Set(skipped.compactMap { $0["input"] as? String }) == ["IMG_0001.AAE", "IMG_0001.MOV", "notes.txt", "p"])
        #expect(skipped.first { $0["input"] as? String == "IMG_0001.AAE" }?["reason"] as? String == "sidecar")
        let summary = try #require(lines.last)
        #expect(
            summary["event"] as? String == "summary" && summary["setAside"] as? Int == 3
                && summary["ignored"] as? Int == 1)
        #expect(summary["done"] as? Int == 1)

        // Asked for, the JPEGs are re-encoded too.
        let included = try await folder.run(["heic-to-jpg", "--include-jpeg", "-o", "all"] + folder.star())
        #expect(included.status == 0, "\(included.stderr)")
        #expect(
            folder.files().filter { $0.hasPrefix("all/") } == ["all/IMG_0001.jpg", "all/my photo.jpg", "all/p.jpg"])
    }

    @Test("only videos given to a photo command is still a usage error naming what they can become")
    func onlyVideos() async throws {
        let folder = try exportFolder()
        defer { folder.remove() }
        let outcome = try await folder.run(["heic-to-jpg", "IMG_0001.MOV", "IMG_0001.AAE"])
        #expect(outcome.status == 64)
        #expect(outcome.stderr.contains("IMG_0001.MOV is a video and cannot become 'jpg'"))
        #expect(!outcome.stderr.contains("IMG_0001.AAE is a video"))
    }

    @Test("the same command again skips what it made (and its own JPEGs), free; --overwrite redoes it")
    func rerun() async throws {
        let folder = try exportFolder()
        defer { folder.remove() }
        #expect(try await folder.run(["heic-to-jpg"] + folder.star()).status == 0)
        let first = folder.files()
        #expect(try folder.used() == 1)
        // `*` now also matches the JPEGs the first run wrote.
        let again = try await folder.run(["heic-to-jpg"] + folder.star())
        #expect(again.status == 0, "\(again.stderr)")
        #expect(folder.files() == first, "nothing converted twice into 'NAME (2).jpg'")
        #expect(again.stderr.contains("IMG_0001.HEIC: already converted, skipped"))
        #expect(again.stderr.contains("IMG_0001.jpg: skipped, already JPEG"), "\(again.stderr)")
        #expect(try folder.used() == 1)
        let overwrite = try await folder.run(["heic-to-jpg", "--overwrite", "IMG_0001.HEIC"])
        #expect(overwrite.status == 0)
        #expect(folder.files() == first)
        #expect(overwrite.stdout.contains("IMG_0001.jpg"))
    }

    @Test(
        "a rerun by another spelling (*.HEIC, then ., then -r . or ./x) writes nothing new and never converts its own outputs",
        arguments: ["heic-to-jpg", "heic-to-png"])
    func rerunByAnotherSpelling(_ command: String) async throws {
        let folder = try UserFolder()
        defer { folder.remove() }
        try folder.add("photos/zPug_3.heic", as: "A.HEIC")
        try folder.add("photos/sample_still_photo.heic", as: "IMG_0004.HEIC")
        try folder.add("photos/zPug_3.heic", as: "sub/C.heic")
        let first = try await folder.run([command] + (try folder.star()).filter { $0.hasSuffix(".HEIC") })
        #expect(first.status == 0, "\(first.stderr)")
        let made = folder.files()
        #expect(made.count == 5, "\(made)")
        for spelling in [["."], ["./A.HEIC", "IMG_0004.HEIC"], ["-r", "."]] {
            let again = try await folder.run([command] + spelling)
            #expect(again.status == 0, "\(again.stderr)")
            let added = Set(folder.files()).subtracting(made)
            // Only sub/C.heic is new to the recursive run; nothing else, no "(2)" copies.
            #expect(added.isSubset(of: ["sub/C.jpg", "sub/C.png"]), "\(spelling): \(added)")
            #expect(again.stderr.contains("A.HEIC: already converted"), "\(spelling): \(again.stderr)")
        }
        #expect(try folder.used() == 2, "the recursive run converted sub/C.heic; the others were free")
    }

    @Test("a folder as input: its photos; --recursive keeps the layout under -o; a file given twice once")
    func folders() async throws {
        let folder = try UserFolder()
        defer { folder.remove() }
        try folder.add("photos/tokyo.jpg", as: "DCIM/b.jpg")
        try folder.add("photos/DSCN0010.jpg", as: "DCIM/100APPLE/a.jpg")
        try folder.add("photos/zPug_3.heic", as: "DCIM/100APPLE/Ünïcode name.heic")
        let flat = try await folder.run(["heic-to-png", "DCIM", "-o", "flat"])
        #expect(flat.status == 0, "\(flat.stderr)")
        #expect(folder.files().filter { $0.hasPrefix("flat/") } == ["flat/b.png"])
        #expect(flat.stderr.contains("add --recursive"))
        let deep = try await folder.run(["heic-to-png", "DCIM", "--recursive", "-o", "out/new/deep"])
        #expect(deep.status == 0, "\(deep.stderr)")
        #expect(
            folder.files().filter { $0.hasPrefix("out/") }
                == ["out/new/deep/100APPLE/a.png", "out/new/deep/100APPLE/Ünïcode name.png", "out/new/deep/b.png"])
        let twice = try await folder.run([
            "convert", "DCIM/b.jpg", "./DCIM/b.jpg", "DCIM//b.jpg", "--to", "png", "-o", "twice", "--json",
        ])
        #expect(twice.status == 0)
        #expect(folder.files().filter { $0.hasPrefix("twice/") } == ["twice/b.png"])
    }

    @Test("-o as people type it: a PDF name, a new folder's file, nested folders, a file name for one input")
    func outputNames() async throws {
        let folder = try exportFolder()
        defer { folder.remove() }
        let album = try await folder.run(["images-to-pdf", "my photo.jpg", "p", "-o", "album.pdf"])
        #expect(album.status == 0, "\(album.stderr)")
        let nested = try await folder.run([
            "images-to-pdf", "my photo.jpg", "p", "-o", "newdir/album.pdf", "--page", "a4",
        ])
        #expect(nested.status == 0, "\(nested.stderr)")
        let pages = try CLIRunner.toolOutput(
            "/usr/bin/qpdf", ["--show-npages", folder.url.appendingPathComponent("newdir/album.pdf").path])
        #expect(pages.trimmingCharacters(in: .whitespacesAndNewlines) == "2")
        let one = try await folder.run(["convert", "p", "--to", "png", "-o", "out.png"])
        #expect(one.status == 0, "\(one.stderr)")
        let head = try FileHandle(forReadingFrom: folder.url.appendingPathComponent("out.png")).read(upToCount: 8)
        #expect(head.map(Array.init) == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        // Three free conversions a day: the rest of this session on another day's allowance.
        let deep = try await folder.run(
            ["convert", "p", "--to", "png", "-o", "a/b/c"], environment: ["XDG_STATE_HOME": folder.state + "-2"])
        #expect(deep.status == 0)
        #expect(folder.files().contains("a/b/c/p.png"))
        let wrong = try await folder.run(["convert", "p", "--to", "png", "-o", "y.jpg"])
        #expect(wrong.status == 64)
        #expect(wrong.stderr.contains("name it 'y.png'"))
        let many = try await folder.run(["convert", "p", "my photo.jpg", "--to", "png", "-o", "x.png"])
        #expect(many.status == 64)
        #expect(!folder.files().contains("x.png"))
    }

    @Test("--from-file skips comments and blank lines; one-letter names convert")
    func fromFile() async throws {
        let folder = try exportFolder()
        defer { folder.remove() }
        try folder.write("# photos to send\n\np\n   # not this one: my photo.jpg\r\nIMG_0001.HEIC\r\n", to: "list.txt")
        let outcome = try await folder.run(["heic-to-jpg", "--include-jpeg", "--from-file", "list.txt", "-o", "out"])
        #expect(outcome.status == 0, "\(outcome.stderr)")
        #expect(folder.files().filter { $0.hasPrefix("out/") } == ["out/IMG_0001.jpg", "out/p.jpg"])
    }

    @Test("outputs keep the source's modification time and permissions; --no-keep-times gives now")
    func timesAndModes() async throws {
        let folder = try exportFolder()
        defer { folder.remove() }
        let source = folder.url.appendingPathComponent("p").path
        let old = Date(timeIntervalSince1970: 1_577_934_245)
        try FileManager.default.setAttributes([.modificationDate: old, .posixPermissions: 0o600], ofItemAtPath: source)
        #expect(try await folder.run(["heic-to-png", "p"]).status == 0)
        let attributes = try FileManager.default.attributesOfItem(
            atPath: folder.url.appendingPathComponent("p.png").path)
        #expect((attributes[.modificationDate] as? Date) == old)
        #expect(attributes[.posixPermissions] as? Int == 0o600)
        #expect(try await folder.run(["heic-to-png", "p", "--no-keep-times", "-o", "now"]).status == 0)
        let fresh = try FileManager.default.attributesOfItem(
            atPath: folder.url.appendingPathComponent("now/p.png").path)
        #expect(((fresh[.modificationDate] as? Date) ?? old) > Date().addingTimeInterval(-600))
    }

    @Test("strip-location with nothing to remove writes nothing and costs nothing")
    func stripNothing() async throws {
        let folder = try exportFolder()
        defer { folder.remove() }
        #expect(
            try await folder.run(["convert", "my photo.jpg", "--to", "png", "--strip-metadata", "-o", "clean.png"])
                .status == 0)
        let before = folder.files()
        let used = try folder.used()
        let copy = try await folder.run(["strip-location", "clean.png"])
        #expect(copy.status == 0, "\(copy.stderr)")
        #expect(copy.stderr.contains("no location found"))
        let inPlace = try await folder.run(["strip-location", "clean.png", "--in-place"])
        #expect(inPlace.status == 0)
        #expect(folder.files() == before)
        #expect(try folder.used() == used)
    }

    @Test("strip-location over many files counts what it wrote apart from those with no location")
    func stripCounts() async throws {
        let folder = try exportFolder()
        defer { folder.remove() }
        try folder.add("generated/gps-xmp.jpg", as: "located.jpg")
        #expect(
            try await folder.run(["convert", "my photo.jpg", "--to", "png", "--strip-metadata", "-o", "clean.png"])
                .status == 0)
        let outcome = try await folder.run(["strip-location", "located.jpg", "clean.png", "missing.jpg"])
        #expect(outcome.status == 1)
        #expect(outcome.stderr.contains("1 written, 1 had no location, 1 failed"), "\(outcome.stderr)")
        let json = try await folder.run(["strip-location", "--json", "-o", "j", "located.jpg", "clean.png"])
        let summary = try #require(try PhotoCommandsTests.jsonLines(json.stdout).last)
        #expect(summary["done"] as? Int == 2 && summary["unchanged"] as? Int == 1, "\(summary)")
    }

    @Test("an empty folder is named: alone it is an error, among other inputs a note")
    func emptyFolder() async throws {
        let folder = try exportFolder()
        defer { folder.remove() }
        try FileManager.default.createDirectory(
            at: folder.url.appendingPathComponent("x.jpg"), withIntermediateDirectories: false)
        let alone = try await folder.run(["heic-to-jpg", "x.jpg"])
        #expect(alone.status == 64)
        #expect(alone.stderr.contains("x.jpg is an empty folder"), "\(alone.stderr)")
        let among = try await folder.run(["heic-to-jpg", "x.jpg", "IMG_0001.HEIC"])
        #expect(among.status == 0, "\(among.stderr)")
        #expect(among.stderr.contains("x.jpg is an empty folder"), "\(among.stderr)")
        #expect(folder.files().contains("IMG_0001.jpg"))
    }

    @Test("-q is --quiet, as in most tools; --quality has no one-letter form")
    func quietShort() async throws {
        let folder = try exportFolder()
        defer { folder.remove() }
        let quiet = try await folder.run(["heic-to-jpg", "-q", "IMG_0001.HEIC"])
        #expect(quiet.status == 0, "\(quiet.stderr)")
        #expect(quiet.stderr.isEmpty && quiet.stdout.isEmpty, "\(quiet.stdout)\(quiet.stderr)")
        let converted = try await folder.run(["convert", "-q", "p", "--to", "png"])
        #expect(converted.status == 0, "\(converted.stderr)")
        #expect(folder.files().contains("p.png"))
        // `-q 5` is not a quality: "5" is a file name, and one that is not there fails the run.
        let five = try await folder.run(["convert", "p", "--to", "webp", "-q", "5"])
        #expect(five.status == 1, "\(five.stderr)")
        #expect(five.stderr.contains("5"), "\(five.stderr)")
    }

    @Test(
        "--dry-run checks inputs like the real run: missing and empty files fail it (exit 1), --json ends with a summary"
    )
    func dryRun() async throws {
        let folder = try exportFolder()
        defer { folder.remove() }
        try folder.write("", to: "empty.jpg")
        let good = try await folder.run(["heic-to-jpg", "p", "IMG_0001.HEIC", "--include-jpeg", "--dry-run", "--json"])
        #expect(good.status == 0)
        let lines = try PhotoCommandsTests.jsonLines(good.stdout)
        #expect(lines.filter { $0["event"] as? String == "planned" }.count == 2)
        #expect(lines.last?["event"] as? String == "summary" && lines.last?["planned"] as? Int == 2)
        let bad = try await folder.run(["heic-to-jpg", "p", "nope.heic", "empty.jpg", "--include-jpeg", "--dry-run"])
        #expect(bad.status == 1)
        #expect(bad.stderr.contains("nope.heic does not exist"))
        #expect(bad.stderr.contains("empty.jpg is empty"))
        #expect(
            folder.files().filter { $0.hasSuffix(".jpg") } == ["empty.jpg", "my photo.jpg"], "a dry run writes nothing")
    }

    @Test("help for an unknown command and a misspelt command are usage errors with a suggestion")
    func unknownCommands() async throws {
        let folder = try UserFolder()
        defer { folder.remove() }
        let help = try await folder.run(["help", "nosuch"])
        #expect(help.status == 64)
        #expect(help.stderr.contains("Unknown command 'nosuch'"))
        let typo = try await folder.run(["heic2jpg", "x"])
        #expect(typo.status == 64)
        #expect(typo.stderr.contains("Did you mean 'heic-to-jpg'?"))
        let gif = try await folder.run(["convert", "x", "--to", "gif"])
        #expect(gif.status == 64)
        #expect(gif.stderr.contains("offconvert gif"))
    }

    @Test(
        "Ctrl-C during a long HEIC encode does not wait for x265: exit 130 soon after, no partial file, no output",
        arguments: ["a.heic", "a.jpg"])
    func interruptEncode(input: String) async throws {
        let folder = try UserFolder()
        defer { folder.remove() }
        try folder.add("photos/pug.heic", as: "a.heic")
        if input == "a.jpg" {
            // A camera-sized JPEG (the 12 MP pug): the x265 encode of it takes tens of seconds.
            // Its own state folder, so the allowance checked below counts only the interrupted run.
            let jpeg = try await folder.run(
                ["heic-to-jpg", "a.heic", "-o", "jpeg"], environment: ["XDG_STATE_HOME": folder.state + "-prepare"])
            #expect(jpeg.status == 0, "\(jpeg.stderr)")
            try FileManager.default.moveItem(
                at: folder.url.appendingPathComponent("jpeg/a.jpg"), to: folder.url.appendingPathComponent("a.jpg"))
        }
        let process = Process()
        process.executableURL = CLIRunner.executable
        process.arguments = ["convert", input, "--to", "heic", "-o", "out"]
        process.currentDirectoryURL = folder.url
        let errors = Pipe()
        process.standardOutput = FileHandle.nullDevice
        process.standardError = errors
        process.environment = CLIRunner.childEnvironment.merging(["XDG_STATE_HOME": folder.state]) { $1 }
        try process.run()
        let out = folder.url.appendingPathComponent("out").path
        // The temporary is staged before the picture is decoded; 2.5 s later x265 is encoding, with
        // many seconds of work left (half a minute on a slow machine, a dozen on a fast one). A
        // signal sooner can arrive before x265 starts, when the job stops cleanly without the wait
        // this test is about (seen once on a fast machine: 2.6 s in all).
        let wasRunning = await CLIRunner.signal(
            process, SIGINT,
            when: {
                ((try? FileManager.default.contentsOfDirectory(atPath: out)) ?? []).contains {
                    $0.hasSuffix(".partial")
                }
            }, delay: 2_500_000)
        let signalled = Date()
        let stderr = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        // Not a speed bound: the grace period is a second and the encode had tens of seconds left,
        // so an exit this long after the signal can only be one that did not wait for x265.
        #expect(Date().timeIntervalSince(signalled) < 10)
        #expect(wasRunning)
        #expect(process.terminationStatus == 130)
        #expect(stderr.contains("stopped without waiting for the encoder"), "\(stderr)")
        #expect(((try? FileManager.default.contentsOfDirectory(atPath: out)) ?? ["missing"]).isEmpty)
        #expect(try folder.used() == 0)
    }

    @Test("HEIC to HEIC at the default quality is no bigger than the iPhone original")
    func heicDefaultSize() async throws {
        let folder = try UserFolder()
        defer { folder.remove() }
        try folder.add("photos/IMG_5195.HEIC", as: "IMG_5195.HEIC")
        let outcome = try await folder.run(["convert", "IMG_5195.HEIC", "--to", "heic", "-o", "out"])
        #expect(outcome.status == 0, "\(outcome.stderr)")
        let size = { (name: String) in
            (try? FileManager.default.attributesOfItem(atPath: folder.url.appendingPathComponent(name).path)[.size]
                as? Int) ?? 0
        }
        #expect(size("out/IMG_5195.heic") > 0 && size("out/IMG_5195.heic") <= size("IMG_5195.HEIC"))
        let info = try CLIRunner.toolOutput(
            "/usr/bin/heif-info", [folder.url.appendingPathComponent("out/IMG_5195.heic").path])
        #expect(info.contains("image: 2566x3313"), "the whole upright picture: \(info)")
    }

    @Test("compress-photos names its outputs 'NAME (small).jpg' and says when one came out larger")
    func compressPhotosNames() async throws {
        let folder = try UserFolder()
        defer { folder.remove() }
        try folder.add("photos/tokyo.jpg", as: "t.jpg")
        let outcome = try await folder.run(["compress-photos", "t.jpg", "--quality", "98"])
        #expect(outcome.status == 0, "\(outcome.stderr)")
        #expect(folder.files() == ["t (small).jpg", "t.jpg"])
        #expect(outcome.stderr.contains("larger than the original"), "\(outcome.stderr)")
        let small = try await folder.run(["compress-photos", "t.jpg", "--quality", "40", "-o", "out"])
        #expect(!small.stderr.contains("larger than the original"))
    }

    @Test("compress-photos --target-size keeps a JPEG that already fits: the same pixels (djpeg), its location gone")
    func compressFitting() async throws {
        let folder = try UserFolder()
        defer { folder.remove() }
        try folder.add("photos/DSCN0010.jpg", as: "d.jpg")
        let outcome = try await folder.run(["compress-photos", "d.jpg", "--target-size", "2MB"])
        #expect(outcome.status == 0, "\(outcome.stderr)")
        #expect(outcome.stderr.contains("already within the target size: kept as it is"), "\(outcome.stderr)")
        let kept = folder.url.appendingPathComponent("d (small).jpg").path
        let original = folder.url.appendingPathComponent("d.jpg").path
        let decode = { (path: String) throws -> String in
            try CLIRunner.toolOutput("/bin/sh", ["-c", "djpeg -pnm \"$0\" | md5sum", path])
        }
        #expect(try decode(kept) == decode(original), "not re-encoded")
        #expect(try await PrivacyCommandsTests.locationLines(kept).isEmpty)
        // One that does not fit is re-encoded to the target, as before.
        let smaller = try await folder.run(["compress-photos", "d.jpg", "--target-size", "60KB", "-o", "out"])
        #expect(smaller.status == 0, "\(smaller.stderr)")
        #expect(!smaller.stderr.contains("kept as it is"), "\(smaller.stderr)")
        let size =
            try FileManager.default.attributesOfItem(
                atPath: folder.url.appendingPathComponent("out/d (small).jpg").path)[.size] as? Int
        #expect((size ?? .max) <= 60_000)
    }

    @Test(
        "a small target on a small photo uses its bytes: 4:4:4 at a higher quality, under the target and closer to the source (ffmpeg PSNR)"
    )
    func compressUsesTheBytes() async throws {
        let folder = try UserFolder()
        defer { folder.remove() }
        let png = folder.url.appendingPathComponent("t.png").path
        _ = try await MotionCommandsTests.tool(
            "ffmpeg", ["-v", "error", "-i", CLIRunner.media.appendingPathComponent("photos/tokyo.jpg").path, png])
        let old = try await folder.run(["compress-photos", "t.png", "--quality", "95", "-o", "q95"])
        #expect(old.status == 0, "\(old.stderr)")
        let outcome = try await folder.run(["compress-photos", "t.png", "--target-size", "400KB", "-o", "target"])
        #expect(outcome.status == 0, "\(outcome.stderr)")
        #expect(outcome.stderr.contains("chroma at full resolution (4:4:4)"), "\(outcome.stderr)")
        let size = { (path: String) in
            (try? FileManager.default.attributesOfItem(atPath: folder.url.appendingPathComponent(path).path)[.size]
                as? Int) ?? 0
        }
        #expect(size("target/t (small).jpg") <= 400_000 && size("target/t (small).jpg") > size("q95/t (small).jpg"))
        let before = try await DamagedPhotoCommandTests.psnr(
            folder.url.appendingPathComponent("q95/t (small).jpg").path, ["-i", png])
        let after = try await DamagedPhotoCommandTests.psnr(
            folder.url.appendingPathComponent("target/t (small).jpg").path, ["-i", png])
        #expect(after > before + 1, "\(before) → \(after) dB")
    }

    @Test("two processes writing the same name into one folder both succeed, numbered")
    func twoProcessesOneName() async throws {
        let folder = try UserFolder()
        defer { folder.remove() }
        try folder.add("photos/pug.heic", as: "a/p.heic")
        try folder.add("photos/pug.heic", as: "b/p.heic")
        async let first = folder.run(
            ["heic-to-jpg", "a/p.heic", "-o", "out"], environment: ["XDG_STATE_HOME": folder.state + "-a"])
        async let second = folder.run(
            ["heic-to-jpg", "b/p.heic", "-o", "out"], environment: ["XDG_STATE_HOME": folder.state + "-b"])
        let outcomes = try await [first, second]
        for outcome in outcomes { #expect(outcome.status == 0, "\(outcome.stderr)") }
        #expect(folder.files().filter { $0.hasPrefix("out/") } == ["out/p (2).jpg", "out/p.jpg"])
    }

    /// Whether this test run may mount a small tmpfs (root, as CI runs), for the full-disk test.
    static let canMount: Bool = {
        let probe = FileManager.default.temporaryDirectory.appendingPathComponent("offconvert-mount-\(getpid())").path
        try? FileManager.default.createDirectory(atPath: probe, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: probe) }
        _ = try? CLIRunner.toolOutput("/bin/mount", ["-t", "tmpfs", "-o", "size=64k", "tmpfs", probe])
        let size = (try? FileManager.default.attributesOfFileSystem(forPath: probe)[.systemSize] as? Int) ?? Int.max
        _ = try? CLIRunner.toolOutput("/bin/umount", [probe])
        return size <= 1 << 20
    }()

    @Test(
        "a nearly full disk fails only the photos that do not fit (device.full), the others are converted",
        .enabled(if: canMount, "needs root to mount a small tmpfs"))
    func nearlyFull() async throws {
        let folder = try UserFolder()
        defer { folder.remove() }
        for name in ["1", "2", "3"] { try folder.add("photos/pug.heic", as: "\(name).heic") }
        let out = folder.url.appendingPathComponent("out").path
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        _ = try CLIRunner.toolOutput("/bin/mount", ["-t", "tmpfs", "-o", "size=2600k", "tmpfs", out])
        defer { _ = try? CLIRunner.toolOutput("/bin/umount", [out]) }
        let outcome = try await folder.run([
            "heic-to-jpg", "1.heic", "2.heic", "3.heic", "-o", "out", "--jobs", "1", "--json",
        ])
        #expect(outcome.status == 1)
        let lines = try PhotoCommandsTests.jsonLines(outcome.stdout)
        #expect(lines.filter { $0["event"] as? String == "finished" }.count >= 1)
        let failed = lines.filter { $0["event"] as? String == "failed" }
        #expect(
            !failed.isEmpty && failed.allSatisfy { ($0["error"] as? [String: Any])?["key"] as? String == "device.full" }
        )
        #expect(
            !((try? FileManager.default.contentsOfDirectory(atPath: out)) ?? []).contains { $0.hasSuffix(".partial") })

        // As text, each failure line names the photo that did not fit, not only the full folder.
        for name in (try? FileManager.default.contentsOfDirectory(atPath: out)) ?? [] {
            try FileManager.default.removeItem(atPath: out + "/" + name)
        }
        let text = try await folder.run(
            ["heic-to-jpg", "1.heic", "2.heic", "3.heic", "-o", "out", "--jobs", "1"],
            environment: ["XDG_STATE_HOME": folder.state + "-text"])
        #expect(text.status == 1)
        let failures = text.stderr.split(separator: "\n").filter { $0.contains("Not enough space") }
        #expect(!failures.isEmpty, "\(text.stderr)")
        #expect(
            failures.allSatisfy { line in ["1.heic", "2.heic", "3.heic"].contains { line.contains($0) } },
            "\(text.stderr)")
    }

    @Test("images-to-pdf names the damaged page, and refuses a margin that leaves no room")
    func pdfMessages() async throws {
        let folder = try exportFolder()
        defer { folder.remove() }
        try folder.add("generated/broken/corrupted.jpg", as: "bad.jpg")
        let outcome = try await folder.run(["images-to-pdf", "p", "bad.jpg", "-o", "album.pdf"])
        #expect(outcome.status == 1)
        #expect(outcome.stderr.contains("Page 2: bad.jpg is damaged"), "\(outcome.stderr)")
        #expect(!folder.files().contains("album.pdf"))
        // The album's notes are about the album, not its first page.
        let made = try await folder.run(["images-to-pdf", "p", "IMG_0001.HEIC", "-o", "album.pdf"])
        #expect(made.status == 0, "\(made.stderr)")
        #expect(made.stderr.contains("album.pdf: "), "\(made.stderr)")
        #expect(!made.stderr.contains("p: "), "\(made.stderr)")
        let margin = try await folder.run([
            "images-to-pdf", "p", "-o", "album.pdf", "--page", "a4", "--margin", "150mm",
        ])
        #expect(margin.status == 64)
        #expect(margin.stderr.contains("leaves no room"))
    }

    @Test("strip-location --in-place keeps the original's modification time and permissions")
    func inPlaceKeepsTime() async throws {
        let folder = try exportFolder()
        defer { folder.remove() }
        let path = folder.url.appendingPathComponent("p").path
        let old = Date(timeIntervalSince1970: 1_262_304_000)
        try FileManager.default.setAttributes([.modificationDate: old, .posixPermissions: 0o640], ofItemAtPath: path)
        let outcome = try await folder.run(["strip-location", "--in-place", "p"])
        #expect(outcome.status == 0, "\(outcome.stderr)")
        #expect(outcome.stderr.contains("location removed"))
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        #expect(attributes[.modificationDate] as? Date == old)
        #expect(attributes[.posixPermissions] as? Int == 0o640)
        let gps = try CLIRunner.toolOutput("/usr/bin/exiftool", ["-gps:all", "-s", path])
        #expect(gps.isEmpty, "\(gps)")
    }
}
