import Foundation
import Testing

@Suite("offconvert info")
struct InfoCommandTests {
    private func media(_ relative: String) -> String { CLIRunner.media.appendingPathComponent(relative).path }

    @Test("one readable block per file, exit 0, nothing on stderr")
    func humanForm() async throws {
        let outcome = try await CLIRunner.run(["info", media("video/dolbyVision-hdr.MOV"), media("photos/tokyo.jpg")])
        #expect(outcome.status == 0)
        #expect(outcome.stderr.isEmpty)
        let blocks = outcome.stdout.split(separator: "\n", omittingEmptySubsequences: false).filter {
            !$0.hasPrefix(" ")
        }
        #expect(blocks.count == 4, "header, blank line, header, final newline")
        #expect(blocks[1].isEmpty && blocks[3].isEmpty)
        #expect(outcome.stdout.components(separatedBy: "\n\n").count == 2)
        #expect(blocks[0].hasSuffix("dolbyVision-hdr.MOV: QuickTime movie, 64.6 kB, 0.11 s, 4.8 Mb/s"))
        #expect(blocks[2].hasSuffix("tokyo.jpg: JPEG image, 162.9 kB"))
        #expect(
            outcome.stdout.contains(
                "#0 video   hevc (hvc1) Main 10, 720x1280 upright, turned 90° clockwise, 30 fps, yuv420p10le 10-bit"))
        #expect(outcome.stdout.contains("Dolby Vision 8.4, HLG-compatible base (level 2, RPU+BL)"))
        #expect(outcome.stdout.contains("#2 data    mebx, no decoder, handler meta"))
        #expect(outcome.stdout.contains("location: 51.5334° N, 0.1255° W, 27 m (container tag)"))
    }

    @Test("a file that can't be read: one line on stderr naming it, the others still print, exit 1")
    func partialFailure() async throws {
        let outcome = try await CLIRunner.run([
            "info", media("generated/not-media.txt"), media("video/motion.mov"), "/nonexistent/missing.mp4",
            media("generated/truncated-moov.mp4"),
        ])
        #expect(outcome.status == 1)
        let errors = outcome.stderr.split(separator: "\n")
        #expect(errors.count == 3)
        #expect(errors[0] == "Error: \(media("generated/not-media.txt")) is not a media file offconvert recognises.")
        #expect(errors[1] == "Error: /nonexistent/missing.mp4 does not exist.")
        #expect(errors[2].contains("truncated-moov.mp4 is incomplete"))
        #expect(outcome.stdout.contains("motion.mov: QuickTime movie"))
        #expect(outcome.stdout.contains("#1 video   h264 (avc1) Main, 568x320, 30 fps, yuv420p 8-bit"))
    }

    @Test("--json prints one parseable object per line with the documented fields")
    func jsonLines() async throws {
        let files = [
            media("video/regular.mkv"), media("generated/dvcc-p5.mp4"), media("generated/jpeg-named.heic"),
            media("broken/sample_vvc.mp4"),
        ]
        let outcome = try await CLIRunner.run(["info", "--json"] + files)
        #expect(outcome.status == 0)
        #expect(outcome.stderr.isEmpty)
        let lines = outcome.stdout.split(separator: "\n")
        try #require(lines.count == 4)
        let objects = try lines.map { line in
            try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        }
        #expect(objects.map { $0["path"] as? String } == files)
        #expect(objects.map { $0["format"] as? String } == ["matroska", "mp4", "jpeg", "mp4"])
        #expect(objects[2]["container"] == nil)
        #expect(objects[2]["byteCount"] as? Int == 162937)

        func firstTrack(_ object: [String: Any]) throws -> [String: Any] {
            let container = try #require(object["container"] as? [String: Any])
            return try #require((container["tracks"] as? [[String: Any]])?.first)
        }
        let mkvVideo = try #require(try firstTrack(objects[0])["video"] as? [String: Any])
        let mkvRange = try #require(mkvVideo["dynamicRange"] as? [String: Any])
        #expect(mkvRange["class"] as? String == "dolbyVision")
        #expect(mkvRange["sdrConversion"] as? String == "toneMapFromPQ")
        let record = try #require(mkvRange["dolbyVision"] as? [String: Any])
        #expect(record["profile"] as? Int == 8 && record["level"] as? Int == 1)
        #expect(record["baseLayerCompatibilityID"] as? Int == 1 && record["name"] as? String == "8.1")

        let p5 = try #require(
            (try firstTrack(objects[1])["video"] as? [String: Any])?["dynamicRange"] as? [String: Any])
        #expect(p5["sdrConversion"] as? String == "notPossible")
        #expect(p5["needsToneMappingForSDR"] as? Bool == false)

        let vvc = try firstTrack(objects[3])
        #expect(vvc["codec"] as? String == "vvc1")
        #expect(vvc["decoderAvailable"] as? Bool == false)
    }

    @Test("--json with a bad file: stdout keeps only valid JSON lines, the error goes to stderr")
    func jsonWithFailure() async throws {
        let outcome = try await CLIRunner.run([
            "info", "--json", media("generated/truncated-moov.mp4"), media("video/bikes.mp4"),
        ])
        #expect(outcome.status == 1)
        let lines = outcome.stdout.split(separator: "\n")
        #expect(lines.count == 1)
        #expect(try JSONSerialization.jsonObject(with: Data(lines[0].utf8)) is [String: Any])
        #expect(outcome.stderr.split(separator: "\n").count == 1)
        #expect(outcome.stderr.contains("truncated-moov.mp4"))
    }

    @Test("a hostile file name is printed without its control characters")
    func terminalSafety() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "offconvert-info-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let hostile = directory.appendingPathComponent("clip\u{1B}]0;owned\u{07}.mp4")
        try FileManager.default.copyItem(atPath: media("video/sample.mp4"), toPath: hostile.path)
        let missing = directory.appendingPathComponent("gone\u{1B}[2J.mp4").path
        let outcome = try await CLIRunner.run(["info", hostile.path, missing])
        #expect(outcome.status == 1)
        #expect(!outcome.stdout.contains("\u{1B}") && !outcome.stdout.contains("\u{07}"))
        #expect(!outcome.stderr.contains("\u{1B}"))
        #expect(outcome.stdout.contains("clip?]0;owned?.mp4: MPEG-4"))
        #expect(outcome.stderr.contains("gone?[2J.mp4 does not exist."))
    }

    @Test("an empty file and a folder get the library's words for input.empty and input.not-a-file")
    func emptyAndFolder() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "offconvert-info-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let empty = directory.appendingPathComponent("empty.heic").path
        try Data().write(to: URL(fileURLWithPath: empty))
        let folder = directory.appendingPathComponent("clips.mp4").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
        let outcome = try await CLIRunner.run(["info", empty, folder])
        #expect(outcome.status == 1)
        #expect(outcome.stdout.isEmpty)
        #expect(
            outcome.stderr == "Error: \(empty) is empty.\nError: \(folder) is a folder, not a file.\n",
            "\(outcome.stderr)")
    }

    @Test("no file is a usage error")
    func noFiles() async throws {
        let outcome = try await CLIRunner.run(["info"])
        #expect(outcome.status == 64)
        #expect(outcome.stdout.isEmpty)
        #expect(outcome.stderr.contains("Usage: offconvert info"))
    }

    @Test("info is listed in the overview and has help")
    func help() async throws {
        let overview = try await CLIRunner.run(["--help"])
        // Its own line in COMMANDS, with its abstract (the word "info" alone appears elsewhere).
        #expect(
            overview.stdout.contains("\n  info                    Show what a photo or video file contains.\n"),
            "\(overview.stdout)")
        let help = try await CLIRunner.run(["info", "--help"])
        #expect(help.status == 0)
        #expect(help.stdout.contains("--json"))
    }
}

