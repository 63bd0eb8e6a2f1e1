import Foundation
import Testing

/// `offconvert` runs photo commands on ConvertCore alone and becomes `offconvert-media` (exec)
/// for the commands that need FFmpeg.
@Suite("Photo engine without FFmpeg, video engine by hand-off")
struct EngineHandoffTests {
    static let mediaExecutable = CLIRunner.executable.deletingLastPathComponent().appendingPathComponent("offconvert-media")

    /// The shared libraries an executable loads, as the dynamic loader resolves them.
    static func libraries(of executable: URL) throws -> String {
        try CLIRunner.toolOutput("/usr/bin/ldd", [executable.path])
    }

    @Test("offconvert links no FFmpeg library but libswscale; offconvert-media links them all")
    func linkage() throws {
        let photo = try Self.libraries(of: CLIRunner.executable)
        for library in ["libavformat", "libavcodec", "libavfilter", "libswresample"] {
            #expect(!photo.contains(library), "offconvert loads \(library)")
        }
        #expect(photo.contains("libheif") && photo.contains("libde265") && photo.contains("libswscale"))
        let media = try Self.libraries(of: Self.mediaExecutable)
        for library in ["libavformat", "libavcodec", "libavfilter", "libswresample", "libheif"] {
            #expect(media.contains(library), "offconvert-media lacks \(library)")
        }
    }

    @Test("commands that need FFmpeg run through offconvert-media with the same output and exit code")
    func handOff() async throws {
        let clip = CLIRunner.media.appendingPathComponent("video/motion.mov").path
        for arguments in [["info", clip], ["info", "--json", clip], ["capabilities"], ["info", "/nonexistent/x.mov"], ["formats"]] {
            let viaPhoto = try await CLIRunner.run(arguments)
            let direct = try await CLIRunner.run(arguments, executable: Self.mediaExecutable)
            #expect(viaPhoto.status == direct.status, "\(arguments)")
            #expect(viaPhoto.stdout == direct.stdout, "\(arguments)")
            #expect(viaPhoto.stderr == direct.stderr, "\(arguments)")
        }
    }

    @Test("without offconvert-media beside it, a video command fails clearly and a photo command still works")
    func missingEngine() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("offconvert-lone-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let lone = folder.appendingPathComponent("offconvert")
        try FileManager.default.copyItem(at: CLIRunner.executable, to: lone)

        let video = try await CLIRunner.run(["info", CLIRunner.media.appendingPathComponent("video/motion.mov").path], executable: lone)
        #expect(video.status == 1)
        #expect(video.stderr.contains("offconvert-media") && video.stderr.contains("Reinstall"))
        #expect(video.stdout.isEmpty)

        let photo = try await CLIRunner.run(
            ["heic-to-jpg", CLIRunner.media.appendingPathComponent("photos/sample_still_photo.heic").path,
             "--output-dir", folder.path, "--quiet"],
            executable: lone)
        #expect(photo.status == 0, "\(photo.stderr)")
        #expect(FileManager.default.fileExists(atPath: folder.appendingPathComponent("sample_still_photo.jpg").path))
    }
}
