import Foundation
import Testing

/// A photo cut short by an interrupted copy or download, or with bits flipped on a failing card,
/// is the user's picture: it is converted as viewers show it, with a note saying what is wrong,
/// and refused only with `--strict`. Checked against djpeg (libjpeg-turbo's own tool), which
/// decodes the same damaged files with a warning, and ffmpeg.
@Suite(
    "damaged photos: converted with a note",
    .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/djpeg")))
struct DamagedPhotoCommandTests {
    /// PSNR (dB) of `output` against djpeg's decode of `input`, both as RGB, by ffmpeg.
    static func psnrAgainstDjpeg(_ folder: UserFolder, input: String, output: String) async throws -> Double {
        let reference = folder.url.appendingPathComponent("djpeg.ppm").path
        let djpeg = try await CLIRunner.run(
            ["-outfile", reference, folder.url.appendingPathComponent(input).path],
            executable: URL(fileURLWithPath: "/usr/bin/djpeg"))
        // djpeg exits 2 when it decoded with a warning, as it does for these files.
        #expect(djpeg.status == 0 || djpeg.status == 2, "djpeg: \(djpeg.stderr)")
        return try await psnr(reference, ["-i", folder.url.appendingPathComponent(output).path])
    }

    @Test(
        "a JPEG cut short becomes a PNG with a note saying how much is missing; --strict refuses it and writes nothing")
    func cutShort() async throws {
        let folder = try UserFolder()
        defer { folder.remove() }
        let whole = try Data(contentsOf: CLIRunner.media.appendingPathComponent("photos/tokyo.jpg"))
        try whole.prefix(100_000).write(to: folder.url.appendingPathComponent("IMG 7.jpg"))
        let strict = try await folder.run(["convert", "IMG 7.jpg", "--to", "png", "--strict"])
        #expect(strict.status == 1 && strict.stderr.contains("is damaged"), "\(strict.stderr)")
        #expect(try folder.star() == ["IMG 7.jpg"], "nothing written with --strict")
        #expect(try folder.used() == 0, "a refused photo costs nothing")

        let outcome = try await folder.run(["convert", "IMG 7.jpg", "--to", "png"])
        #expect(outcome.status == 0, "\(outcome.stderr)")
        #expect(
            outcome.stderr.contains(
                "IMG 7.jpg: the file ends early (an interrupted copy or download): the bottom 32% of the picture is missing (shown grey)"
            ),
            "\(outcome.stderr)")
        #expect(try folder.star() == ["IMG 7.jpg", "IMG 7.png"])
        // The picture djpeg makes of the same file, pixel for pixel.
        #expect(try await Self.psnrAgainstDjpeg(folder, input: "IMG 7.jpg", output: "IMG 7.png") >= 60)
    }

    /// PSNR (dB) of two pictures as RGB, by ffmpeg: whole, or the `rows` rows from `top` of the
    /// first against the top rows of the other. `other` is ffmpeg's input arguments (a file, or a
    /// lavfi source such as `color=c=0x808080:s=640x10`).
    static func psnr(_ first: String, _ other: [String], top: Int = 0, rows: Int? = nil) async throws -> Double {
        let crop = { (y: Int) in rows.map { "crop=iw:\($0):0:\(y)," } ?? "" }
        let result = try await MotionCommandsTests.tool(
            "ffmpeg",
            ["-v", "info", "-i", first] + other + [
                "-lavfi", "[0:v]\(crop(top))format=rgb24[a];[1:v]\(crop(0))format=rgb24[b];[a][b]psnr",
                "-frames:v", "1", "-f", "null", "-",
            ])
        let average = result.stderr.components(separatedBy: "average:").last?.split(separator: " ").first.map(
            String.init)
        return average == "inf" ? .infinity : Double(average ?? "") ?? 0
    }

    /// tokyo.jpg made a PNG by ffmpeg (not by offconvert) in `folder`: its path and bytes.
    static func ffmpegPNG(in folder: UserFolder) async throws -> (path: String, bytes: Data) {
        let full = folder.url.appendingPathComponent("full.png").path
        _ = try await MotionCommandsTests.tool(
            "ffmpeg", ["-v", "error", "-i", CLIRunner.media.appendingPathComponent("photos/tokyo.jpg").path, full])
        return (full, try Data(contentsOf: URL(fileURLWithPath: full)))
    }

    @Test("a PNG cut short is converted as far as it goes, the rest grey, with a note; --strict refuses it")
    func pngCutShort() async throws {
        let folder = try UserFolder()
        defer { folder.remove() }
        // A PNG made by ffmpeg (not by offconvert), then cut at 60% of its bytes.
        let (full, bytes) = try await Self.ffmpegPNG(in: folder)
        try bytes.prefix(bytes.count * 6 / 10).write(to: folder.url.appendingPathComponent("cut.png"))
        let strict = try await folder.run(["convert", "cut.png", "--to", "png", "--strict", "-o", "strict"])
        #expect(strict.status == 1 && strict.stderr.contains("is damaged"), "\(strict.stderr)")
        #expect(!folder.files().contains { $0.hasPrefix("strict/") })

        let outcome = try await folder.run(["convert", "cut.png", "--to", "png", "-o", "out"])
        #expect(outcome.status == 0, "\(outcome.stderr)")
        let note = "cut.png: the file ends early (an interrupted copy or download): the bottom "
        #expect(outcome.stderr.contains(note), "\(outcome.stderr)")
        let percent = outcome.stderr.components(separatedBy: note).last?.prefix { $0.isNumber }
        let missing = try #require(percent.flatMap { Int($0) })
        #expect((20...60).contains(missing), "\(outcome.stderr)")
        let output = folder.url.appendingPathComponent("out/cut.png").path
        // 600×800: the rows above the cut are ffmpeg's decode of the whole PNG exactly; the
        // last rows are mid grey.
        let kept = 800 * (99 - missing) / 100
        #expect(try await Self.psnr(output, ["-i", full], top: 0, rows: kept) == .infinity)
        #expect(
            try await Self.psnr(output, ["-f", "lavfi", "-i", "color=c=0x808080:s=600x8"], top: 792, rows: 8)
                == .infinity)

        // `info` says the same before any conversion: damaged, what is missing, and that it converts.
        let info = try await folder.run(["info", "cut.png"])
        #expect(info.status == 0, "\(info.stderr)")
        #expect(
            info.stdout.contains(
                "damaged: the file ends early (an interrupted copy or download): the bottom \(missing)% of the picture "
                    + "is missing (shown grey); a conversion keeps what is there"), "\(info.stdout)")
        #expect(info.stdout.contains("picture: 600x800"), "\(info.stdout)")
    }

    @Test("a PNG whose file ends after its picture (no IEND): info and convert agree the picture is whole")
    func pngWithoutEnd() async throws {
        let folder = try UserFolder()
        defer { folder.remove() }
        let (full, bytes) = try await Self.ffmpegPNG(in: folder)
        // The 12-byte IEND chunk gone, as Go's invalid-noend.png test file has it.
        try bytes.dropLast(12).write(to: folder.url.appendingPathComponent("no end.png"))
        let whole =
            "the file ends early (an interrupted copy or download): the picture is whole, what followed it is missing"
        let info = try await folder.run(["info", "no end.png"])
        #expect(info.status == 0 && info.stdout.contains("damaged: \(whole)"), "\(info.stdout)")
        let outcome = try await folder.run(["convert", "no end.png", "--to", "png", "-o", "out"])
        #expect(outcome.status == 0 && outcome.stderr.contains(whole), "\(outcome.stderr)")
        let output = folder.url.appendingPathComponent("out/no end.png").path
        #expect(try await Self.psnr(output, ["-i", full]) == .infinity)
    }

    @Test("a JPEG with flipped bits in its picture data is converted with a note; a whole one carries none")
    func flippedBits() async throws {
        let folder = try UserFolder()
        defer { folder.remove() }
        var bytes = [UInt8](try Data(contentsOf: CLIRunner.media.appendingPathComponent("photos/tokyo.jpg")))
        // Two bytes well inside the entropy-coded data turned into a marker that does not belong
        // there (libjpeg: "Corrupt JPEG data: premature end of data segment").
        bytes[60_000] = 0xFF
        bytes[60_001] = 0x12
        try Data(bytes).write(to: folder.url.appendingPathComponent("card.jpg"))
        try folder.add("photos/tokyo.jpg", as: "good.jpg")
        let outcome = try await folder.run(["convert", "card.jpg", "good.jpg", "--to", "png"])
        #expect(outcome.status == 0, "\(outcome.stderr)")
        #expect(
            outcome.stderr.contains("card.jpg: corrupt data in the picture, repaired by the decoder"),
            "\(outcome.stderr)")
        #expect(
            !outcome.stderr.contains("good.jpg: corrupt") && !outcome.stderr.contains("good.jpg: the file ends early"),
            "\(outcome.stderr)")
        #expect(try await Self.psnrAgainstDjpeg(folder, input: "card.jpg", output: "card.png") >= 60)
    }
}
