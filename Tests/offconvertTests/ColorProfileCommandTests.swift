import Foundation
import Testing

/// Photos carrying the ICC profiles people's files really have. The 3,144-byte Hewlett-Packard
/// "sRGB IEC61966-2.1" is in countless camera and web files, and libpng calls it "known
/// incorrect"; a PNG must still be written, with the profile as it came. Checked with exiftool
/// (the profile in the output) and ffmpeg (the PNG decodes, and matches the source's pixels).
@Suite("common colour profiles", .enabled(if: MotionCommandsTests.haveTools))
struct ColorProfileCommandTests {
    @Test(
        "a photo with HP's sRGB profile becomes a PNG carrying it, with or without --strip-metadata",
        arguments: [[], ["--strip-metadata"]])
    func hewlettPackardSRGB(_ options: [String]) async throws {
        let folder = try UserFolder()
        defer { folder.remove() }
        try folder.add("photos/flower2-hp-srgb.webp", as: "f.webp")
        let outcome = try await folder.run(["convert", "f.webp", "--to", "png"] + options)
        #expect(outcome.status == 0, "\(outcome.stderr)")
        let png = folder.url.appendingPathComponent("f.png").path
        let tags = try await MotionCommandsTests.tool(
            "exiftool", ["-s", "-ICC_Profile:ProfileDescription", "-ICC_Profile:ProfileCreator", png])
        #expect(tags.stdout.contains("sRGB IEC61966-2.1") && tags.stdout.contains("Hewlett-Packard"), "\(tags.stdout)")
        // The same picture as ffmpeg's decode of the source: the two differ only in how the
        // WebP's 4:2:0 chroma is upsampled (libwebp's fancy upsampling against swscale's), 38.9 dB.
        let psnr = try await MotionCommandsTests.tool(
            "ffmpeg",
            [
                "-v", "info", "-i", folder.url.appendingPathComponent("f.webp").path, "-i", png,
                "-lavfi", "[0:v]format=rgb24[a];[1:v]format=rgb24[b];[a][b]psnr", "-f", "null", "-",
            ])
        let average = psnr.stderr.components(separatedBy: "average:").last?.split(separator: " ").first.map(String.init)
        let decibels = average == "inf" ? Double.infinity : Double(average ?? "") ?? 0
        #expect(decibels >= 35, "PSNR against the source \(average ?? "none"): \(psnr.stderr.suffix(400))")
    }
}
