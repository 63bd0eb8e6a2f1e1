import Foundation
import Testing

/// Issue #54's sweep: every photo and clip in TestMedia (committed and generated) that `info`
/// says records a location goes through a default conversion (`convert --to jpg` for a still,
/// `send-to-windows` for a clip) and through `strip-location`. exiftool, reading every group and
/// embedded document, must find no GPS or location tag in either output. A file refused (a
/// damaged picture whose location cannot be checked) must have written nothing.
@Suite("privacy: every located file in TestMedia (exiftool oracle)")
struct LocationSweepTests {
    static let extensions: Set<String> = ["jpg", "jpeg", "heic", "heif", "hif", "avif", "png", "webp", "mp4", "mov"]

    /// The committed photos and clips, and the generated files beside them (not their damaged
    /// corpora in subfolders).
    static let files: [String] = {
        let media = CLIRunner.media
        var found: [String] = []
        for folder in ["photos", "video"] {
            let root = media.appendingPathComponent(folder)
            let walker = FileManager.default.enumerator(atPath: root.path)
            while let name = walker?.nextObject() as? String {
                if extensions.contains((name as NSString).pathExtension.lowercased()) {
                    found.append(root.appendingPathComponent(name).path)
                }
            }
        }
        let generated = media.appendingPathComponent("generated")
        for name in (try? FileManager.default.contentsOfDirectory(atPath: generated.path)) ?? []
        where extensions.contains((name as NSString).pathExtension.lowercased()) {
            found.append(generated.appendingPathComponent(name).path)
        }
        return found.sorted()
    }()

    /// `info --json`'s object for `path`, nil when it describes nothing.
    static func info(_ path: String) async throws -> [String: Any]? {
        let outcome = try await CLIRunner.run(["info", "--json", path])
        guard let line = outcome.stdout.split(separator: "\n").last else { return nil }
        return try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
    }

    static func isLocated(_ info: [String: Any]) -> Bool {
        (info["location"] as? [String: Any])?["present"] as? Bool == true
    }

    @Test("the sweep covers the located files the privacy suites name, and more")
    func coverage() async throws {
        var located = 0
        for path in Self.files where try await Self.info(path).map(Self.isLocated) == true { located += 1 }
        #expect(Self.files.count > 80, "\(Self.files.count) files")
        #expect(located >= 30, "\(located) located files")
    }

    @Test(
        "a default conversion and strip-location leave no location tag exiftool can find",
        .enabled(if: PrivacyCommandsTests.haveExiftool), arguments: files)
    func noLocationLeft(_ path: String) async throws {
        guard let info = try await Self.info(path), Self.isLocated(info) else { return }
        let clip = info["container"] != nil && info["image"] == nil
        let folder = try NoNetworkTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let conversion = clip ? ["send-to-windows"] : ["convert", "--to", "jpg"]
        for command in [conversion, ["strip-location"]] {
            let out = folder.appendingPathComponent(command[0])
            let outcome = try await CLIRunner.run(command + [path, "-o", out.path])
            let written = (try? PrivacyCommandsTests.outputs(in: out)) ?? []
            if written.isEmpty {
                // Refused, said so, and nothing left behind: only a damaged file (its location
                // cannot be checked whole), or telemetry strip-location cannot edit, may be.
                let location = info["location"] as? [String: Any] ?? [:]
                let damaged = info["imageError"] != nil || location["incomplete"] as? Bool == true
                let unreadable = (location["sources"] as? [String] ?? []).contains("unread-telemetry")
                #expect(outcome.status != 0, "\(command[0]) \(path) wrote nothing yet exited 0: \(outcome.stderr)")
                #expect(
                    damaged || (command[0] == "strip-location" && unreadable),
                    "\(command[0]) refused a located file it should handle: \(path): \(outcome.stderr)")
                continue
            }
            #expect(outcome.status == 0, "\(command[0]) \(path): \(outcome.stderr)")
            for output in written {
                let lines = try await PrivacyCommandsTests.locationLines(output)
                #expect(lines.isEmpty, "\(command[0]) \(path) → \(output): \(lines)")
            }
        }
    }
}
