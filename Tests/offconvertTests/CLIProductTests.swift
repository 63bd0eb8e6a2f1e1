import ConvertCore
import Foundation
import Testing

@testable import OffconvertCLI

/// The CLI as one product: the same batch front end, JSON schema, allowance, progress rules,
/// summary and catalogue for every converting command.
@Suite("CLI product", .serialized)
struct CLIProductTests {
    static func temporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent(
            "offconvert-cli-product-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    static func media(_ path: String) -> String { CLIRunner.media.appendingPathComponent(path).path }

    /// The keys of each kind of event line in `stdout`.
    static func keysByEvent(_ stdout: String) throws -> [String: Set<String>] {
        var keys: [String: Set<String>] = [:]
        for line in try PhotoCommandsTests.jsonLines(stdout) {
            let event = try #require(line["event"] as? String)
            keys[event, default: []].formUnion(line.keys)
        }
        return keys
    }

    @Test("--json lines have one schema for photo and video commands")
    func jsonSchema() async throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let photo = try await CLIRunner.run([
            "heic-to-jpg", Self.media("photos/zPug_3.heic"), Self.media("generated/broken-no-picture.jpg"),
            "--include-jpeg", "--json",
            "-o", directory.path,
        ])
        let video = try await CLIRunner.run([
            "send-to-windows", Self.media("video/sample.mp4"), Self.media("broken/sample_vvc.mp4"), "--json", "-o",
            directory.path,
        ])
        #expect(photo.status == 1 && video.status == 1)
        let photoKeys = try Self.keysByEvent(photo.stdout)
        let videoKeys = try Self.keysByEvent(video.stdout)
        for event in ["started", "progress", "finished", "failed", "summary"] {
            #expect(photoKeys[event] != nil && photoKeys[event] == videoKeys[event], "\(event)")
        }
        #expect(
            photoKeys["finished"]?.isSuperset(of: ["output", "bytes", "outputs", "notes", "noteKeys", "privacy"])
                == true)
        #expect(
            photoKeys["summary"]?.isSuperset(of: ["done", "failed", "skipped", "bytesIn", "bytesOut", "seconds"])
                == true)
        // Nothing but JSON on stdout.
        #expect(try PhotoCommandsTests.jsonLines(photo.stdout + video.stdout).allSatisfy { $0["event"] != nil })
    }

    /// What `offconvert allowance --json` says in `state`.
    static func used(_ state: String) async throws -> Int {
        let outcome = try await CLIRunner.run(["allowance", "--json"], environment: ["XDG_STATE_HOME": state])
        let object = try #require(try JSONSerialization.jsonObject(with: Data(outcome.stdout.utf8)) as? [String: Any])
        return try #require(object["used"] as? Int)
    }

    @Test("a batch is charged once, a failure costs nothing, the 4th conversion of the day is refused (exit 77)")
    func allowance() async throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let state = directory.appendingPathComponent("state").path
        let out = directory.appendingPathComponent("out").path
        func run(_ arguments: [String]) async throws -> CLIRunner.Outcome {
            try await CLIRunner.run(arguments + ["-o", out], environment: ["XDG_STATE_HOME": state])
        }
        let batch = try await run([
            "heic-to-jpg", Self.media("photos/zPug_3.heic"), Self.media("photos/tokyo.jpg"), "--include-jpeg",
        ])
        #expect(batch.status == 0, "\(batch.stderr)")
        #expect(try await Self.used(state) == 1)
        let failing = try await run(["heic-to-jpg", Self.media("generated/broken-no-picture.jpg"), "--include-jpeg"])
        #expect(failing.status == 1)
        #expect(try await Self.used(state) == 1)
        #expect(try await run(["extract-audio", Self.media("video/sample.mp4")]).status == 0)
        #expect(try await run(["convert", Self.media("photos/zPug_3.heic"), "--to", "png"]).status == 0)
        #expect(try await Self.used(state) == 3)
        let before = try FileManager.default.contentsOfDirectory(atPath: out).sorted()
        // tokyo.jpg was converted by the same command already: a re-run skips it, free.
        #expect(try await run(["heic-to-jpg", Self.media("photos/tokyo.jpg"), "--include-jpeg"]).status == 0)
        let refused = try await run(["heic-to-jpg", Self.media("photos/DSCN0010.jpg"), "--include-jpeg", "--json"])
        #expect(refused.status == 77)
        let lines = try PhotoCommandsTests.jsonLines(refused.stdout)
        let line = try #require(lines.first)
        #expect(line["event"] as? String == "failed" && line["input"] as? String == Self.media("photos/DSCN0010.jpg"))
        #expect(lines.last?["event"] as? String == "summary")
        let error = try #require(line["error"] as? [String: Any])
        #expect(error["category"] as? String == "allowance")
        let text = try await run(["heic-to-jpg", Self.media("photos/DSCN0010.jpg"), "--include-jpeg"])
        #expect(text.status == 77)
        #expect(text.stderr.contains("unlock"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: out).sorted() == before)
    }

    @Test(
        "progress never reaches stdout; without a terminal stderr has no escape codes; the summary says what happened")
    func progressAndSummary() async throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let outcome = try await CLIRunner.run([
            "convert", Self.media("photos/zPug_3.heic"), Self.media("generated/broken-no-picture.jpg"),
            Self.media("photos/tokyo.jpg"),
            "--to", "webp", "-o", directory.path,
        ])
        #expect(outcome.status == 1)
        let lines = outcome.stdout.split(separator: "\n").map(String.init)
        // Printed as each finishes: either order.
        #expect(lines.sorted() == ["tokyo.webp", "zPug_3.webp"].map { directory.appendingPathComponent($0).path })
        #expect(!outcome.stderr.contains("\u{1B}") && !outcome.stderr.contains("\r"))
        #expect(outcome.stderr.contains("2 done, 1 failed, "))
        #expect(outcome.stderr.contains(" in, ") && outcome.stderr.contains(" out, in "))
        // The path as typed, once (the message itself names it).
        #expect(outcome.stderr.contains("  failed: \(Self.media("generated/broken-no-picture.jpg")) is damaged"))
        #expect(outcome.stderr.contains("tokyo.jpg: location removed"))

        let quiet = try await CLIRunner.run([
            "heic-to-jpg", Self.media("photos/zPug_3.heic"), "-o", directory.path, "--quiet",
        ])
        #expect(quiet.status == 0 && quiet.stdout.isEmpty && quiet.stderr.isEmpty)
        let verbose = try await CLIRunner.run([
            "heic-to-jpg", Self.media("generated/broken-no-picture.jpg"), "--include-jpeg", "-o", directory.path,
            "--verbose",
        ])
        #expect(verbose.status == 1 && verbose.stderr.contains("Error: "))
    }

    @Test("inputs can come from --from-file alone; no inputs at all is a usage error")
    func inputSources() async throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let list = directory.appendingPathComponent("list.txt")
        try (Self.media("photos/zPug_3.heic") + "\n").write(to: list, atomically: true, encoding: .utf8)
        let outcome = try await CLIRunner.run(["heic-to-png", "--from-file", list.path, "-o", directory.path])
        #expect(outcome.status == 0, "\(outcome.stderr)")
        #expect(outcome.stdout == directory.appendingPathComponent("zPug_3.png").path + "\n")
        let none = try await CLIRunner.run(["gif"])
        #expect(none.status == 64 && none.stderr.contains("--from-file"))
    }

    @Test("--from-file /dev/zero fails at once as a usage error naming the list and what is wrong with it")
    func boundedList() async throws {
        let started = Date()
        let zero = try await CLIRunner.run(["heic-to-jpg", "--from-file", "/dev/zero", "--json"], timeout: 60)
        #expect(zero.status == 64)
        #expect(zero.stderr.contains("The list '/dev/zero' given to '--from-file' has a NUL byte on line 1"))
        #expect(zero.stdout.isEmpty)
        #expect(Date().timeIntervalSince(started) < 30)
        let folder = try await CLIRunner.run(["heic-to-jpg", "--from-file", NSTemporaryDirectory()])
        #expect(folder.status == 64 && folder.stderr.contains("is a folder"))
    }

    @Test("formats lists inputs, outputs and their options; capabilities lists encoders")
    func catalogue() async throws {
        let formats = try await CLIRunner.run(["formats"])
        #expect(formats.status == 0)
        for text in [
            "PHOTOS", "VIDEOS", "heic", "convert --to webp", "--lossless", "heic-to-jpg", "compress-photos --to webp",
            "--target-size", "images-to-pdf", "convert --to webm", "vp9|av1", "extract-audio --to flac", "--fps",
        ] {
            #expect(formats.stdout.contains(text), "\(text)")
        }
        let json = try await CLIRunner.run(["formats", "--json"])
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        let groups = try #require(object["groups"] as? [[String: Any]])
        #expect(groups.map { $0["kind"] as? String } == ["photo", "video"])

        let capabilities = try await CLIRunner.run(["capabilities", "--json"])
        #expect(capabilities.status == 0)
        let report = try #require(
            try JSONSerialization.jsonObject(with: Data(capabilities.stdout.utf8)) as? [String: Any])
        let encoders = try #require(report["encoders"] as? [[String: Any]])
        #expect(encoders.contains { $0["name"] as? String == "libx264" && $0["usable"] as? Bool == true })
        let photos = try #require(report["photoOutputs"] as? [String: Bool])
        #expect(photos["jpg"] == true && photos["png"] == true && photos["heic"] != nil && photos["avif"] != nil)
        #expect(try await CLIRunner.run(["capabilities"]).stdout.contains("HDR tone mapping: "))
    }

    @Test(
        "requests outside the catalogue are usage errors naming what is valid",
        arguments: [
            (["convert", "video/sample.mp4", "--to", "jpg"], "can become: convert --to mp4"),
            (["heic-to-jpg", "video/sample.mp4"], "is a video"),
            (["send-to-windows", "photos/tokyo.jpg"], "is a photo"),
            (["convert", "photos/tokyo.jpg", "--to", "png", "--crf", "20"], "Options for png: --max-size"),
            (["convert", "photos/tokyo.jpg", "--to", "jpg", "--lossless"], "'--lossless' does not apply"),
            (["convert", "video/sample.mp4", "--to", "mp4", "--quality", "80"], "Options for mp4: --codec"),
            (["convert", "photos/tokyo.jpg", "--to", "bmp"], "expected one of jpg, png, webp, heic, avif, jxl, mp4"),
            (["convert", "photos/tokyo.jpg", "--to", "webp", "--quality", "101"], "from 1 to 100"),
            (["convert", "video/sample.mp4", "--to", "webm", "--codec", "h264"], "expected one of vp9, av1"),
        ])
    func validation(_ arguments: [String], _ expected: String) async throws {
        let resolved = arguments.map { $0.contains("/") ? Self.media($0) : $0 }
        let outcome = try await CLIRunner.run(resolved)
        #expect(outcome.status == 64)
        #expect(outcome.stderr.contains(expected), "\(outcome.stderr)")
        #expect(outcome.stdout.isEmpty)
    }

    @Test("every message key has English text, and a translation file replaces it")
    func messages() async throws {
        for key in Messages.Key.allCases {
            #expect(Messages.english[key]?.isEmpty == false, "\(key.rawValue)")
        }
        #expect(Messages.text(.summaryDone, "3") == "3 done")
        #expect(Messages.text(.itemFailed, "{2}.jpg", "broken") == "{2}.jpg: broken")
        let table = Messages.parse(
            strings: """
                // A translation.
                "summary.done" = "{1} fertig";
                "error.input.missing" = "Fehlt: {path}";
                """)
        #expect(Messages.text(.summaryDone, "3", overrides: table) == "3 fertig")
        let error = ConvertError(code: .inputMissing, message: "Cannot read x.", path: "x.heic")
        #expect(Messages.error(error, overrides: table) == "Fehlt: x.heic")
        #expect(Messages.error(error, overrides: [:]) == "Cannot read x.")
        // The library's message names no option; the CLI adds its way out, translatable as hint.KEY.
        let over = ConvertError(code: .inputTooManyPixels, message: "x.png is over the limit.", path: "x.png")
        #expect(Messages.error(over, overrides: [:]) == "x.png is over the limit. Raise it with --max-pixels N.")
        #expect(
            Messages.error(over, overrides: ["hint.input.too-many-pixels": "Mit --max-pixels N erhöhen."])
                == "x.png is over the limit. Mit --max-pixels N erhöhen.")

        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("de.strings")
        try #"""
        "usage.unknown-command" = "Unbekannter Befehl '{1}'.";
        "error.input.missing" = "Fehlt: {path}";
        """#.write(to: file, atomically: true, encoding: .utf8)
        let outcome = try await CLIRunner.run(["heic-to-jgp"], environment: ["OFFCONVERT_MESSAGES": file.path])
        #expect(outcome.status == 64)
        #expect(outcome.stderr.contains("Unbekannter Befehl 'heic-to-jgp'."))
        let missing = directory.appendingPathComponent("nope.heic").path
        let translated = try await CLIRunner.run(
            ["heic-to-jpg", missing], environment: ["OFFCONVERT_MESSAGES": file.path])
        #expect(translated.stderr.contains("Fehlt: \(missing)"))
    }

    @Test("library notes get the CLI's advice per kind (as the CLI printed them before notes were typed), translatable")
    func noteAdvice() {
        let expected: [(JobNote, String)] = [
            (
                JobNote(.pagesLeftOut, "3 pages; the first kept", detail: .pagesLeftOut(pages: 3)),
                "3 pages; the first kept (--all-images writes each)"
            ),
            (JobNote(.gainMapRemoved, "gain map removed"), "gain map removed (--hdr sdr)"),
            (
                JobNote(
                    .gainMapMetadataRemoved,
                    "HDR not kept: the metadata that describes the gain map is removed with the rest"),
                "HDR not kept: --strip-metadata removes the metadata that describes the gain map"
            ),
            (
                JobNote(
                    .rawStreamTiming,
                    "video re-encoded to h264 (a raw stream has no timestamps: timed at 50 fps, as asked)",
                    detail: .rawStreamTiming(framesPerSecond: 50, source: .request)),
                "video re-encoded to h264 (a raw stream has no timestamps: timed at 50 fps, as --fps says)"
            ),
            (
                JobNote(
                    .rawStreamTiming,
                    "a raw stream has no timestamps and does not say its frame rate: timed at 29.97 fps",
                    detail: .rawStreamTiming(framesPerSecond: 29.97, source: .assumed)),
                "a raw stream has no timestamps and does not say its frame rate: timed at 29.97 fps; --fps sets another"
            ),
            (
                JobNote(
                    .audioTrackLeftOut, "audio track 2 (fra AAC mono) left out",
                    detail: .audioTrackLeftOut(
                        .init(position: 2, description: "fra AAC mono", canChoose: true, canKeepAll: false))),
                "audio track 2 (fra AAC mono) left out; --audio-track 2 keeps it"
            ),
            (
                JobNote(
                    .audioTrackLeftOut, "audio track 2 (AAC) left out",
                    detail: .audioTrackLeftOut(
                        .init(position: 2, description: "AAC", canChoose: false, canKeepAll: false))),
                "audio track 2 (AAC) left out"
            ),
            (JobNote(fact: "location removed"), "location removed"),
        ]
        for (note, text) in expected { #expect(Messages.note(note, overrides: [:]) == text) }
        let pages = expected[0].0
        #expect(
            Messages.note(
                pages,
                overrides: [
                    "note.image.pages-left-out": "{1} Seiten; die erste behalten",
                    "hint.note.image.pages-left-out": " (--all-images schreibt alle)",
                ])
                == "3 Seiten; die erste behalten (--all-images schreibt alle)")
        #expect(Messages.note(JobNote(fact: "location removed"), overrides: ["note.fact": "x"]) == "location removed")
    }

    @Test("offconvert alone prints the overview with the situations first and one example each")
    func overview() async throws {
        let outcome = try await CLIRunner.run([])
        #expect(outcome.status == 0)
        let names = Commands.all.map { $0.spec.name }
        #expect(names.prefix(3) == ["heic-to-jpg", "heic-to-png", "send-to-windows"])
        for command in Commands.all {
            #expect(outcome.stdout.contains(command.spec.name))
            if let example = command.spec.examples.first { #expect(outcome.stdout.contains("offconvert \(example)")) }
        }
    }
}
