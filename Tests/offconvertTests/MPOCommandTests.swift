import Foundation
import Testing

/// Stereo photos (MPO, CIPA DC-007): `info` counts both pictures, a conversion says it keeps the
/// left eye only, `--all-images` writes both. Checked against exiftool (which reads the MPF index
/// and extracts the right eye) and djpeg (which decodes the first picture of the file).
@Suite("MPO stereo photos", .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/exiftool")))
struct MPOCommandTests {
    @Test(
        "info says 2 images (stereo); convert keeps the left eye with a note; --all-images writes both eyes as exiftool and ffmpeg read them"
    )
    func stereo() async throws {
        let folder = try UserFolder()
        defer { folder.remove() }
        try folder.add("generated/mpo/stereo.mpo", as: "3d photo.mpo")
        let info = try await folder.run(["info", "3d photo.mpo"])
        #expect(info.stdout.contains("2 images (stereo)"), "\(info.stdout)")
        let json = try await folder.run(["info", "--json", "3d photo.mpo"])
        #expect(
            json.stdout.contains("\"imageCount\":2") && json.stdout.contains("\"multiPicture\":\"stereo\""),
            "\(json.stdout)")

        let one = try await folder.run(["convert", "3d photo.mpo", "--to", "png", "-o", "one"])
        #expect(one.status == 0, "\(one.stderr)")
        #expect(
            one.stderr.contains(
                "a stereo (MPO) photo: only the first (left-eye) picture is kept; --all-images writes both"),
            "\(one.stderr)")
        #expect(folder.files().filter { $0.hasPrefix("one/") } == ["one/3d photo.png"])

        let both = try await folder.run(["convert", "3d photo.mpo", "--to", "png", "--all-images", "-o", "both"])
        #expect(both.status == 0, "\(both.stderr)")
        #expect(!both.stderr.contains("only the first"), "\(both.stderr)")
        #expect(folder.files().filter { $0.hasPrefix("both/") } == ["both/3d photo-1.png", "both/3d photo-2.png"])

        // The left eye as djpeg decodes the file, the right as exiftool finds it through the MPF index.
        let mpo = folder.url.appendingPathComponent("3d photo.mpo").path
        let (left, right) = (
            folder.url.appendingPathComponent("left.ppm").path, folder.url.appendingPathComponent("right.ppm").path
        )
        _ = try CLIRunner.toolOutput(
            "/bin/sh",
            [
                "-c", "djpeg -outfile \"$1\" \"$0\" && exiftool -b -MPImage2 \"$0\" | djpeg -outfile \"$2\"", mpo, left,
                right,
            ])
        let firstEye = try await DamagedPhotoCommandTests.psnr(
            folder.url.appendingPathComponent("both/3d photo-1.png").path, ["-i", left])
        let secondEye = try await DamagedPhotoCommandTests.psnr(
            folder.url.appendingPathComponent("both/3d photo-2.png").path, ["-i", right])
        #expect(firstEye == .infinity && secondEye == .infinity, "\(firstEye) \(secondEye)")
        // The two eyes differ (the right one is shifted): the second output is not the first again.
        let crossed = try await DamagedPhotoCommandTests.psnr(
            folder.url.appendingPathComponent("both/3d photo-2.png").path, ["-i", left])
        #expect(crossed < 20, "\(crossed)")
    }
}
