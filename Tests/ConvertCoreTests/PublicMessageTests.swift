import ConvertMedia
import Foundation
import Testing

/// Issue #53: an app that shows ``ConvertError/publicMessage`` to someone else (a server's
/// uploader) shows neither its folders nor the libraries it is built on. Real failures, from
/// inputs in a folder whose name has spaces, through the public API.
@Suite("Error messages safe to show anyone")
struct PublicMessageTests {
    /// The error a job ended with.
    static func failure(of job: ConversionJob) async -> ConvertError? {
        do throws(ConvertError) {
            _ = try await job.result()
            return nil
        } catch {
            return error
        }
    }

    /// A folder under the temporary one whose path has spaces: "…/private uploads/user 42".
    static func uploads() throws -> URL {
        let folder = try Fixtures.temporaryDirectory().appendingPathComponent("private uploads/user 42")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }

    /// What failing on each input gives: a damaged photo, a text file named as a photo, a file
    /// that is not there, a video in a codec FFmpeg 5.1 cannot decode, a target too small.
    static func failures(in folder: URL) async throws -> [ConvertError] {
        let damaged = folder.appendingPathComponent("holiday photo.jpg")
        try Data(contentsOf: URL(fileURLWithPath: Fixtures.path("photos/tokyo.jpg"))).prefix(600).write(to: damaged)
        let text = folder.appendingPathComponent("notes.heic")
        try Data("not a picture".utf8).write(to: text)
        let vvc = folder.appendingPathComponent("clip.mp4")
        try FileManager.default.copyItem(atPath: Fixtures.path("broken/sample_vvc.mp4"), toPath: vvc.path)
        let clip = folder.appendingPathComponent("bikes.mp4")
        try FileManager.default.copyItem(atPath: Fixtures.path("video/bikes.mp4"), toPath: clip.path)
        let output = OutputLocation(directory: folder.path)
        var jobs: [ConversionJob] = [damaged.path, text.path, folder.appendingPathComponent("gone.png").path].map {
            PhotoConverter.convert(PhotoRequest(inputPath: $0, format: .png, outputDirectory: folder.path))
        }
        jobs.append(VideoConverter.convert(.sendToWindows(vvc.path, output: output)))
        jobs.append(VideoConverter.compress(VideoCompressRequest(input: clip.path, targetBytes: 2_000, output: output)))
        var errors: [ConvertError] = []
        for job in jobs { if let error = await failure(of: job) { errors.append(error) } }
        return errors
    }

    @Test("real failures: the message names the folder, the public message neither it nor a library")
    func realFailures() async throws {
        let folder = try Self.uploads()
        let top = folder.deletingLastPathComponent().deletingLastPathComponent()
        defer { try? FileManager.default.removeItem(at: top) }
        let errors = try await Self.failures(in: folder)
        #expect(errors.count == 5)
        for error in errors {
            #expect(error.path != nil, "\(error.key) names its file")
            #expect(error.message.contains("private uploads"), "\(error.key): \(error.message)")
            let shown = error.publicMessage
            #expect(!shown.contains("/"), "\(error.key): \(shown)")
            #expect(!shown.contains("uploads") && !shown.contains("user 42"), "\(error.key): \(shown)")
            for name in ["FFmpeg", "libheif", "libjpeg", "TurboJPEG", "libde265"] {
                #expect(!shown.contains(name), "\(error.key): \(shown)")
            }
            #expect(shown.first?.isUppercase == true, "\(error.key): \(shown)")
        }
        let codec = try #require(errors.first { $0.message.contains("FFmpeg") })
        #expect(codec.publicMessage.contains("offconvert cannot decode"), "\(codec.publicMessage)")
    }

    @Test("a second path in a message, spaces and all, is 'a file'; the sentence's end is kept")
    func otherPaths() {
        let error = ConvertError(
            code: .deviceFull,
            message: "/srv/in box/a.mov was not written: /srv/out box/my clip.mp4 has no room.",
            path: "/srv/in box/a.mov")
        #expect(error.publicMessage == "The file was not written: a file has no room.")
        let ending = ConvertError(code: .inputCorrupt, message: "Could not read (see /var/x y/z.log).")
        #expect(ending.publicMessage == "Could not read (see a file).")
    }
}
