import Foundation
import Testing

@Suite("Photo commands", .serialized)
struct PhotoCommandsTests {
    static func temporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent(
            "offconvert-cli-photos-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    static func photo(_ name: String) -> String { CLIRunner.media.appendingPathComponent("photos/\(name)").path }

    static func jsonLines(_ text: String) throws -> [[String: Any]] {
        try text.split(separator: "\n").map { line in
            try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        }
    }

    /// The `finished` and `failed` lines of a batch: one per item.
    static func outcomes(_ text: String) throws -> [[String: Any]] {
        try jsonLines(text).filter { ["finished", "failed"].contains($0["event"] as? String) && $0["input"] != nil }
    }

    @Test("heic-to-jpg converts a batch, prints where each output went, exits 0")
    func heicToJpg() async throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let inputs = ["IMG_5195.HEIC", "sample_still_photo.heic", "zPug_3.heic"].map(Self.photo)
        let outcome = try await CLIRunner.run(["heic-to-jpg"] + inputs + ["--output-dir", directory.path])
        #expect(outcome.status == 0, "\(outcome.stderr)")
        for name in ["IMG_5195.jpg", "sample_still_photo.jpg", "zPug_3.jpg"] {
            #expect(outcome.stdout.contains(directory.appendingPathComponent(name).path))
            #expect(FileManager.default.fileExists(atPath: directory.appendingPathComponent(name).path))
        }
        #expect(outcome.stderr.contains("location removed"))
    }

    @Test(
        "--json prints one object per file, each with its input's index; a failure exits 1 without stopping the batch")
    func jsonAndFailures() async throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let broken = CLIRunner.media.appendingPathComponent("generated/broken-no-picture.jpg").path
        let inputs = [Self.photo("zPug_3.heic"), broken, Self.photo("orientation/Landscape_3.jpg")]
        let outcome = try await CLIRunner.run(
            ["convert"] + inputs + ["--to", "png", "--output-dir", directory.path, "--json"])
        #expect(outcome.status == 1)
        // Each file is reported when it finishes; its index says which input it was.
        let lines = try Self.outcomes(outcome.stdout).sorted {
            ($0["index"] as? Int ?? -1) < ($1["index"] as? Int ?? -1)
        }
        try #require(lines.count == 3)
        #expect(lines.map { $0["input"] as? String } == inputs)
        #expect(lines.map { $0["index"] as? Int } == [0, 1, 2])
        #expect(lines.map { $0["event"] as? String } == ["finished", "failed", "finished"])
        #expect(try Self.jsonLines(outcome.stdout).last?["event"] as? String == "summary")
        let error = try #require(lines[1]["error"] as? [String: Any])
        #expect(error["category"] as? String == "input")
        #expect((error["key"] as? String)?.hasPrefix("input.") == true)
        #expect((lines[0]["bytes"] as? Int ?? 0) > 0)
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
        #expect(names == ["Landscape_3.png", "zPug_3.png"])
    }

    @Test(
        "--keep-location keeps GPS, the default removes it (checked with exiftool)",
        .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/exiftool")))
    func location() async throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let input = Self.photo("DSCN0010.jpg")
        let plain = try await CLIRunner.run(["convert", input, "--to", "jpg", "--output-dir", directory.path, "--json"])
        let kept = try await CLIRunner.run([
            "convert", input, "--to", "jpg", "--output-dir", directory.path, "--keep-location", "--json",
        ])
        #expect(plain.status == 0 && kept.status == 0)
        let plainPath = try #require(try Self.outcomes(plain.stdout).first?["output"] as? String)
        let keptPath = try #require(try Self.outcomes(kept.stdout).first?["output"] as? String)
        #expect(keptPath.hasSuffix("DSCN0010 (2).jpg"))
        func gps(_ path: String) throws -> String { try CLIRunner.toolOutput("/usr/bin/exiftool", ["-gps:all", path]) }
        #expect(try !gps(plainPath).contains("GPS Latitude"))
        #expect(try gps(keptPath).contains("GPS Latitude"))
    }

    @Test(
        "command-line mistakes are usage errors (exit 64)",
        arguments: [
            ["convert", "x.heic"],
            ["convert", "x.heic", "--to", "bmp"],
            ["heic-to-jpg", "x.heic", "--keep-metadata", "--strip-metadata"],
            ["heic-to-jpg", "x.heic", "--quality", "0"],
            ["compress-photos", "x.jpg", "--target-size", "500KB", "--quality", "80"],
            ["heic-to-jpg", "x.heic", "--background", "mauve"],
            ["images-to-pdf", "x.jpg", "-o", "a.pdf", "--margin", "wide"],
            ["images-to-pdf", "x.jpg", "-o", "a.pdf", "--max-size", "4"],
        ])
    func usage(arguments: [String]) async throws {
        let outcome = try await CLIRunner.run(arguments)
        #expect(outcome.status == 64)
        #expect(outcome.stderr.contains("Error:"))
    }

    @Test("compress-photos --target-size keeps every file at or under the size")
    func compress() async throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let outcome = try await CLIRunner.run([
            "compress-photos", Self.photo("tokyo.jpg"), Self.photo("IMG_5195.HEIC"), "--target-size", "250KB",
            "--output-dir", directory.path, "--json",
        ])
        #expect(outcome.status == 0, "\(outcome.stderr)")
        let lines = try Self.outcomes(outcome.stdout)
        #expect(lines.count == 2)
        for line in lines {
            let bytes = try #require(line["bytes"] as? Int)
            #expect(bytes <= 250_000 && bytes > 150_000)
        }
    }

    @Test("images-to-pdf writes the album and prints where it went; -o is required")
    func imagesToPdf() async throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let pdf = directory.appendingPathComponent("album.pdf").path
        let outcome = try await CLIRunner.run([
            "images-to-pdf", Self.photo("tokyo.jpg"), Self.photo("zPug_3.heic"), "-o", pdf, "--page", "letter",
            "--margin", "10mm",
        ])
        #expect(outcome.status == 0, "\(outcome.stderr)")
        #expect(outcome.stdout.contains(pdf))
        let head = try #require(FileManager.default.contents(atPath: pdf)).prefix(8)
        #expect(String(decoding: head, as: UTF8.self) == "%PDF-1.4")
        let small = directory.appendingPathComponent("small.pdf").path
        let shrunk = try await CLIRunner.run([
            "images-to-pdf", Self.photo("tokyo.jpg"), "-o", small, "--max-size", "400",
        ])
        #expect(shrunk.status == 0, "\(shrunk.stderr)")
        let sizes = [pdf, small].map { (try? FileManager.default.attributesOfItem(atPath: $0)[.size] as? Int) ?? 0 }
        #expect(sizes[1] > 0 && sizes[1] < sizes[0], "\(sizes)")
        let again = try await CLIRunner.run(["images-to-pdf", Self.photo("tokyo.jpg"), "-o", pdf])
        #expect(again.status == 1)
        #expect(again.stderr.contains("already exists"))
        #expect(try await CLIRunner.run(["images-to-pdf", Self.photo("tokyo.jpg")]).status == 64)
    }

    @Test("a missing file is reported and the exit code is 1")
    func missing() async throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let outcome = try await CLIRunner.run(["heic-to-jpg", directory.appendingPathComponent("nope.heic").path])
        #expect(outcome.status == 1)
        #expect(outcome.stderr.contains("nope.heic does not exist"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty)
    }
}
