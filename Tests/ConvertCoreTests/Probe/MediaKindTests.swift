import ConvertMedia
import Foundation
import Testing

/// `MediaProbe.kind(path:)` says what a file is, from its content: a photo, a movie or sound
/// file, or (with the probe's own codes) neither.
@Suite("Media kind")
struct MediaKindTests {
    @Test(
        "photos are .photo, whatever their name",
        arguments: [
            "photos/tokyo.jpg", "photos/pug.heic", "generated/stress-tiny.png",
        ])
    func photos(relative: String) throws {
        #expect(try MediaProbe.kind(path: Fixtures.path(relative)) == .photo)
    }

    @Test(
        "movies and sound are .video, including formats only FFmpeg's probes know",
        arguments: [
            "video/bikes.mp4", "video/regular.mkv", "video/roadtrip-vp92-10bit.webm", "generated/sdr-h264.ts",
            "generated/sdr-mpeg4.avi", "generated/fidelity-raw.h264", "generated/song-cover.mp3",
            "generated/song-cover.flac", "generated/tone-1s.wav", "generated/voice-8k.m4a",
        ])
    func media(relative: String) throws {
        #expect(try MediaProbe.kind(path: Fixtures.path(relative)) == .video)
    }

    @Test("an empty file, a folder, a missing file: the probe's codes, never .video")
    func unreadable() throws {
        let folder = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let empty = folder.appendingPathComponent("empty.mp4").path
        try Data().write(to: URL(fileURLWithPath: empty))
        expectConvertError(.inputEmpty) { try MediaProbe.kind(path: empty) }
        expectConvertError(.inputNotAFile) { try MediaProbe.kind(path: folder.path) }
        expectConvertError(.inputMissing) { try MediaProbe.kind(path: folder.appendingPathComponent("gone.mov").path) }
    }

    @Test(
        "random bytes and text are input.unrecognised, whatever their name",
        arguments: ["random.mp4", "random.jpg", "random.bin", "notes.txt"])
    func unrecognised(name: String) throws {
        let folder = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent(name).path
        let bytes: [UInt8] =
            name.hasSuffix(".txt")
            ? Array(String(repeating: "This is a text file, not media.\n", count: 100).utf8)
            : (0..<65536).map { UInt8(truncatingIfNeeded: $0 &* 2_654_435_761 >> 7) }
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        expectConvertError(.inputUnrecognised) { try MediaProbe.kind(path: path) }
    }

    /// Still images FFmpeg would open as a one-frame video, as ImageMagick writes them: the photo
    /// engine reads all but the PCX.
    static let foreignStills = ["icon.ico", "cursor.cur", "layers.psd", "scan.pnm", "art.jp2", "old.pcx"]

    /// Makes `name` in `folder`: a 48x48 picture in the format its extension names.
    private func makeStill(_ name: String, in folder: URL) throws -> String {
        let path = folder.appendingPathComponent(name).path
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        // ImageMagick by its real name (Scripts/install-deps --test installs it): a bare
        // `convert` may be another program, or missing where only the versioned name is.
        process.arguments = ["convert-im6.q16", "-size", "48x48", "gradient:red-blue", path]
        try process.run()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "convert \(name)")
        return path
    }

    @Test(
        "a still image offconvert does not read is unsupported.image-format, one it reads a .photo, never .video",
        arguments: foreignStills)
    func foreignStill(name: String) throws {
        let folder = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = try makeStill(name, in: folder)
        guard name.hasSuffix(".pcx") else {
            #expect(try MediaProbe.kind(path: path) == .photo)
            return
        }
        let error = expectConvertError(.unsupportedImageFormat) { try MediaProbe.kind(path: path) }
        #expect(error?.message.contains("which offconvert does not read") == true, "\(error?.message ?? "")")
    }

    @Test("a TGA without the 2.0 footer (as ImageMagick writes it) is a photo by its name and header, never an MP4")
    func bareTGA() async throws {
        let folder = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = try makeStill("shot.tga", in: folder)
        #expect(try MediaProbe.kind(path: path) == .photo)
        // The same bytes under another name have no signature.
        let renamed = folder.appendingPathComponent("shot.bin").path
        try FileManager.default.copyItem(atPath: path, toPath: renamed)
        #expect(throws: ConvertError.self) { try MediaProbe.kind(path: renamed) }
        let out = folder.appendingPathComponent("out")
        try FileManager.default.createDirectory(at: out, withIntermediateDirectories: true)
        await #expect(throws: ConvertError.self) {
            try await VideoConverter.convert(VideoRequest(input: path, output: OutputLocation(directory: out.path)))
                .result()
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: out.path).isEmpty)
    }

    @Test("the video engine refuses such a still with unsupported.image-format and writes nothing")
    func foreignStillToVideo() async throws {
        let folder = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let out = folder.appendingPathComponent("out")
        try FileManager.default.createDirectory(at: out, withIntermediateDirectories: true)
        for name in Self.foreignStills {
            let path = try makeStill(name, in: folder)
            await expectConvertError(.unsupportedImageFormat) {
                try await VideoConverter.convert(VideoRequest(input: path, output: OutputLocation(directory: out.path)))
                    .result()
            }
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: out.path).isEmpty)
    }
}
