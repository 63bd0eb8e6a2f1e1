import Foundation
import Testing

/// Interlaced camcorder footage (TestMedia/generators/81-interlaced.sh: 1080i-style H.264 in
/// MPEG-TS, top field first). A re-encode codes progressive frames, so it deinterlaces and says
/// so: one frame a field where motion matters (convert, gif), one a frame where bits are short
/// (compress). A stream copy keeps the fields as they were. ffprobe counts the frames and reads
/// the field order; ffmpeg's idet filter says whether frames still hold two fields.
@Suite("Interlaced camcorder footage")
struct InterlacedCommandTests {
    /// ffprobe's field order and frame count of the video stream in `path`.
    static func fields(_ path: String) throws -> (order: String, frames: Int) {
        let text = try CLIRunner.toolOutput(
            "/usr/bin/ffprobe",
            [
                "-v", "error", "-select_streams", "v:0", "-count_frames", "-show_entries",
                "stream=field_order,nb_read_frames", "-of", "default=noprint_wrappers=1", path,
            ])
        let values = Dictionary(
            text.split(separator: "\n").compactMap { line -> (String, String)? in
                let parts = line.split(separator: "=", maxSplits: 1).map(String.init)
                return parts.count == 2 ? (parts[0], parts[1]) : nil
            }, uniquingKeysWith: { first, _ in first })
        return (values["field_order"] ?? "", Int(values["nb_read_frames"] ?? "") ?? -1)
    }

    /// idet's multi-frame verdicts over `path`: (top first, bottom first, progressive).
    static func idet(_ path: String) async throws -> (tff: Int, bff: Int, progressive: Int) {
        let outcome = try await MotionCommandsTests.tool(
            "ffmpeg", ["-v", "info", "-nostdin", "-i", path, "-vf", "idet", "-f", "null", "-"])
        let line = try #require(outcome.stderr.split(separator: "\n").first { $0.contains("Multi frame detection") })
        func count(_ label: String) -> Int {
            guard let range = line.range(of: label + ":") else { return -1 }
            return Int(line[range.upperBound...].split(separator: " ").first ?? "") ?? -1
        }
        return (count("TFF"), count("BFF"), count("Progressive"))
    }