@Suite("offconvert info: photos and location")
struct InfoImageTests {
    private func media(_ relative: String) -> String { CLIRunner.media.appendingPathComponent(relative).path }

    private func json(_ relative: String) async throws -> [String: Any] {
        let outcome = try await CLIRunner.run(["info", "--json", media(relative)])
        #expect(outcome.status == 0, "\(outcome.stderr)")
        return try #require(try JSONSerialization.jsonObject(with: Data(outcome.stdout.utf8)) as? [String: Any])
    }

    @Test("pug.heic: depth and gain map, GPS in EXIF, Display P3")
    func pug() async throws {
        let outcome = try await CLIRunner.run(["info", media("photos/pug.heic")])
        #expect(outcome.stdout.contains("  picture: 4032x3024, 8-bit, no alpha"))
        #expect(outcome.stdout.contains("  colour: ICC \"Display P3\" (536 bytes)"))
        #expect(outcome.stdout.contains("  metadata: EXIF (Apple iPhone 13 Pro), XMP, taken 2023:02:21 14:33:08"))
        #expect(outcome.stdout.contains("  auxiliary: depth, HDR gain map (Apple)"))
        #expect(outcome.stdout.contains("  location: yes, in EXIF GPS"))
        let object = try await json("photos/pug.heic")
        let location = try #require(object["location"] as? [String: Any])
        #expect(location["present"] as? Bool == true)
        #expect(location["sources"] as? [String] == ["exif"])
        let image = try #require(object["image"] as? [String: Any])
        #expect(image["auxiliaryImages"] as? [String] == ["depth", "urn:com:apple:photo:2020:aux:hdrgainmap"])
        #expect((image["color"] as? [String: Any])?["iccDescription"] as? String == "Display P3")
        #expect(object["container"] == nil)
    }

