import Foundation
import Testing

@testable import OffconvertCLI

/// Every example in the README and in every command's `--help`, run exactly as written by a
/// shell (so `*.HEIC` and `~/Attach` expand as they do for a user) in a fresh working directory
/// holding bundled media under the example's own file names. When an example changes, this
/// test runs the new one; an example that cannot run here must be listed in ``notRunnable``
/// with the reason.
@Suite("Examples from the README and --help, run as written")
struct ExamplesTests {
    /// An example and where it was written.
    struct Example: CustomTestStringConvertible, Sendable {
        var command: String
        var source: String
        var testDescription: String { "\(source): offconvert \(command)" }
    }

    /// README mentions of a command that are syntax or a name, not something to type as is.
    static let notExamples: Set<String> = [
        "info", "info --json", "strip-location", "help COMMAND", "info FILE... [--json]", "allowance [--json]",
        "unlock LICENSE-FILE",
    ]

    /// Examples that run as written but cannot succeed on a machine without the vendor's key.
    static let notRunnable: [String: String] = [
        "unlock ~/Downloads/offconvert.license":
            "needs a licence signed with the vendor's private key; run here, it must be refused as not signed"
    ]

    /// Bundled media standing in for a file an example names, by extension (lowercased).
    static let standIns: [String: [String]] = [
        "heic": ["photos/IMG_5195.HEIC", "photos/pug.heic"],
        "jpg": ["photos/tokyo.jpg", "photos/DSCN0010.jpg"],
        "png": ["generated/gps-exif-xmp.png", "generated/stress-tiny.png"],
        "mov": ["generated/iphone-like.mov", "generated/location-keys.mov"],
        "mp4": ["video/motion.mov", "video/bikes.mp4"],
        "mkv": ["generated/sdr-h264.mkv"],
        "flac": ["generated/song-cover.flac"],
        // A Pixel motion photo's `PXL_….MP.jpg`: motion photos, not any JPEG.
        "mp.jpg": ["generated/motion-google.MP.jpg", "generated/motion-samsung.jpg"],
    ]

    /// Every example: each command's `--help` examples, and the `offconvert …` code spans of the README.
    static let examples: [Example] = {
        var examples: [Example] = []
        for command in Commands.all {
            examples += command.spec.examples.map { Example(command: $0, source: "\(command.spec.name) --help") }
        }
        let readme =
            (try? String(contentsOf: CLIRunner.root.appendingPathComponent("README.md"), encoding: .utf8)) ?? ""
        var seen = Set(examples.map(\.command))
        for span in readme.split(separator: "`", omittingEmptySubsequences: false).enumerated()
        where span.offset % 2 == 1 {
            guard span.element.hasPrefix("offconvert ") else { continue }
            let command = String(span.element.dropFirst("offconvert ".count))
            guard !notExamples.contains(command), seen.insert(command).inserted else { continue }
            examples.append(Example(command: command, source: "README"))
        }
        return examples
    }()

    @Test("the README and --help have examples of every command")
    func coverage() {
        let named = Set(Self.examples.map { String($0.command.split(separator: " ").first ?? "") })
        #expect(Set(Commands.all.map { $0.spec.name }).isSubset(of: named))
        #expect(Self.examples.contains { $0.source == "README" })
    }

    @Test("runs as written and does what it says", arguments: examples)
    func example(_ example: Example) async throws {
        let folder = try UserFolder()
        defer { folder.remove() }
        try Self.prepare(folder, for: example.command)
        let before = Set(folder.files())
        let outcome = try await CLIRunner.run(
            ["-c", "offconvert " + example.command], environment: Self.environment(folder),
            executable: URL(fileURLWithPath: "/bin/bash"), directory: folder.url)
        if Self.notRunnable[example.command] != nil {
            #expect(outcome.status == 1, "\(outcome.stderr)")
            #expect(outcome.stderr.contains("licence") || outcome.stderr.contains("license"), "\(outcome.stderr)")
            return
        }
        #expect(outcome.status == 0, "exit \(outcome.status): \(outcome.stderr)")
        let made = Set(folder.files()).subtracting(before)
        let name = example.command.split(separator: " ").first.map(String.init) ?? ""
        if ["formats", "capabilities", "allowance", "info", "help"].contains(name) {
            #expect(!outcome.stdout.isEmpty)
        } else if example.command.contains("--dry-run") {
            #expect(made.isEmpty, "a dry run wrote \(made)")
            #expect(!outcome.stdout.isEmpty)
        } else if example.command.contains("--in-place") {
            #expect(outcome.stderr.contains("location removed"), "\(outcome.stderr)")
        } else {
            #expect(!made.isEmpty, "wrote nothing: \(outcome.stdout) \(outcome.stderr)")
            #expect(!made.contains { $0.contains(".partial") })
        }
    }