    @Test("a re-encode to HEVC makes one progressive frame a field (25i → 50p) and says so")
    func reencode() async throws {
        let folder = try UserFolder()
        defer { folder.remove() }
        try folder.add("generated/interlaced/camcorder.mts", as: "holiday 1.mts")
        #expect(try Self.fields(folder.url.appendingPathComponent("holiday 1.mts").path) == ("tt", 13))
        let outcome = try await folder.run(["convert", "holiday 1.mts", "--to", "mp4", "--codec", "hevc"])
        #expect(outcome.status == 0, "\(outcome.stderr)")
        #expect(
            outcome.stderr.contains(
                "interlaced video (50 fields a second) deinterlaced to 50 progressive frames a second (bwdif)"),
            "\(outcome.stderr)")
        let output = folder.url.appendingPathComponent("holiday 1.mp4").path
        #expect(try Self.fields(output).frames == 26)
        let verdict = try await Self.idet(output)
        #expect(verdict.tff == 0 && verdict.bff == 0 && verdict.progressive > 0, "\(verdict)")
    }

    @Test(
        "a clip cut at an open GOP's key frame (two leading B-frames first): the copy keeps every packet, as ffmpeg's")
    func openGOPLeadingFrames() async throws {
        let folder = try UserFolder()
        defer { folder.remove() }
        // 25i H.264 with open GOPs in MPEG-TS, cut at its second key frame as a camcorder's file
        // split or a copy would be: its first packets are B-frames shown before the key frame.
        let made = await folder.shell(
            "ffmpeg -nostdin -v error -f lavfi -i testsrc2=size=320x180:rate=50,trim=end_frame=60 "
                + "-vf interlace=scan=tff -c:v libx264 -preset veryfast -flags +ildct+ilme "
                + "-x264opts tff=1:open-gop=1:keyint=12:min-keyint=12:bframes=2:scenecut=0 -f mpegts whole.mts && "
                + "python3 -c \"\n"
                + "import subprocess\n"
                + "rows = subprocess.run(['ffprobe', '-v', 'error', '-select_streams', 'v', '-show_entries', "
                + "'packet=pos,flags', '-of', 'csv=p=0', 'whole.mts'], capture_output=True, text=True).stdout.split()\n"
                + "keys = [int(row.split(',')[0]) for row in rows if 'K' in row.split(',')[1]]\n"
                + "d = open('whole.mts', 'rb').read()\n"
                + "open('00001.mts', 'wb').write(d[:376] + d[keys[1] - keys[1] % 188:])\"")
        #expect(made.status == 0, "\(made.stderr)")
        // Each video packet's presentation time and flags ("90000,K_").
        let packets = { (name: String) throws -> [[Substring]] in
            try CLIRunner.toolOutput(
                "/usr/bin/ffprobe",
                [
                    "-v", "error", "-select_streams", "v", "-show_entries", "packet=pts,flags", "-of", "csv=p=0",
                    folder.url.appendingPathComponent(name).path,
                ]
            ).split(separator: "\n").map { $0.split(separator: ",") }
        }
        let source = try packets("00001.mts")
        // A key frame, then B-frames shown before it.
        #expect(source.count == 20 && source[0].count == 2 && source[0][1] == "K_", "\(source)")
        #expect(source.count > 2 && (Int(source[1][0]) ?? .max) < (Int(source[0][0]) ?? 0), "\(source)")
        let outcome = try await folder.run(["send-to-windows", "00001.mts"])
        #expect(outcome.status == 0, "\(outcome.stderr)")
        #expect(try packets("00001.mp4").count == source.count)
        let copied = try Self.fields(folder.url.appendingPathComponent("00001.mp4").path)
        #expect(copied.order == "tt")
        #expect(copied.frames == (try Self.fields(folder.url.appendingPathComponent("00001.mts").path)).frames)
    }

    @Test("a stream copy keeps the fields and their order; compress deinterlaces to one frame a frame")
    func copyAndCompress() async throws {
        let folder = try UserFolder()
        defer { folder.remove() }
        try folder.add("generated/interlaced/camcorder.mts", as: "clip.mts")
        let copy = try await folder.run(["send-to-windows", "clip.mts"])
        #expect(copy.status == 0 && copy.stderr.contains("video copied"), "\(copy.stderr)")
        #expect(!copy.stderr.contains("deinterlaced"), "\(copy.stderr)")
        #expect(try Self.fields(folder.url.appendingPathComponent("clip.mp4").path) == ("tt", 13))
        let small = try await folder.run(["compress", "clip.mts", "--target", "40KB", "-o", "small"])
        #expect(small.status == 0, "\(small.stderr)")
        #expect(
            small.stderr.contains("deinterlaced to 25 progressive frames a second (bwdif)"), "\(small.stderr)")
        let output = folder.url.appendingPathComponent("small/clip.mp4").path
        #expect(try Self.fields(output).frames == 13)
        let verdict = try await Self.idet(output)
        #expect(verdict.tff == 0 && verdict.bff == 0 && verdict.progressive > 0, "\(verdict)")
    }

    @Test("info names interlaced video and its first field, as ffprobe reads them; progressive video says nothing")
    func info() async throws {
        let folder = try UserFolder()
        defer { folder.remove() }
        try folder.add("generated/interlaced/camcorder.mts", as: "top first.mts")
        // The same fields coded bottom first, and a progressive copy, made by ffmpeg.
        let bottom = try await MotionCommandsTests.tool(
            "ffmpeg",
            [
                "-v", "error", "-nostdin", "-i", folder.url.appendingPathComponent("top first.mts").path, "-an",
                "-vf", "setfield=bff", "-c:v", "libx264", "-preset", "ultrafast", "-x264-params", "bff=1",
                folder.url.appendingPathComponent("bottom.mts").path,
            ])
        #expect(bottom.status == 0, "\(bottom.stderr)")
        let progressive = try await MotionCommandsTests.tool(
            "ffmpeg",
            [
                "-v", "error", "-nostdin", "-i", folder.url.appendingPathComponent("top first.mts").path, "-an",
                "-vf", "bwdif", "-c:v", "libx264", "-preset", "ultrafast",
                folder.url.appendingPathComponent("progressive.mp4").path,
            ])
        #expect(progressive.status == 0, "\(progressive.stderr)")
        #expect(try Self.fields(folder.url.appendingPathComponent("top first.mts").path).order == "tt")
        #expect(try Self.fields(folder.url.appendingPathComponent("bottom.mts").path).order == "bb")
        #expect(try Self.fields(folder.url.appendingPathComponent("progressive.mp4").path).order == "progressive")

        let text = try await folder.run(["info", "top first.mts", "bottom.mts", "progressive.mp4"])
        #expect(text.status == 0, "\(text.stderr)")
        let sections = text.stdout.components(separatedBy: "\n\n")
        #expect(sections.count == 3, "\(text.stdout)")
        #expect(sections.first?.contains("25 fps, interlaced, top field first") == true, "\(text.stdout)")
        #expect(sections.dropFirst().first?.contains("interlaced, bottom field first") == true, "\(text.stdout)")
        #expect(sections.last?.contains("interlaced") == false, "\(text.stdout)")

        let json = try await folder.run(["info", "--json", "top first.mts", "progressive.mp4"])
        #expect(json.status == 0, "\(json.stderr)")
        let lines = json.stdout.split(separator: "\n")
        #expect(lines.count == 2, "\(json.stdout)")
        #expect(lines.first?.contains("\"interlaced\":\"top-first\"") == true, "\(json.stdout)")
        #expect(lines.last?.contains("\"interlaced\"") == false, "\(json.stdout)")
    }
}