    @Test("zPug_3.heic: three images and a thumbnail; cat.hif: 10-bit nclx with two thumbnails")
    func structure() async throws {
        let zpug = try await CLIRunner.run(["info", media("photos/zPug_3.heic")]).stdout
        #expect(zpug.contains("  picture: 64x64, 8-bit, no alpha, 3 images"))
        #expect(zpug.contains("  thumbnails: 1"))
        #expect(zpug.contains("  location: none"))
        let cat = try await json("photos/cat.hif")
        let image = try #require(cat["image"] as? [String: Any])
        #expect(image["bitDepth"] as? Int == 10)
        #expect(image["thumbnailCount"] as? Int == 2)
        #expect(image["width"] as? Int == 4240 && image["height"] as? Int == 2832)
        let nclx = try #require((image["color"] as? [String: Any])?["nclx"] as? [String: Any])
        #expect(nclx["primaries"] as? Int == 1 && nclx["transfer"] as? Int == 13 && nclx["fullRange"] as? Bool == true)
        #expect(
            try await CLIRunner.run(["info", media("photos/cat.hif")]).stdout.contains(
                "  colour: nclx 1/13/5 full range"))
    }

    @Test("tokyo.jpg: GPS; a video: the container tag; a file without: none")
    func location() async throws {
        let outcome = try await CLIRunner.run([
            "info", media("photos/tokyo.jpg"), media("video/sample.mp4"), media("video/bikes.mp4"),
        ])
        #expect(outcome.stdout.contains("  location: yes, in EXIF GPS"))
        #expect(outcome.stdout.contains("  location: 40.6800° N, 74.5000° W (container tag)"))
        #expect(outcome.stdout.contains("  location: none"))
        let video = try await json("video/sample.mp4")
        #expect((video["location"] as? [String: Any])?["sources"] as? [String] == ["container"])
        let xmp = try await json("generated/gps-exif-xmp.webp")
        #expect((xmp["location"] as? [String: Any])?["sources"] as? [String] == ["exif", "xmp"])
    }

    @Test("orientation JPEGs: the EXIF value and the displayed size", arguments: 1...8)
    func orientation(value: Int) async throws {
        let object = try await json("photos/orientation/Landscape_\(value).jpg")
        let image = try #require(object["image"] as? [String: Any])
        #expect(image["exifOrientation"] as? Int == value)
        #expect(image["width"] as? Int == 1800 && image["height"] as? Int == 1200)
        let text = try await CLIRunner.run(["info", media("photos/orientation/Landscape_\(value).jpg")]).stdout
        #expect(text.contains("  orientation: EXIF orientation \(value)"))
    }

    @Test("a damaged image still gets its format, size and location line")
    func damaged() async throws {
        let outcome = try await CLIRunner.run(["info", media("generated/broken/corrupted.jpg")])
        #expect(outcome.status == 0)
        #expect(outcome.stdout.contains("JPEG image"))
        #expect(outcome.stdout.contains("  location:"))
    }

    @Test("a picture too damaged to describe says why with its error code, in text and as --json's imageError")
    func undescribable() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "offconvert-info-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let whole = try Data(contentsOf: URL(fileURLWithPath: media("generated/gps-exif-xmp.heic")))
        let cut = folder.appendingPathComponent("cut.heic").path
        try whole.prefix(whole.count - 1500).write(to: URL(fileURLWithPath: cut))

        let text = try await CLIRunner.run(["info", cut])
        #expect(text.status == 0)
        #expect(
            text.stdout.contains(
                "  damaged (input.truncated): \(cut) is damaged: it is cut short.\n"),
            "\(text.stdout)")

        let json = try await CLIRunner.run(["info", "--json", cut])
        #expect(json.status == 0)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        let error = try #require(object["imageError"] as? [String: String], "\(json.stdout)")
        #expect(
            error == ["category": "input", "key": "input.truncated", "message": "\(cut) is damaged: it is cut short."])
    }
}
