import Foundation
import Testing

@testable import OffconvertCLI

/// The `offconvert` launcher becomes `offconvert-photo` (ConvertCore alone) or `offconvert-media`
/// (with FFmpeg) for each command, and `offconvert-photo` becomes `offconvert-media` for a command
/// that turns out to need FFmpeg.
@Suite("Photo engine without FFmpeg, video engine by hand-off")
struct EngineHandoffTests {
    static let folder = CLIRunner.executable.deletingLastPathComponent()
    static let photoExecutable = folder.appendingPathComponent("offconvert-photo")
    static let mediaExecutable = folder.appendingPathComponent("offconvert-media")

    /// The shared libraries an executable loads, as the dynamic loader resolves them.
    static func libraries(of executable: URL) throws -> String {
        try CLIRunner.toolOutput("/usr/bin/ldd", [executable.path])
    }

    @Test(
        "the launcher links no codec, offconvert-photo no FFmpeg library and neither libjxl nor libswscale, offconvert-media them all but libavfilter"
    )
    func linkage() throws {
        let launcher = try Self.libraries(of: CLIRunner.executable)
        for library in ["libheif", "libavutil", "libFoundation", "libturbojpeg"] {
            #expect(!launcher.contains(library), "the launcher loads \(library)")
        }
        let photo = try Self.libraries(of: Self.photoExecutable)
        // libjxl (with libhwy) and libswscale (with libavutil) are opened when a conversion needs
        // them: loaded at start they cost every photo command about 8 ms.
        for library in [
            "libavformat", "libavcodec", "libavfilter", "libswresample", "libswscale", "libavutil", "libjxl", "libhwy",
        ] {
            #expect(!photo.contains(library), "offconvert-photo loads \(library)")
        }
        #expect(photo.contains("libheif") && photo.contains("libde265") && photo.contains("libturbojpeg"))
        let media = try Self.libraries(of: Self.mediaExecutable)
        for library in ["libavformat", "libavcodec", "libswresample", "libheif"] {
            #expect(media.contains(library), "offconvert-media lacks \(library)")
        }
        // libavfilter (with libplacebo, pocketsphinx, flite and ~40 more) is opened by the first
        // filter graph: loaded at start it cost every video command about 30 ms, a stream copy too.
        #expect(!media.contains("libavfilter"), "offconvert-media loads libavfilter at start")
    }

    @Test("a command gives the same output and exit code through the launcher and through either engine")
    func handOff() async throws {
        let clip = CLIRunner.media.appendingPathComponent("video/motion.mov").path
        for arguments in [
            ["info", clip], ["info", "--json", clip], ["capabilities"], ["info", "/nonexistent/x.mov"], ["formats"],
            ["--version"],
        ] {
            let launched = try await CLIRunner.run(arguments)
            for engine in [Self.photoExecutable, Self.mediaExecutable] {
                let direct = try await CLIRunner.run(arguments, executable: engine)
                #expect(launched.status == direct.status, "\(arguments)")
                #expect(launched.stdout == direct.stdout, "\(arguments)")
                #expect(launched.stderr == direct.stderr, "\(arguments)")
            }
        }
    }

    /// The launcher's list is an optimisation (a command it sends to offconvert-photo still
    /// reaches the video engine), but one that must not drift from the commands' own flags.
    @Test("the launcher sends exactly the commands that always need FFmpeg to offconvert-media")
    func launcherList() throws {
        let source = try String(
            contentsOf: CLIRunner.root.appendingPathComponent("Sources/offconvert/main.c"), encoding: .utf8)
        let start = try #require(source.range(of: "media_commands[] = {"))
        let end = try #require(source.range(of: "};", range: start.upperBound..<source.endIndex))
        let listed = source[start.upperBound..<end.lowerBound].split(separator: "\"").enumerated()
            .filter { $0.offset % 2 == 1 }.map { String($0.element) }
        let flagged = MediaWork.allCases.filter(\.alwaysNeedsEngine).map(\.commandName)
        #expect(listed.sorted() == flagged.sorted())
        #expect(flagged.contains("info") && flagged.contains("send-to-windows") && !flagged.contains("convert"))
        // Every command that always needs the engine is a MediaCommand with its own case, and the
        // other cases belong to commands that exist.
        let media = Commands.all.compactMap { $0 as? any MediaCommand.Type }
        #expect(media.map { $0.work.commandName }.sorted() == flagged.sorted())
        #expect(media.allSatisfy { $0.work.commandName == $0.spec.name })
        let names = Set(Commands.all.map { $0.spec.name })
        #expect(MediaWork.allCases.allSatisfy { names.contains($0.commandName) })
    }

    /// The same list as the launcher was compiled with: the built `offconvert` is run beside two
    /// stand-in engines that print their own name, for every command of the catalogue, so a list
    /// the test above misreads (a name commented out, a second array) still cannot pass.
    @Test(
        "the built launcher starts offconvert-media for exactly the commands that always need it, offconvert-photo for the rest"
    )
    func launcherChoice() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "offconvert-engines-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let launcher = folder.appendingPathComponent("offconvert")
        try FileManager.default.copyItem(at: CLIRunner.executable, to: launcher)
        for engine in ["offconvert-photo", "offconvert-media"] {
            let stand = folder.appendingPathComponent(engine)
            try Data("#!/bin/sh\necho \(engine) \"$@\"\n".utf8).write(to: stand)
            try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: stand.path)
        }
        let media = Set(MediaWork.allCases.filter(\.alwaysNeedsEngine).map(\.commandName))
        #expect(media.count >= 9)
        for name in Commands.all.map({ $0.spec.name }) + ["--version", "--help", "no-such-command"] {
            let run = try await CLIRunner.run([name, "x"], executable: launcher)
            let engine = media.contains(name) ? "offconvert-media" : "offconvert-photo"
            #expect(run.status == 0 && run.stdout == "\(engine) \(name) x\n", "\(name): \(run.stdout) \(run.stderr)")
        }
    }

    @Test("without offconvert-media beside them, video commands fail clearly and a photo command still works")
    func missingEngine() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "offconvert-lone-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let lone = folder.appendingPathComponent("offconvert")
        try FileManager.default.copyItem(at: CLIRunner.executable, to: lone)
        try FileManager.default.copyItem(
            at: Self.photoExecutable, to: folder.appendingPathComponent("offconvert-photo"))

        let clip = CLIRunner.media.appendingPathComponent("video/motion.mov").path
        // `info` is sent to the missing engine by the launcher, `convert --to mp4` by offconvert-photo.
        for arguments in [["info", clip], ["convert", clip, "--to", "mp4", "-o", folder.path]] {
            let video = try await CLIRunner.run(arguments, executable: lone)
            #expect(video.status == 1, "\(arguments)")
            #expect(video.stderr.contains("offconvert-media") && video.stderr.contains("Reinstall"), "\(video.stderr)")
            // A photo-only install of the Debian packages lacks the engine by design: name its package.
            #expect(video.stderr.contains("install offconvert-video"), "\(video.stderr)")
            #expect(video.stdout.isEmpty)
        }

        let photo = try await CLIRunner.run(
            [
                "heic-to-jpg", CLIRunner.media.appendingPathComponent("photos/sample_still_photo.heic").path,
                "--output-dir", folder.path, "--quiet",
            ],
            executable: lone)
        #expect(photo.status == 0, "\(photo.stderr)")
        #expect(FileManager.default.fileExists(atPath: folder.appendingPathComponent("sample_still_photo.jpg").path))
    }
}
