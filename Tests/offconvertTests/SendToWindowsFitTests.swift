import Foundation
import Testing

/// "Plays on any Windows PC" means H.264 no larger than level 5.2's frame: an 8K phone clip is
/// scaled into 3840x2160 (a portrait one into 2160x3840), a 4K one is left as it is. ffprobe reads
/// the level and size of what was written.
@Suite("send-to-windows: 8K fits level 5.2")
struct SendToWindowsFitTests {
    /// An H.264 clip of `size` made by ffmpeg in `folder` (0.3 s at 24 fps).
    static func clip(_ name: String, size: String, in folder: UserFolder) async throws {
        let arguments = [
            "-v", "error", "-f", "lavfi", "-i", "testsrc2=size=\(size):rate=24", "-t", "0.3", "-c:v", "libx264",
            "-preset", "ultrafast", "-pix_fmt", "yuv420p",
        ]
        let made = try await MotionCommandsTests.tool(
            "ffmpeg", arguments + [folder.url.appendingPathComponent(name).path])
        try #require(made.status == 0, "\(made.stderr)")
    }

    static func stream(_ path: String) throws -> String {
        try CLIRunner.toolOutput(
            "/usr/bin/ffprobe",
            [
                "-v", "error", "-select_streams", "v:0", "-show_entries", "stream=width,height,level,nb_frames",
                "-of", "compact", path,
            ])
    }

    @Test("an 8K clip becomes 3840x2160 at level 5.1, a portrait one 2160x3840, and a 4K one is copied as it is")
    func eightK() async throws {
        let folder = try UserFolder()
        defer { folder.remove() }
        try await Self.clip("8k.mp4", size: "7680x4320", in: folder)
        try await Self.clip("8k portrait.mp4", size: "4320x7680", in: folder)
        try await Self.clip("4k.mp4", size: "3840x2160", in: folder)
        let outcome = try await folder.run(["send-to-windows", "8k.mp4", "8k portrait.mp4", "4k.mp4", "-o", "win"])
        #expect(outcome.status == 0, "\(outcome.stderr)")
        #expect(
            outcome.stderr.contains(
                "8k.mp4: video re-encoded to h264, scaled to 3840x2160 to play on any Windows PC (7680x4320 H.264 is beyond level 5.2"
            ),
            "\(outcome.stderr)")
        #expect(
            outcome.stderr.contains("scaled to 2160x3840 to play on any Windows PC (4320x7680"), "\(outcome.stderr)")
        let landscape = try Self.stream(folder.url.appendingPathComponent("win/8k.mp4").path)
        #expect(landscape.contains("width=3840|height=2160|level=51|nb_frames=7"), "\(landscape)")
        let portrait = try Self.stream(folder.url.appendingPathComponent("win/8k portrait.mp4").path)
        #expect(portrait.contains("width=2160|height=3840|level=51"), "\(portrait)")
        #expect(!outcome.stderr.contains("4k.mp4: video re-encoded"), "\(outcome.stderr)")
        let uhd = try Self.stream(folder.url.appendingPathComponent("win/4k.mp4").path)
        #expect(uhd.contains("width=3840|height=2160"), "\(uhd)")
    }

    @Test(
        "compress and email keep an 8K clip within 3840x2160 too, however easy its picture: a size target's output plays everywhere"
    )
    func compressEightK() async throws {
        let folder = try UserFolder()
        defer { folder.remove() }
        try await Self.clip("8k.mp4", size: "7680x4320", in: folder)
        for (command, output) in [
            (["compress", "8k.mp4", "--target", "25MB"], "small"), (["email", "8k.mp4"], "mail"),
        ] {
            let outcome = try await folder.run(
                command + ["-o", output], environment: ["XDG_STATE_HOME": folder.state + "-" + output])
            #expect(outcome.status == 0, "\(outcome.stderr)")
            let stream = try Self.stream(folder.url.appendingPathComponent("\(output)/8k.mp4").path)
            #expect(stream.contains("width=3840|height=2160"), "\(command): \(stream)")
        }
        let plan = try await folder.run(["compress", "8k.mp4", "--target", "25MB", "--dry-run"])
        #expect(
            plan.stdout.contains("3840x2160") && plan.stdout.contains("scaled down from 7680x4320 to play everywhere"),
            "\(plan.stdout)")
    }
}
