import Foundation
import Testing
import ConvertCore
@testable import OffconvertCLI

/// The memory heic-to-jpg holds per pixel, from two grids of one layout with 4× the pixels between
/// them (TestMedia/generators/63-heif-memory.sh), each run's peak RSS from the kernel
/// (``PeakMemory``), no clock. What may scale with the picture is its 8-bit 4:2:0 planes (1.5 bytes
/// a pixel), its coded tiles and one JPEG stream: a second picture (an RGB detour, 3 bytes a pixel,
/// or a rotated copy of the planes) or more copies of the stream do not fit the bound.
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

    @Test("4x the pixels cost the planes, the coded tiles and one JPEG stream, and little more")
    func perPixel() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("heic-memory-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let small = try await Self.convert(8, in: directory)
        let large = try await Self.convert(16, in: directory)
        let extraPixels = (4096 * 4096) - (2048 * 2048)
        let grown = (large.kilobytes - small.kilobytes) * 1024
        // The planes, the extra coded and JPEG bytes, and a quarter of a byte a pixel of slack
        // (allocator rounding, libde265's per-tile buffers): 3 MB here. Measured: 23-25 MB grown,
        // bound about 29 MB.
        let bound = extraPixels * 3 / 2 + (large.input - small.input) + (large.output - small.output) + extraPixels / 4
        #expect(grown > extraPixels, "the planes alone are 1.5 bytes a pixel: grew \(grown) bytes")
        #expect(grown <= bound, "grew \(grown) bytes for \(extraPixels) more pixels, bound \(bound)")
    }
}
