import ConvertCore
import Foundation
import Testing

@testable import ConvertBatch
@testable import OffconvertCLI

/// The length mutations of TestMedia/generators/60-hostile-lengths.sh, run as a user would, with
/// the peak memory of each run measured (``PeakMemory``: the child's own maximum RSS). Before the
/// chunk lengths were checked, `info` of the 480 kB PNG held 2.1 GB and of the GIF 1 GB.
@Suite("Hostile lengths: memory of real runs")
struct HostileLengthsCommandTests {
    /// Far above what these runs need (about 65 MB: the engine's own libraries), far below the
    /// gigabytes the bugs took.
    static let ceilingKilobytes = 300_000

    static func bomb(_ name: String) -> String {
        CLIRunner.media.appendingPathComponent("generated/bombs/" + name).path
    }

    static func scratch() throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "hostile-lengths-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory
    }

    @Test(
        "a PNG whose tEXt length is 0x7FFFFFFF is described and refused without allocating it",
        arguments: [
            ["info"], ["convert", "--to", "jpg", "-o", "out"], ["convert", "--to", "webp", "-o", "out"],
        ])
    func pngTextLength(command: [String]) async throws {
        let directory = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: directory) }
        let input = directory.appendingPathComponent("p.png")
        try FileManager.default.copyItem(atPath: Self.bomb("png-text-2gb.png"), toPath: input.path)
        let run = try await PeakMemory.run([command[0], "p.png"] + command.dropFirst(), in: directory)
        #expect(run.maxResidentKilobytes < Self.ceilingKilobytes, "peak \(run.maxResidentKilobytes) kB")
        // `info` reports the damage as a warning and exits 0; a conversion fails the item.
        #expect(run.status == (command[0] == "info" ? 0 : 1))
        let outputs =
            (try? FileManager.default.contentsOfDirectory(atPath: directory.appendingPathComponent("out").path)) ?? []
        #expect(outputs.isEmpty, "left behind: \(outputs)")
    }

    @Test("info of a 16000x16000-screen GIF with 2000 frames reads its header only")
    func gifScreen() async throws {
        let directory = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: directory) }
        let run = try await PeakMemory.run(["info", Self.bomb("gif-screen-16000-2000.gif")], in: directory)
        #expect(run.status == 0)
        #expect(run.maxResidentKilobytes < Self.ceilingKilobytes, "peak \(run.maxResidentKilobytes) kB")
        let printed = try await CLIRunner.run(["info", Self.bomb("gif-screen-16000-2000.gif")])
        #expect(printed.stdout.contains("16000x16000"), "\(printed.stdout)")
    }

    @Test("converting a 65535x65535-screen GIF names the pixel limit, not damage")
    func gifTooLarge() async throws {
        let directory = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: directory) }
        let run = try await CLIRunner.run([
            "convert", Self.bomb("gif-screen-65535.gif"), "--to", "png", "-o", directory.path,
        ])
        #expect(run.status == 1)
        #expect(run.stderr.contains("65535x65535") && run.stderr.contains("--max-pixels"), "\(run.stderr)")
        #expect(!run.stderr.contains("damaged"), "\(run.stderr)")
    }
}

/// `info` as a user reads it on a damaged HEIC: never "location: none".
@Suite("Info of damaged files")
struct InfoDamagedCommandTests {
    @Test("a HEIC cut short shows the GPS it can read; a PNG whose metadata is lost says unknown")
    func damaged() async throws {
        let directory = try HostileLengthsCommandTests.scratch()
        defer { try? FileManager.default.removeItem(at: directory) }
        for (fixture, cut, name) in [("gps-exif-xmp.heic", 1500, "cut.heic"), ("stress-tiny.png", 40, "cut.png")] {
            let data = try Data(contentsOf: CLIRunner.media.appendingPathComponent("generated/" + fixture))
            try data.prefix(data.count - cut).write(to: directory.appendingPathComponent(name))
            let run = try await CLIRunner.run(["info", name], directory: directory)
            #expect(!run.stdout.contains("location: none"), "\(run.stdout)")
            #expect(
                run.stdout.contains(name.hasSuffix("heic") ? "location: yes, in EXIF GPS" : "location: unknown"),
                "\(run.stdout)")
        }
    }
}

/// A batch's memory cost of a GIF is its first frame's picture (the screen), read from the header.
@Suite("Hostile lengths: batch cost of a GIF")
struct GIFCostTests {
    @Test("a 16000x16000 screen with 2000 frames costs about two screen-sized bitmaps, however many frames follow")
    func cost() throws {
        let path = HostileLengthsCommandTests.bomb("gif-screen-16000-2000.gif")
        let request = PhotoRequest(inputPath: path, format: .png)
        let cost = PhotoWork.cost(of: path, request: request)
        // The screen decoded (a bitmap and its copy) and the process: at least two screens, less than three.
        let screen = BatchScheduler.bitmapBytes(width: 16000, height: 16000, bytesPerPixel: 4)
        #expect(cost >= 2 * screen && cost < 3 * screen, "\(cost)")
        // The same screen with only its first frame: the same cost, so the other 1999 count nothing.
        let directory = try HostileLengthsCommandTests.scratch()
        defer { try? FileManager.default.removeItem(at: directory) }
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        let one = directory.appendingPathComponent("one.gif")
        try (data.prefix(61) + Data([0x3B])).write(to: one)
        // The other 1999 frames count only their bytes (the decoder holds the file).
        let oneCost = PhotoWork.cost(of: one.path, request: request)
        #expect(abs(oneCost - cost) <= Int64(data.count), "\(oneCost) against \(cost)")
    }
}
