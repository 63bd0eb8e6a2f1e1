import ConvertCore
import Foundation
import Testing

@testable import OffconvertCLI

/// The memory heic-to-jpg holds per pixel, from two grids of one layout with 4× the pixels between
/// them (TestMedia/generators/63-heif-memory.sh), each run's peak RSS from the kernel
/// (``PeakMemory``), no clock. A grid is decoded and encoded one row of tiles at a time, so what
/// scales with the picture is its coded bytes (the file's and a tile's copy), the JPEG stream (as
/// it grows, and its copy) and one band: not its whole planes (1.5 bytes a pixel), let alone an
/// RGB picture (3).
@Suite("heic-to-jpg memory per pixel")
struct HeicMemoryCommandTests {
    static func grid(_ side: Int) -> String {
        CLIRunner.media.appendingPathComponent("generated/heif-memory/grid-\(side)x\(side).heic").path
    }

    static func fileSize(_ path: String) throws -> Int {
        (try FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber)?.intValue ?? 0
    }

    /// Converts the grid of `side`×`side` tiles; its peak RSS and the sizes of input and output.
    static func convert(_ side: Int, in directory: URL) async throws -> (kilobytes: Int, input: Int, output: Int) {
        let output = directory.appendingPathComponent("grid-\(side).jpg").path
        let run = try await PeakMemory.run(["heic-to-jpg", Self.grid(side), "-o", output], in: directory)
        try #require(run.status == 0, "heic-to-jpg of the \(side)x\(side) grid failed")
        return (run.maxResidentKilobytes, try fileSize(Self.grid(side)), try fileSize(output))
    }

    @Test("4x the pixels cost the coded tiles, the JPEG stream and a wider band, not the whole planes")
    func perPixel() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "heic-memory-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let small = try await Self.convert(8, in: directory)
        let large = try await Self.convert(16, in: directory)
        let extraPixels = (4096 * 4096) - (2048 * 2048)
        let grown = (large.kilobytes - small.kilobytes) * 1024
        // Two copies of the extra coded and JPEG bytes, the wider band (256 rows of 4:2:0) and a
        // quarter of a byte a pixel of slack (allocator rounding, libde265's per-tile buffers):
        // about 18 MB. Measured: 10 MB grown (23-25 MB when the whole planes were decoded first).
        let band = (4096 - 2048) * 256 * 3 / 2
        let bound = 2 * (large.input - small.input) + 2 * (large.output - small.output) + band + extraPixels / 4
        #expect(grown < extraPixels * 3 / 2, "less than the whole picture's planes: grew \(grown) bytes")
        #expect(grown <= bound, "grew \(grown) bytes for \(extraPixels) more pixels, bound \(bound)")
    }
}
