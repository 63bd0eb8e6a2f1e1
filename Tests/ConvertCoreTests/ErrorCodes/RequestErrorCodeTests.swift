import Foundation
import Testing

@testable import ConvertCore
@testable import ConvertMedia

/// Issue #53: every request an app can get wrong through the public API fails with its own code
/// and a message that says what to change, before anything is written.
@Suite("Error codes: requests an app can get wrong")
struct RequestErrorCodeTests {

    @Test("a photo request out of range: quality, frame, size target and its format, a read-only output format")
    func photo() async throws {
        let folder = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = Fixtures.path("photos/tokyo.jpg")
        func request(_ format: PhotoFormat, change: (inout PhotoRequest) -> Void = { _ in }) -> PhotoRequest {
            var request = PhotoRequest(inputPath: input, format: format, outputDirectory: folder.path)
            change(&request)
            return request
        }
        let cases: [(PhotoRequest, ConvertError.Code, String)] = [
            (request(.jpeg) { $0.quality = 0 }, .requestQuality, "between 1 and 100"),
            (request(.webp) { $0.quality = 101 }, .requestQuality, "between 1 and 100"),
            (request(.png) { $0.frame = 0 }, .requestFrame, "counted from 1"),
            (request(.jpeg) { $0.targetByteCount = 0 }, .requestTargetSize, "positive"),
            (request(.png) { $0.targetByteCount = 50_000 }, .requestTargetFormat, "JPEG and WebP"),
            (request(.gif), .outputUnsupported, "GIF photos cannot be written"),
            (request(.tiff), .outputUnsupported, "TIFF photos cannot be written"),
        ]
        for (request, code, words) in cases {
            await ErrorCodeMessages.expectFailure(PhotoConverter.convert(request), code, saying: words, folder: folder)
        }
    }

    @Test("images-to-pdf: no images, a margin that leaves no room, a largest size under 1 pixel")
    func pdf() async throws {
        let folder = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let pdf = folder.appendingPathComponent("album.pdf").path
        let photos = [Fixtures.path("photos/tokyo.jpg")]
        let cases: [(PDFRequest, ConvertError.Code, String)] = [
            (PDFRequest(inputPaths: [], outputPath: pdf), .requestNoInputs, "No images"),
            (PDFRequest(inputPaths: photos, outputPath: pdf, page: .a4, margin: 400), .requestMargin, "no room"),
            (PDFRequest(inputPaths: photos, outputPath: pdf, page: .letter, margin: -1), .requestMargin, "no room"),
            (PDFRequest(inputPaths: photos, outputPath: pdf, maxLongEdge: 0), .requestMaxSize, "at least 1 pixel"),
        ]
        for (request, code, words) in cases {
            await ErrorCodeMessages.expectFailure(PDFAlbum.make(request), code, saying: words, folder: folder)
        }
    }

    @Test("a video request: a preset for VP9, a size target of 0 bytes")
    func video() async throws {
        let folder = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = Fixtures.path("video/bikes.mp4")
        var preset = VideoRequest(
            input: input, container: .webm, codec: .vp9, output: OutputLocation(directory: folder.path))
        preset.preset = .fast
        await ErrorCodeMessages.expectFailure(
            VideoConverter.convert(preset), .requestPreset, saying: "applies to H.264 and HEVC", folder: folder)
        let compress = VideoCompressRequest(
            input: input, targetBytes: 0, output: OutputLocation(directory: folder.path))
        await ErrorCodeMessages.expectFailure(
            VideoConverter.compress(compress), .requestTarget, saying: "more than 0 bytes", folder: folder)
    }

    @Test("extract-audio: every track into an .mp3, a third track of two, a bitrate for FLAC")
    func audio() async throws {
        let folder = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        // Two AAC tracks (English stereo, French mono).
        let input = Fixtures.generated("iphone-like.mov")
        func request(_ format: AudioFormat, change: (inout AudioExtractionRequest) -> Void) -> AudioExtractionRequest {
            var request = AudioExtractionRequest(
                input: input, format: format, output: OutputLocation(directory: folder.path))
            change(&request)
            return request
        }
        let cases: [(AudioExtractionRequest, ConvertError.Code, String)] = [
            (request(.mp3) { $0.audioTrack = .all }, .requestAllAudio, "one .m4a"),
            (
                request(.m4a) { $0.audioTrack = .track(3) }, .requestAudioTrack,
                "2 audio tracks, so there is no audio track 3"
            ),
            (request(.flac) { $0.bitRate = 128_000 }, .requestBitrate, "lossless"),
        ]
        for (request, code, words) in cases {
            await ErrorCodeMessages.expectFailure(
                VideoConverter.extractAudio(request), code, saying: words, folder: folder)
        }
    }

    @Test("a motion photo's video asked for without an output path, or when its video is not there")
    func motion() async throws {
        let folder = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let noPath = MotionPhotoRequest(
            input: Fixtures.generated("motion-google.MP.jpg"), output: OutputLocation(directory: folder.path))
        await ErrorCodeMessages.expectFailure(
            MotionPhotoEditor.extractVideo(noPath), .outputMissing, saying: "No output path", folder: folder)
        // The XMP points at 50000 bytes of video that the file does not have.
        let pointer = MotionPhotoRequest(
            input: Fixtures.generated("motion-pointer-only.MP.jpg"),
            output: OutputLocation(path: folder.appendingPathComponent("clip.mp4").path))
        await ErrorCodeMessages.expectFailure(
            MotionPhotoEditor.extractVideo(pointer), .motionMissing, saying: "has no usable video", folder: folder)
    }

    @Test("every numbered name taken: output.no-name, and the folder keeps only what was there")
    func noFreeName() async throws {
        let folder = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        // tokyo.png, tokyo (2).png ... tokyo (10000).png: every name the namer tries.
        for number in 1...OutputNamer.maximumAttempts {
            let name = number == 1 ? "tokyo.png" : "tokyo (\(number)).png"
            #expect(FileManager.default.createFile(atPath: folder.appendingPathComponent(name).path, contents: nil))
        }
        let request = PhotoRequest(
            inputPath: Fixtures.path("photos/tokyo.jpg"), format: .png, outputDirectory: folder.path)
        let error = await expectConvertError(.outputNoName) { try await PhotoConverter.convert(request).result() }
        #expect(error?.message.contains("free name") == true, "\(error?.message ?? "")")
        ErrorCodeMessages.expectShowable(error)
        #expect(fileNames(in: folder).count == OutputNamer.maximumAttempts)
    }
}
