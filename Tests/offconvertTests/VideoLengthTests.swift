import Foundation
import Testing

/// Clips whose headers do not say their length (issue 39): a fragmented MP4 whose durations are
/// 0xFFFFFFFF ticks converts with every frame, one cut inside its fragments is refused as
/// incomplete, and a 1 fps clip with B-frames is judged by when its last frame is shown, not
/// decoded. Frame counts by ffprobe.
@Suite("Video length from the frames", .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/ffprobe")))
struct VideoLengthTests {
    static func videoFrames(_ path: String) throws -> Int {
        let text = try CLIRunner.toolOutput(
            "/usr/bin/ffprobe",
            [
                "-v", "error", "-count_frames", "-select_streams", "v:0", "-show_entries", "stream=nb_read_frames",
                "-of", "csv=p=0", path,
            ])
        return Int(text.trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1
    }

    @Test(
        "a fragmented MP4 whose header claims 143166 s and a 1 fps clip with B-frames convert with all their frames",
        arguments: [("fragmented.mp4", 90), ("onefps-bframes.mp4", 12)])
    func whole(_ name: String, _ frames: Int) async throws {
        let folder = try UserFolder()
        defer { folder.remove() }
        try folder.add("generated/\(name)", as: name)
        for container in ["mkv", "mp4"] {
            let outcome = try await folder.run(
                ["convert", name, "--to", container, "-o", container],
                environment: ["XDG_STATE_HOME": folder.state + "-" + container])
            #expect(outcome.status == 0, "\(container): \(outcome.stderr)")
            let stem = (name as NSString).deletingPathExtension
            #expect(
                try Self.videoFrames(folder.url.appendingPathComponent("\(container)/\(stem).\(container)").path)
                    == frames)
        }
        let windows = try await folder.run(["send-to-windows", name, "-o", "win"])
        #expect(windows.status == 0, "\(windows.stderr)")
    }

    @Test("a fragmented MP4 cut inside its fragments is refused as incomplete, and nothing is written")
    func cutShort() async throws {
        let folder = try UserFolder()
        defer { folder.remove() }
        try folder.add("generated/fragmented-cut.mp4", as: "rec.mp4")
        let outcome = try await folder.run(["convert", "rec.mp4", "--to", "mkv"])
        #expect(outcome.status == 1)
        #expect(outcome.stderr.contains("rec.mp4 is incomplete: its last fragment is cut short."), "\(outcome.stderr)")
        #expect(folder.files() == ["rec.mp4"])
        #expect(try folder.used() == 0)
    }

    @Test("a phone clip cut by head -c (its moov whole, its mdat cut) is refused as ending early by every command")
    func headCut() async throws {
        let folder = try UserFolder()
        defer { folder.remove() }
        try folder.add("video/sample.mp4", as: "full.mp4")
        let cut = await folder.shell("head -c 70000 full.mp4 > VID.mp4 && rm full.mp4")
        #expect(cut.status == 0, "\(cut.stderr)")
        for arguments in [
            ["convert", "VID.mp4", "--to", "mkv"], ["send-to-windows", "VID.mp4"],
            ["compress", "VID.mp4", "--target", "25MB"],
        ] {
            let outcome = try await folder.run(arguments)
            #expect(outcome.status == 1, "\(arguments): \(outcome.stderr)")
            // 1.024 s announced; the cut keeps about two thirds of the data.
            #expect(
                outcome.stderr.contains("VID.mp4 is incomplete: the file ends early, its data ends at 0."),
                "\(outcome.stderr)")
            #expect(outcome.stderr.contains(" of 1.0 s."), "\(outcome.stderr)")
        }
        #expect(folder.files() == ["VID.mp4"])
        #expect(try folder.used() == 0)
        // info gives the length of the data there, not the header's.
        let info = try await folder.run(["info", "VID.mp4"])
        #expect(info.stdout.contains("its data ends at 0."), "\(info.stdout)")
        #expect(info.stdout.contains("of the 1 s its header announces"), "\(info.stdout)")
    }
}
