import Foundation
import Testing

/// `--preset` and the situation defaults: `send-to-windows` encodes with x264 `faster`, `convert`
/// with `medium` (ffmpeg's default at the same CRF) unless `--preset` names another, `compress`
/// its normal quality with `medium` and an encode at the target's bitrate with `fast`. Read from the
/// settings x264 writes into its own stream (its "x264 - core … options:" SEI), not from our code.
@Suite("Encoder presets")
struct VideoPresetTests {
    /// x264's options for a preset that tell it apart from its neighbours.
    private static let signature: [String: [String]] = [
        "veryfast": ["subme=2", "ref=1"],
        "faster": ["subme=4", "ref=2", "rc_lookahead=20"],
        "fast": ["subme=6", "ref=2", "rc_lookahead=30"],
        "medium": ["subme=7", "ref=3", "rc_lookahead=40"],
    ]

    private func x264Options(_ path: String) throws -> String {
        let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        let text = String(decoding: bytes.prefix(2_000_000), as: UTF8.self)
        guard let start = text.range(of: "options: ") else { return "" }
        return String(text[start.upperBound...].prefix { $0 != "\0" && $0 != "\u{80}" })
    }

    private func expectPreset(
        _ name: String, rateControl: String? = nil, in path: String, sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let options = try x264Options(path)
        let settings = (Self.signature[name] ?? []) + (rateControl.map { ["rc=\($0)"] } ?? [])
        for setting in settings {
            #expect(
                options.split(separator: " ").contains(Substring(setting)), "\(name): \(setting) not in \(options)",
                sourceLocation: sourceLocation)
        }
    }

    @Test("send-to-windows re-encodes with x264 faster; --preset overrides it")
    func sendToWindows() async throws {
        let directory = try VideoCommandsTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        // HEVC, so it is re-encoded.
        let input = CLIRunner.media.appendingPathComponent("video/regular.mkv").path
        let automatic = try await CLIRunner.run([
            "send-to-windows", input, "-o", directory.appendingPathComponent("a.mp4").path,
        ])
        #expect(automatic.status == 0, "\(automatic.stderr)")
        try expectPreset("faster", in: directory.appendingPathComponent("a.mp4").path)
        let named = try await CLIRunner.run([
            "send-to-windows", input, "--preset", "medium", "-o", directory.appendingPathComponent("b.mp4").path,
        ])
        #expect(named.status == 0, "\(named.stderr)")
        try expectPreset("medium", in: directory.appendingPathComponent("b.mp4").path)
    }

    @Test("convert keeps x264's medium at a given CRF, or the --preset named")
    func convert() async throws {
        let directory = try VideoCommandsTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let input = CLIRunner.media.appendingPathComponent("video/sample.mp4").path
        let plain = try await CLIRunner.run([
            "convert", input, "--to", "mp4", "--crf", "30", "--max-height", "144",
            "-o", directory.appendingPathComponent("m.mp4").path,
        ])
        #expect(plain.status == 0, "\(plain.stderr)")
        try expectPreset("medium", in: directory.appendingPathComponent("m.mp4").path)
        let fast = try await CLIRunner.run([
            "convert", input, "--to", "mp4", "--crf", "30", "--max-height", "144", "--preset", "VeryFast",
            "-o", directory.appendingPathComponent("v.mp4").path,
        ])
        #expect(fast.status == 0, "\(fast.stderr)")
        try expectPreset("veryfast", in: directory.appendingPathComponent("v.mp4").path)
    }

    @Test("compress encodes at the target's bitrate with x264 fast, and its normal quality (CRF 23) with medium")
    func compress() async throws {
        let directory = try VideoCommandsTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        // The target binds: one encode at x264's average bitrate.
        let tight = try await CLIRunner.run([
            "compress", CLIRunner.media.appendingPathComponent("video/motion.mov").path, "--target", "250KiB",
            "-o", directory.appendingPathComponent("tight.mp4").path,
        ])
        #expect(tight.status == 0, "\(tight.stderr)")
        try expectPreset("fast", rateControl: "abr", in: directory.appendingPathComponent("tight.mp4").path)
        // HEVC under an ample target: re-encoded at the normal quality, which fits.
        let ample = try await CLIRunner.run([
            "compress", CLIRunner.media.appendingPathComponent("video/regular.mkv").path, "--target", "25MB",
            "-o", directory.appendingPathComponent("ample.mp4").path,
        ])
        #expect(ample.status == 0, "\(ample.stderr)")
        try expectPreset("medium", rateControl: "crf", in: directory.appendingPathComponent("ample.mp4").path)
    }

    @Test("A preset for VP9 is refused before anything is written; an unknown name is a usage error with a guess")
    func refusals() async throws {
        let directory = try VideoCommandsTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let input = CLIRunner.media.appendingPathComponent("video/sample.mp4").path
        let vp9 = try await CLIRunner.run(["convert", input, "--to", "webm", "--preset", "slow", "-o", directory.path])
        #expect(vp9.status != 0)
        #expect(
            vp9.stderr.contains("The slow encoder preset applies to H.264 and HEVC, not vp9. Leave out --preset"),
            "\(vp9.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty)
        let unknown = try await CLIRunner.run(["send-to-windows", input, "--preset", "fastr"])
        #expect(unknown.status == 64)
        #expect(
            unknown.stderr.contains("Did you mean 'fast'") || unknown.stderr.contains("Did you mean 'faster'"),
            "\(unknown.stderr)")
    }
}
