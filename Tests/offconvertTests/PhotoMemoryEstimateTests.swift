import ConvertCore
import Foundation
import Testing

@testable import ConvertBatch
@testable import OffconvertCLI

/// The memory estimate a batch admits photos by (``PhotoMemoryEstimate``), against the peak RSS the
/// kernel measured for the same conversion (``PeakMemory``): within 1.25x either way for every
/// output format but JPEG XL, whose estimate is libjxl's upper end and so never below the peak;
/// and a file over an explicit `--memory-budget` on its own is refused with the figure, nothing
/// written or charged.
@Suite("Photo memory estimate")
struct PhotoMemoryEstimateTests {
    /// An 8.6 MP photo: the real 1800x1200 landscape scaled up by ffmpeg, as a 4:2:0 JPEG turned by
    /// EXIF orientation 6 (so the general path decodes it) or as an RGB PNG.
    static func photo(_ name: String, in directory: URL) throws -> String {
        let path = directory.appendingPathComponent(name).path
        let source = CLIRunner.media.appendingPathComponent("photos/orientation/Landscape_1.jpg").path
        let made = try CLIRunner.toolOutput(
            "/usr/bin/env",
            [
                "ffmpeg", "-v", "error", "-y", "-i", source, "-vf", "scale=3600:2400:flags=lanczos", "-frames:v", "1",
                "-q:v", "3",
                "-pix_fmt", name.hasSuffix(".png") ? "rgb24" : "yuvj420p", path,
            ])
        #expect(made.isEmpty)
        if name.hasSuffix(".jpg") {
            _ = try CLIRunner.toolOutput(
                "/usr/bin/env", ["exiftool", "-q", "-overwrite_original", "-n", "-Orientation=6", path])
        }
        return path
    }

    static let cases: [(input: String, format: PhotoFormat)] = [
        ("turned.jpg", .jpeg), ("turned.jpg", .png), ("turned.jpg", .webp), ("turned.jpg", .heic), ("turned.jpg", .jxl),
        ("rgb.png", .jpeg), ("rgb.png", .webp), ("rgb.png", .avif),
    ]

    @Test("the estimate is within 1.25x of the measured peak (JPEG XL: at or above it)", arguments: 0..<cases.count)
    func estimate(_ index: Int) async throws {
        let (name, format) = Self.cases[index]
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "photo-memory-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let input = try Self.photo(name, in: directory)
        let estimate = Double(PhotoWork.cost(of: input, request: PhotoRequest(inputPath: input, format: format)))
        let run = try await PeakMemory.run(
            ["convert", input, "--to", format.fileExtension, "-o", "out"], in: directory)
        try #require(run.status == 0)
        let peak = Double(run.maxResidentKilobytes * 1024)
        let ratio = estimate / peak
        if format == .jxl {
            #expect(ratio >= 1 && ratio < 2.5, "\(name) → \(format): estimate \(estimate), peak \(peak)")
        } else {
            #expect(ratio > 1 / 1.25 && ratio < 1.25, "\(name) → \(format): estimate \(estimate), peak \(peak)")
        }
    }

    @Test("a photo needing more than --memory-budget alone is refused with the figure; nothing written or charged")
    func overBudget() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "photo-budget-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        _ = try Self.photo("turned.jpg", in: directory)
        let state = directory.appendingPathComponent("state").path
        let run = try await CLIRunner.run(
            ["convert", "turned.jpg", "--to", "jxl", "-o", "out", "--memory-budget", "200MB", "--json"],
            environment: ["XDG_STATE_HOME": state], directory: directory)
        #expect(run.status == 1)
        #expect(run.stdout.contains("\"request.memory-budget\""), "\(run.stdout)")
        #expect(run.stdout.contains("needs about") && run.stdout.contains("budget of 200.0 MB"), "\(run.stdout)")
        #expect(
            (try? FileManager.default.contentsOfDirectory(atPath: directory.appendingPathComponent("out").path)) ?? []
                == [])
        let allowance = try await CLIRunner.run(
            ["allowance"], environment: ["XDG_STATE_HOME": state], directory: directory)
        #expect(allowance.stdout.contains("3 of 3"), "\(allowance.stdout)")
        // Within the budget the same photo converts.
        let fits = try await CLIRunner.run(
            ["convert", "turned.jpg", "--to", "jpg", "-o", "out", "--memory-budget", "200MB"],
            environment: ["XDG_STATE_HOME": state],
            directory: directory)
        #expect(fits.status == 0, "\(fits.stderr)")
    }

    /// The `failed` events of a `--json` run, each as [input, error key, message].
    private static func failures(_ stdout: String) throws -> [[String]] {
        try stdout.split(separator: "\n").compactMap { line in
            let event = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            guard event["event"] as? String == "failed" else { return nil }
            let error = event["error"] as? [String: Any] ?? [:]
            return [event["input"], error["key"], error["message"]].map { ($0 as? String) ?? "" }
        }
    }

    @Test("--dry-run refuses a photo over --memory-budget as the real run does, with the same reason and exit 1")
    func dryRunOverBudget() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "photo-budget-dry-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try FileManager.default.copyItem(
            at: CLIRunner.media.appendingPathComponent("photos/tokyo.jpg"),
            to: directory.appendingPathComponent("tokyo.jpg"))
        let command = ["convert", "tokyo.jpg", "--to", "png", "-o", "out", "--memory-budget", "1MB"]
        let dry = try await CLIRunner.run(command + ["--dry-run", "--json"], directory: directory)
        let real = try await CLIRunner.run(command + ["--json"], directory: directory)
        #expect(dry.status == 1 && real.status == 1, "dry \(dry.status), real \(real.status)")
        let refused = try Self.failures(real.stdout)
        #expect(refused.count == 1 && refused.first?[1] == "request.memory-budget", "\(real.stdout)")
        #expect(try Self.failures(dry.stdout) == refused, "\(dry.stdout)")
        #expect(!dry.stdout.contains("\"planned\""), "\(dry.stdout)")
        let text = try await CLIRunner.run(command + ["--dry-run"], directory: directory)
        #expect(text.status == 1 && !text.stdout.contains("tokyo.png"), "\(text.stdout)")
        #expect(text.stderr.contains("budget of 1.0 MB (--memory-budget)"), "\(text.stderr)")
        #expect(
            (try? FileManager.default.contentsOfDirectory(atPath: directory.appendingPathComponent("out").path)) ?? []
                == [])
    }
}
