import ConvertCore
import Foundation
import Testing

@testable import OffconvertCLI

/// The memory `convert --to jpg` holds per pixel of a JPEG, from two generated JPEGs with 4× the
/// pixels between them, each run's peak RSS from the kernel (``PeakMemory``), no clock. A JPEG
/// is re-encoded band by band from file to file: what grows with the picture is a band's width,
/// not an RGB bitmap (3 bytes a pixel); turned by its EXIF orientation it holds its 4:2:0 planes
/// (1.5 bytes a pixel).
@Suite("convert --to jpg memory per pixel")
struct JPEGMemoryCommandTests {
    /// A 4:2:0 test pattern of `width`×`height` written by ffmpeg, tagged with `orientation`.
    static func pattern(_ width: Int, _ height: Int, orientation: Int, in directory: URL) throws -> String {
        let path = directory.appendingPathComponent("p\(width)-\(orientation).jpg").path
        let made = try CLIRunner.toolOutput(
            "/usr/bin/env",
            [
                "ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=s=\(width)x\(height)", "-frames:v", "1",
                "-q:v", "5",
                "-pix_fmt", "yuvj420p", path,
            ])
        #expect(made.isEmpty)
        if orientation != 1 {
            _ = try CLIRunner.toolOutput(
                "/usr/bin/env", ["exiftool", "-q", "-overwrite_original", "-n", "-Orientation=\(orientation)", path])
        }
        return path
    }

    /// Peak RSS in bytes of converting `input`.
    static func peak(_ input: String, in directory: URL) async throws -> Int {
        let run = try await PeakMemory.run(
            ["convert", input, "--to", "jpg", "-o", "out", "--overwrite"], in: directory)
        try #require(run.status == 0, "convert \(input) failed")
        return run.maxResidentKilobytes * 1024
    }

    @Test("4x the pixels cost a wider band, not a bitmap; turned, the 4:2:0 planes", arguments: [1, 6])
    func perPixel(orientation: Int) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "jpeg-memory-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let small = try await Self.peak(
            try Self.pattern(2048, 1536, orientation: orientation, in: directory), in: directory)
        let large = try await Self.peak(
            try Self.pattern(4096, 3072, orientation: orientation, in: directory), in: directory)
        let extraPixels = 4096 * 3072 - 2048 * 1536
        let grown = large - small
        if orientation == 1 {
            // Measured: about 1 MB (an RGB bitmap and its encoded copy grew by 30 MB).
            #expect(grown < extraPixels / 4, "grew \(grown) bytes for \(extraPixels) more pixels")
        } else {
            // The planes (1.5 bytes a pixel) and allocator slack; a bitmap path grows by 3 or more.
            #expect(grown < extraPixels * 2, "grew \(grown) bytes for \(extraPixels) more pixels")
        }
    }
}
