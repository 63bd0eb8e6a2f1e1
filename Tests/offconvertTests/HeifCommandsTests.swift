import Foundation
import Testing

/// The photo commands on an iOS 18 iPhone HEIC (a `tmap` gain-map item, metadata linked to it),
/// which libheif 1.15 refuses as damaged: offconvert reads it with its own HEIF reader.
@Suite("Photo commands on iOS 18 HEICs")
struct HeifCommandsTests {
    static let photo = CLIRunner.media.appendingPathComponent("photos/IMG_3853.HEIC").path
    static let variant = CLIRunner.media.appendingPathComponent("generated/heif-ios18/all.heic").path

    static func temporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent(
            "offconvert-heif-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// exiftool's `-s -s -s` value of `tag` in `path`.
    static func tag(_ tag: String, _ path: String) throws -> String {
        try CLIRunner.toolOutput("/usr/bin/exiftool", ["-s", "-s", "-s", "-\(tag)", path]).trimmingCharacters(
            in: .whitespacesAndNewlines)
    }

    @Test(
        "heic-to-jpg, heic-to-png and compress-photos convert it upright with its profile",
        arguments: [
            ["heic-to-jpg"], ["heic-to-png"], ["compress-photos", "--target-size", "1MB"], ["convert", "--to", "webp"],
        ])
    func converts(command: [String]) async throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let outcome = try await CLIRunner.run(command + [Self.photo, "--output-dir", directory.path])
        #expect(outcome.status == 0, "\(outcome.stderr)")
        let outputs = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { !$0.hasPrefix(".") }
        let output = directory.appendingPathComponent(try #require(outputs.first)).path
        let size = try Self.tag("ImageSize", output)
        #expect(size == "5712x4284" || command[0] == "compress-photos", "\(size)")
        if command[0] != "convert" {
            #expect(try Self.tag("ProfileDescription", output) == "Display P3")
        }
        if command[0] == "compress-photos" {
            let bytes = try #require(try FileManager.default.attributesOfItem(atPath: output)[.size] as? Int)
            #expect(bytes <= 1_000_000)
        }
    }

    @Test("convert --to heic and avif write the generated iOS 18 layout upright", arguments: ["heic", "avif"])
    func heifOutputs(format: String) async throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let outcome = try await CLIRunner.run(["convert", "--to", format, Self.variant, "--output-dir", directory.path])
        #expect(outcome.status == 0, "\(outcome.stderr)")
        let output = directory.appendingPathComponent("all.\(format)").path
        #expect(try Self.tag("ImageSize", output) == "236x300")
    }

    @Test("info describes it")
    func info() async throws {
        let outcome = try await CLIRunner.run(["info", Self.photo])
        #expect(outcome.status == 0, "\(outcome.stderr)")
        #expect(outcome.stdout.contains("5712x4284"))
        #expect(outcome.stdout.contains("Display P3"))
        #expect(outcome.stdout.contains("HDR gain map (Apple)"))
        #expect(outcome.stdout.contains("iPhone 15 Plus"))
    }
}