    /// `PATH` finds the built `offconvert`; `HOME` is the folder, so `~/Attach` stays inside it.
    private static func environment(_ folder: UserFolder) -> [String: String] {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        return ["PATH": CLIRunner.executable.deletingLastPathComponent().path + ":" + path, "HOME": folder.url.path]
    }

    /// Puts bundled media under every file name the example mentions: `*.HEIC` gets two photos,
    /// `clip.mov` a clip, `~/Downloads/offconvert.license` a licence-shaped file.
    private static func prepare(_ folder: UserFolder, for command: String) throws {
        let tokens = command.split(separator: " ").map(String.init)
        if let flag = tokens.firstIndex(of: "--from-file"), flag + 1 < tokens.count {
            // A list of two files of the command's kind, with a comment as people write them.
            let photos = ["heic-to-jpg", "heic-to-png", "compress-photos", "images-to-pdf", "convert"].contains(
                tokens[0])
            let ext = photos ? "jpg" : "mov"
            try folder.write("# to do\nlisted1.\(ext)\nlisted2.\(ext)\n", to: tokens[flag + 1])
            for (index, source) in (standIns[ext] ?? []).enumerated() {
                try folder.add(source, as: "listed\(index + 1).\(ext)")
            }
        }
        if tokens.first == "watch", tokens.count > 1, !tokens[1].hasPrefix("-") {
            // The watched folder, with a phone photo already in it (`--once` converts it and exits).
            try folder.add("photos/IMG_5195.HEIC", as: tokens[1] + "/IMG_0001.HEIC")
        }
        if tokens.contains("*") {
            // `*` in a phone's export folder: a photo, its video and its edit sidecar.
            try folder.add("photos/IMG_5195.HEIC", as: "IMG_0001.HEIC")
            try folder.add("generated/iphone-like.mov", as: "IMG_0001.MOV")
            try folder.write("<?xml version=\"1.0\"?><plist/>", to: "IMG_0001.AAE")
        }
        for token in tokens where !token.hasPrefix("-") {
            var name = token
            if name.hasPrefix("~/") { name.removeFirst(2) }
            let ext = PathExtension.of(name)
            if name.hasSuffix(".license") {
                try FileManager.default.createDirectory(
                    at: folder.url.appendingPathComponent(name).deletingLastPathComponent(),
                    withIntermediateDirectories: true)
                try folder.write("offconvert license 1\nlicensee: Example\nsignature: AAAA\n", to: name)
                continue
            }
            var media = standIns[ext.lowercased()] ?? []
            // A Live Photo example needs a pair: the MOV carrying the HEIC stand-in's identifier,
            // beside each photo even when the example names the photo alone.
            let live = tokens.first == "live-photo" || tokens.contains("--live")
            if live && ext.lowercased() == "mov" { media = ["generated/live/IMG_5195.MOV"] }
            let movie = String(name.dropLast(ext.count)) + "MOV"
            if live && ext.lowercased() == "heic" && !name.hasPrefix("*.") && !tokens.contains(movie) {
                try folder.add("generated/live/IMG_5195.MOV", as: movie)
            }
            guard !media.isEmpty else { continue }
            if name.hasPrefix("*.") {
                for (index, source) in media.enumerated() { try folder.add(source, as: "IMG_000\(index + 1).\(ext)") }
            } else {
                try folder.add(media[0], as: name)
            }
        }
    }
}

/// The extension of a file name as an example writes it.
private enum PathExtension {
    static func of(_ name: String) -> String {
        if name.lowercased().hasSuffix(".mp.jpg") { return String(name.suffix(6)) }
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return "" }
        return String(name[name.index(after: dot)...])
    }
}
