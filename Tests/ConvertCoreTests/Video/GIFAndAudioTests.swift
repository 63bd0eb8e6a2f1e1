import Foundation
import Testing

@testable import ConvertCore
@testable import ConvertMedia

@Suite("GIF export and audio extraction")
struct GIFAndAudioTests {
    @Test("A GIF clip has the asked length, frame rate and width, and a bounded size")
    func gif() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let result = try await VideoConverter.gif(
            GIFRequest(
                input: Fixtures.path("video/motion.mov"), start: 2, duration: 2,
                framesPerSecond: 10, width: 320,
                output: OutputLocation(directory: directory.path))
        ).result()
        let output = try outputPath(result)
        #expect(output.hasSuffix("motion.gif"))
        let probe = try MediaTool.probe(output)
        #expect(probe.video?.codecName == "gif")
        #expect(probe.video?.int("width") == 320)
        #expect(probe.video?.int("height") == 180)
        let frames = try MediaTool.videoFrameTimes(output)
        #expect((19...21).contains(frames.count))
        #expect(abs((probe.duration ?? 0) - 2) < 0.15)
        #expect(try #require(result.outputs.first).byteCount < 2_000_000)
        #expect(try MediaTool.decodeErrors(output) == "")
    }

    @Test("A portrait clip's GIF is upright, and HDR is tone mapped")
    func gifRotatedHDR() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let result = try await VideoConverter.gif(
            GIFRequest(
                input: Fixtures.path("video/dolbyVision-hdr.MOV"), width: 180,
                output: OutputLocation(directory: directory.path))
        ).result()
        let output = try outputPath(result)
        let probe = try MediaTool.probe(output)
        #expect(probe.video?.int("width") == 180)
        #expect(probe.video?.int("height") == 320)
        let stats = try MediaTool.frameStatistics(output)
        #expect(stats.saturation > 4)
    }

    @Test("GIF requests out of range are refused")
    func gifLimits() async throws {
        let input = Fixtures.path("video/motion.mov")
        let requests: [(GIFRequest, ConvertError.Code)] = [
            (GIFRequest(input: input, duration: 31), .requestDuration),
            (GIFRequest(input: input, framesPerSecond: 60), .requestFps),
            (GIFRequest(input: input, width: 4000), .requestWidth),
            (GIFRequest(input: input, start: 100), .requestStart),
        ]
        for (request, code) in requests {
            let error = await expectConvertError(code) { try await VideoConverter.gif(request).result() }
            #expect(error?.category == .request)
        }
    }

    @Test("AAC sound goes into .m4a without re-encoding: the packets are identical")
    func m4aCopy() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let input = Fixtures.path("video/motion.mov")
        let result = try await VideoConverter.extractAudio(
            AudioExtractionRequest(
                input: input,
                output: OutputLocation(directory: directory.path))
        ).result()
        #expect(result.notes.messages == ["audio copied without re-encoding", "location removed"])
        let output = try outputPath(result)
        func packetHashes(_ path: String) throws -> [String] {
            let run = try MediaTool.run(
                "ffmpeg",
                [
                    "-nostdin", "-v", "error", "-i", path, "-map", "0:a:0", "-c", "copy",
                    "-f", "framemd5", "-",
                ])
            return String(decoding: run.output, as: UTF8.self).split(separator: "\n").filter { !$0.hasPrefix("#") }
                .compactMap { $0.split(separator: ",").last.map { String($0).trimmingCharacters(in: .whitespaces) } }
        }
        let source = try packetHashes(input)
        #expect(source.count > 300)
        #expect(try packetHashes(output) == source)
        #expect(try MediaTool.probe(output).streams.map(\.codecName) == ["aac"])
    }

    @Test(
        "Other audio formats are encoded",
        arguments: [(AudioFormat.mp3, "mp3"), (.opus, "opus"), (.wav, "pcm_s16le"), (.flac, "flac")])
    func encoded(_ format: AudioFormat, _ codec: String) async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let result = try await VideoConverter.extractAudio(
            AudioExtractionRequest(
                input: Fixtures.path("video/motion.mov"), format: format,
                output: OutputLocation(directory: directory.path))
        ).result()
        let output = try outputPath(result)
        #expect(output.hasSuffix(".\(format.fileExtension)"))
        let probe = try MediaTool.probe(output)
        #expect(probe.streams.map(\.codecName) == [codec])
        #expect(abs((probe.duration ?? 0) - 8.03) < 0.1)
        #expect(try MediaTool.decodeErrors(output) == "")
    }

    @Test("A video without sound has nothing to extract")
    func noAudio() async throws {
        await expectConvertError(.inputNoAudio) {
            try await VideoConverter.extractAudio(AudioExtractionRequest(input: Fixtures.path("video/bikes.mp4")))
                .result()
        }
    }
}

@Suite("Video capabilities")
struct VideoCapabilitiesTests {
    @Test("The software encoders and tone mapping the engine relies on are detected; hardware is marked as such")
    func detected() {
        let capabilities = VideoConverter.capabilities()
        #expect(capabilities.canToneMap)
        let software = capabilities.encoders.filter { !$0.isHardware }
        #expect(
            Set(software.map(\.name)) == [
                "libx264", "libx265", "libvpx-vp9", "libsvtav1", "aac", "libopus", "libmp3lame", "flac", "gif",
            ])
        #expect(software.filter { !$0.isUsable }.isEmpty)
        let hardware = capabilities.encoders.filter(\.isHardware).map(\.name)
        #expect(hardware.contains("h264_vaapi"))
        #expect(hardware.contains("h264_nvenc"))
    }
}
