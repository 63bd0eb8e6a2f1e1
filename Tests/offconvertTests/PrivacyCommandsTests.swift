import Foundation
import Testing

/// Location never leaks from a sharing command, `--keep-location` keeps it, and `strip-location`
/// removes it without re-encoding; checked with exiftool, an independent reader.
@Suite("privacy: location in outputs")
struct PrivacyCommandsTests {
    static let exiftool = "/usr/bin/exiftool"
    static let haveExiftool = FileManager.default.isExecutableFile(atPath: exiftool)

    static let locatedPhotos = [
        "photos/IMG_5195.HEIC", "photos/pug.heic", "photos/xiaomi.heic", "photos/empty_icc.heic",
        "photos/spatial_photo.heic", "photos/tokyo.jpg", "photos/DSCN0010.jpg", "generated/gps-exif-xmp.png",
        "generated/gps-exif-xmp.webp", "generated/gps-xmp.jpg", "generated/gps-exif-xmp.heic",
        "generated/gps-exif-xmp.avif",
    ]
    static let locatedVideos = [
        "video/sample.mp4", "video/dolbyVision-hdr.MOV", "generated/location-xyz.mp4", "generated/location-keys.mov",
    ]

    /// A sharing situation: the command and options, with the inputs it takes.
    struct Situation: CustomTestStringConvertible, Sendable {
        var arguments: [String]
        var inputs: [String]
        var testDescription: String { arguments.joined(separator: " ") }
    }

    static let situations: [Situation] = [
        Situation(arguments: ["heic-to-jpg"], inputs: locatedPhotos),
        Situation(arguments: ["heic-to-png"], inputs: ["photos/tokyo.jpg", "photos/empty_icc.heic"]),
        Situation(arguments: ["compress-photos", "--target-size", "300KB"], inputs: locatedPhotos),
        Situation(
            arguments: ["compress-photos", "--to", "webp"],
            inputs: ["photos/xiaomi.heic", "generated/gps-exif-xmp.webp"]),
        Situation(arguments: ["convert", "--to", "heic"], inputs: ["photos/pug.heic", "photos/tokyo.jpg"]),
        Situation(
            arguments: ["convert", "--to", "png"], inputs: ["generated/gps-exif-xmp.png", "photos/DSCN0010.jpg"]),
        Situation(arguments: ["images-to-pdf", "-o", "OUT/album.pdf"], inputs: locatedPhotos),
        Situation(arguments: ["send-to-windows"], inputs: locatedVideos),
        Situation(arguments: ["extract-audio"], inputs: locatedVideos),
        Situation(arguments: ["convert", "--to", "mov"], inputs: locatedVideos),
        Situation(arguments: ["gif", "--duration", "0.3"], inputs: ["generated/location-xyz.mp4"]),
    ]

    /// The location lines exiftool prints for `path` (tag names with GPS or location in them,
    /// embedded documents and every group included).
    static func locationLines(_ path: String) async throws -> [String] {
        let outcome = try await CLIRunner.run(
            ["-a", "-G1", "-n", "-ee", "-s", path], executable: URL(fileURLWithPath: exiftool))
        return outcome.stdout.split(separator: "\n").map(String.init).filter { line in
            let name = line.split(separator: ":", maxSplits: 1).first.map(String.init)?.lowercased() ?? ""
            return (name.contains("gps") || name.contains("location")) && !name.contains("focuslocation")
        }
    }

    static func outputs(in folder: URL) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { !$0.hasPrefix(".") }.sorted()
            .map { folder.appendingPathComponent($0).path }
    }

    @Test("no location in any output of a sharing command", .enabled(if: haveExiftool), arguments: situations)
    func noLeak(situation: Situation) async throws {
        let folder = try NoNetworkTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let usesOutputFile = situation.arguments.contains("OUT/album.pdf")
        let arguments =
            situation.arguments.map { $0.hasPrefix("OUT") ? folder.path + $0.dropFirst(3) : $0 }
            + situation.inputs.map { CLIRunner.media.appendingPathComponent($0).path }
            + (usesOutputFile ? [] : ["-o", folder.path])
        let outcome = try await CLIRunner.run(arguments)
        let outputs = try Self.outputs(in: folder)
        #expect(!outputs.isEmpty, "no output: \(outcome.stderr)")
        for output in outputs {
            #expect(try await Self.locationLines(output).isEmpty, "\(output) still says where it was made")
        }
        let media = outputs.filter { !$0.hasSuffix(".pdf") }
        guard !media.isEmpty else { return }
        let info = try await CLIRunner.run(["info", "--json"] + media)
        for line in info.stdout.split(separator: "\n") {
            #expect(line.contains("\"location\":{\"present\":false,\"sources\":[]}"), "\(line.prefix(200))")
        }
    }

    @Test(
        "--keep-location keeps it", .enabled(if: haveExiftool),
        arguments: [
            ["convert", "--keep-location", "photos/tokyo.jpg"], ["heic-to-jpg", "--keep-location", "photos/pug.heic"],
            ["send-to-windows", "--keep-location", "generated/location-xyz.mp4"],
            ["send-to-windows", "--keep-location", "generated/location-keys.mov"],
        ])
    func keepLocation(arguments: [String]) async throws {
        let folder = try NoNetworkTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = CLIRunner.media.appendingPathComponent(arguments[2]).path
        let target = arguments[0] == "convert" ? ["--to", "jpg"] : []
        let outcome = try await CLIRunner.run(Array(arguments[0..<2]) + target + [input, "-o", folder.path])
        let output = try #require(try Self.outputs(in: folder).first, "\(outcome.stderr)")
        #expect(!(try await Self.locationLines(output)).isEmpty)
    }

    @Test(
        "strip-location: 'NAME (no location).EXT' copies, exiftool and heif-info read them, no GPS left",
        .enabled(if: haveExiftool))
    func stripCopies() async throws {
        let folder = try NoNetworkTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let inputs = (Self.locatedPhotos + Self.locatedVideos).map { CLIRunner.media.appendingPathComponent($0).path }
        let outcome = try await CLIRunner.run(["strip-location", "--json", "-o", folder.path] + inputs)
        #expect(outcome.status == 0, "\(outcome.stderr)")
        let finished = outcome.stdout.split(separator: "\n").filter { $0.contains("\"event\":\"finished\"") }
        #expect(finished.count == inputs.count)
        #expect(finished.allSatisfy { $0.contains("location removed") })
        // The typed fact, not the note: every one of these had a location, and it is gone.
        #expect(finished.allSatisfy { $0.contains("\"privacy\":{\"location\":\"removed\"}") }, "\(finished.prefix(2))")
        let outputs = try Self.outputs(in: folder)
        #expect(outputs.map { ($0 as NSString).lastPathComponent }.contains("pug (no location).heic"))
        #expect(outputs.count == inputs.count)
        for output in outputs {
            #expect(try await Self.locationLines(output).isEmpty, "\(output)")
            let warnings = try await CLIRunner.run(
                ["-warning", "-error", "-s", "-s", "-s", output], executable: URL(fileURLWithPath: Self.exiftool))
            #expect(!warnings.stdout.lowercased().contains("error"), "\(output): \(warnings.stdout)")
        }
        let heifInfo = URL(fileURLWithPath: "/usr/bin/heif-info")
        if FileManager.default.isExecutableFile(atPath: heifInfo.path) {
            for output in outputs where output.lowercased().hasSuffix(".heic") {
                let read = try await CLIRunner.run([output], executable: heifInfo)
                #expect(read.status == 0 && read.stdout.contains("primary"), "\(output): \(read.stderr)")
            }
        }
    }

    /// exiftool's Samsung trailer tags of `path` (`-s` names).
    static func samsungTags(_ path: String) async throws -> String {
        let outcome = try await CLIRunner.run(
            ["-a", "-G1", "-s", "-Samsung:all", "-b", path], executable: URL(fileURLWithPath: exiftool))
        return outcome.stdout.split(separator: "\n").filter { !$0.contains("EmbeddedVideoFile") }.joined(
            separator: "\n")
    }

    @Test(
        "Samsung's MCC_Data is a location: info names it, strip-location takes it out (and the clip's), the rest and the size kept",
        .enabled(if: haveExiftool),
        arguments: [
            "generated/motion-samsung-mcc.jpg", "generated/samsung-still.heic", "generated/motion-samsung-oneui6.heic",
        ])
    func samsungCountry(input: String) async throws {
        let folder = try NoNetworkTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = CLIRunner.media.appendingPathComponent(input).path
        let before = try await CLIRunner.run(
            ["-a", "-G1", "-s", "-MCCData", "-TimeStamp", path], executable: URL(fileURLWithPath: Self.exiftool))
        #expect(before.stdout.contains("MCCData") && before.stdout.contains("TimeStamp"), "\(before.stdout)")
        let info = try await CLIRunner.run(["info", "--json", path])
        #expect(info.stdout.contains("\"samsung-mcc\""), "\(info.stdout)")

        let outcome = try await CLIRunner.run(["strip-location", "-o", folder.path, path])
        #expect(outcome.status == 0, "\(outcome.stderr)")
        #expect(outcome.stderr.contains("Samsung's mobile country code"), "\(outcome.stderr)")
        let output = try #require(try Self.outputs(in: folder).first)
        let after = try await CLIRunner.run(
            ["-a", "-G1", "-s", "-MCCData", "-TimeStamp", "-EmbeddedVideoType", output],
            executable: URL(fileURLWithPath: Self.exiftool))
        #expect(!after.stdout.contains("MCCData") && after.stdout.contains("TimeStamp"), "\(after.stdout)")
        #expect(after.stdout.contains("EmbeddedVideoType") == input.contains("motion"), "\(after.stdout)")
        #expect(try await Self.locationLines(output).isEmpty, "\(output)")
        let size = { (file: String) in (try? FileManager.default.attributesOfItem(atPath: file)[.size] as? Int) ?? -1 }
        #expect(size(output) == size(path))
        let reread = try await CLIRunner.run(["info", "--json", output])
        #expect(reread.stdout.contains("\"location\":{\"present\":false"), "\(reread.stdout)")

        let converted = try await CLIRunner.run(["convert", "--to", "png", "-o", folder.path + "/png", path])
        #expect(converted.status == 0, "\(converted.stderr)")
        let png = try #require(try Self.outputs(in: folder.appendingPathComponent("png")).first)
        #expect(try await Self.samsungTags(png).isEmpty)
    }

    @Test(
        "--json says 'removed' when --strip-metadata drops a location, 'none found' when there was none, 'kept' when kept"
    )
    func privacyFacts() async throws {
        let folder = try NoNetworkTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        func location(_ arguments: [String]) async throws -> String? {
            let outcome = try await CLIRunner.run(arguments + ["--json", "-o", folder.path, "--overwrite"])
            let line = try #require(
                outcome.stdout.split(separator: "\n").first { $0.contains("\"event\":\"finished\"") },
                "\(outcome.stderr)")
            let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
            return (object?["privacy"] as? [String: String])?["location"]
        }
        let located = CLIRunner.media.appendingPathComponent("photos/tokyo.jpg").path
        #expect(try await location(["convert", located, "--to", "png", "--strip-metadata"]) == "removed")
        #expect(try await location(["heic-to-jpg", located, "--include-jpeg"]) == "removed")
        #expect(try await location(["heic-to-jpg", located, "--keep-location", "--include-jpeg"]) == "kept")
        let clean = folder.appendingPathComponent("clean.png").path
        _ = try await CLIRunner.run(["convert", located, "--to", "png", "--strip-metadata", "-o", clean])
        #expect(try await location(["convert", clean, "--to", "webp"]) == "none found")
    }

    @Test("compress and email report the video's location in --json, checked with ffprobe")
    func compressPrivacyFacts() async throws {
        let folder = try NoNetworkTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        func location(_ arguments: [String]) async throws -> (String?, String) {
            let outcome = try await CLIRunner.run(arguments + ["--json", "-o", folder.path, "--overwrite"])
            let line = try #require(
                outcome.stdout.split(separator: "\n").first { $0.contains("\"event\":\"finished\"") },
                "\(outcome.stderr)")
            let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
            return ((object?["privacy"] as? [String: String])?["location"], object?["output"] as? String ?? "")
        }
        func tags(_ path: String) throws -> String {
            try CLIRunner.toolOutput(
                "/usr/bin/ffprobe", ["-v", "error", "-show_entries", "format_tags", "-of", "compact", path])
        }
        let located = CLIRunner.media.appendingPathComponent("generated/location-xyz.mp4").path
        let (removed, small) = try await location(["compress", located, "--target", "10MB"])
        #expect(removed == "removed")
        #expect(try !tags(small).contains("location"))
        let (kept, keptFile) = try await location(["email", located, "--keep-location"])
        #expect(kept == "kept")
        #expect(try tags(keptFile).contains("+35.6586+139.7454"))
        let (none, _) = try await location([
            "compress", CLIRunner.media.appendingPathComponent("video/bikes.mp4").path, "--target", "10MB",
        ])
        #expect(none == "none found")
    }

    @Test("strip-location --in-place replaces the file; with --output-dir it is a usage error")
    func stripInPlace() async throws {
        let folder = try NoNetworkTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("clip.mov").path
        try FileManager.default.copyItem(
            atPath: CLIRunner.media.appendingPathComponent("video/dolbyVision-hdr.MOV").path, toPath: path)
        let planned = try await CLIRunner.run(["strip-location", "--in-place", "--dry-run", path])
        #expect(planned.stdout.hasPrefix("\(path) → \(path) "), "\(planned.stdout)")
        let outcome = try await CLIRunner.run(["strip-location", "--in-place", path])
        #expect(outcome.status == 0, "\(outcome.stderr)")
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { !$0.hasPrefix(".") } == [
                "clip.mov"
            ])
        let info = try await CLIRunner.run(["info", path])
        #expect(info.stdout.contains("location: none"))
        let usage = try await CLIRunner.run(["strip-location", "--in-place", "-o", folder.path, path])
        #expect(usage.status == 64)
        #expect(usage.stderr.contains("cannot be used together"))
    }

    @Test(
        "video outputs drop serial numbers and content identifiers, keep make",
        .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/ffprobe")))
    func identifyingVideoTags() async throws {
        let folder = try NoNetworkTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = CLIRunner.media.appendingPathComponent("generated/location-keys.mov").path
        let source = try await CLIRunner.run(
            ["-v", "error", "-show_format", input], executable: URL(fileURLWithPath: "/usr/bin/ffprobe"))
        #expect(source.stdout.contains("serialnumber=SN123456") && source.stdout.contains("content.identifier="))
        let outcome = try await CLIRunner.run(["convert", "--to", "mkv", "--json", input, "-o", folder.path])
        #expect(outcome.stdout.contains("serial numbers and owner name removed"), "\(outcome.stdout)")
        let output = try #require(try Self.outputs(in: folder).first, "\(outcome.stderr)")
        let tags = try await CLIRunner.run(
            ["-v", "error", "-show_format", output], executable: URL(fileURLWithPath: "/usr/bin/ffprobe")
        ).stdout.lowercased()
        #expect(tags.contains("com.apple.quicktime.make=apple"))
        #expect(!tags.contains("sn123456") && !tags.contains("5f1b0c2e") && !tags.contains("iso6709"))
    }

    @Test(
        "compress reports the tags it dropped as convert does: the same notes and privacy facts",
        .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/ffprobe")))
    func compressTagNotesMatchConvert() async throws {
        let folder = try NoNetworkTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = CLIRunner.media.appendingPathComponent("generated/location-keys.mov").path
        func finished(_ arguments: [String], into name: String) async throws -> (
            notes: [String], location: String?, output: String
        ) {
            let target = folder.appendingPathComponent(name)
            try FileManager.default.createDirectory(at: target, withIntermediateDirectories: true)
            let outcome = try await CLIRunner.run(arguments + [input, "--json", "-o", target.path])
            let line = try #require(
                outcome.stdout.split(separator: "\n").first { $0.contains("\"event\":\"finished\"") },
                "\(outcome.stderr)")
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            return (
                object["notes"] as? [String] ?? [], (object["privacy"] as? [String: String])?["location"],
                object["output"] as? String ?? ""
            )
        }
        let converted = try await finished(["convert", "--to", "mp4"], into: "convert")
        let compressed = try await finished(["compress", "--target", "10MB"], into: "compress")
        for tagNote in ["location removed", "serial numbers and owner name removed"] {
            #expect(converted.notes.contains(tagNote), "\(converted.notes)")
            #expect(compressed.notes.contains(tagNote), "\(compressed.notes)")
        }
        #expect(converted.location == "removed" && compressed.location == "removed")
        let tags = try CLIRunner.toolOutput("/usr/bin/ffprobe", ["-v", "error", "-show_format", compressed.output])
            .lowercased()
        #expect(!tags.contains("sn123456") && !tags.contains("iso6709"), "\(tags)")
        let kept = try await finished(["compress", "--target", "10MB", "--keep-location"], into: "kept")
        #expect(kept.location == "kept" && kept.notes.contains("location kept"), "\(kept.notes)")
    }

    @Test(
        "strip-location on a Matroska file without a location tag says none was found and writes nothing; one with a tag is refused"
    )
    func matroskaWithoutLocation() async throws {
        let folder = try UserFolder()
        defer { folder.remove() }
        try folder.add("generated/subtitles.mkv", as: "film.mkv")
        let outcome = try await folder.run(["strip-location", "film.mkv"])
        #expect(outcome.status == 0, "\(outcome.stderr)")
        #expect(outcome.stderr.contains("film.mkv: no location found; nothing written"), "\(outcome.stderr)")
        #expect(folder.files() == ["film.mkv"])
        _ = try CLIRunner.toolOutput(
            "/usr/bin/ffmpeg",
            [
                "-v", "error", "-i", folder.url.appendingPathComponent("film.mkv").path,
                "-map", "0", "-c", "copy", "-metadata", "location=+40.6892-074.0445/",
                folder.url.appendingPathComponent("placed.mkv").path,
            ])
        let placed = try await folder.run(["strip-location", "placed.mkv"])
        #expect(placed.status == 1)
        #expect(placed.stderr.contains("removing a location from Matroska files is not supported"), "\(placed.stderr)")
    }
}
