import Foundation
import Testing

@testable import ConvertCore
@testable import ConvertMedia
@testable import FFmpegLayer

@Suite("HDR and Dolby Vision")
struct VideoToneMapTests {
    /// The ffmpeg CLI recipe the tone-mapped frames are compared with.
    static let reference =
        "zscale=t=linear:npl=100,format=gbrpf32le,zscale=p=bt709,tonemap=hable:desat=0,"
        + "zscale=t=bt709:m=bt709:r=tv,format=yuv420p"

    @Test(
        "HDR sources sent to Windows are tone mapped to BT.709, matching the ffmpeg CLI recipe",
        arguments: [
            "video/dolbyVision-hdr.MOV", "video/hlg10-color-test.mp4", "video/hdr10-video-with-sdr-container.mp4",
        ])
    func toneMapped(_ fixture: String) async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let input = Fixtures.path(fixture)
        let result = try await VideoConverter.convert(
            .sendToWindows(input, output: OutputLocation(directory: directory.path))
        ).result()
        #expect(result.notes.messages.contains { $0.contains("tone mapped to SDR BT.709") })
        let output = try outputPath(result)
        let probe = try MediaTool.probe(output)
        let video = try #require(probe.video)
        #expect(video.codecName == "h264")
        #expect(video.string("pix_fmt") == "yuv420p")
        #expect(video.string("color_transfer") == "bt709")
        #expect(video.string("color_primaries") == "bt709")
        #expect(video.string("color_space") == "bt709")
        #expect(try MediaTool.decodeErrors(output) == "")

        let ours = try MediaTool.frameStatistics(output)
        let reference = try MediaTool.frameStatistics(input, filter: Self.reference)
        let relabelled = try MediaTool.frameStatistics(input, filter: "format=yuv420p")
        // Sane: not black, not clipped to white, not flat grey.
        #expect(ours.luma > 40 && ours.luma < 215)
        #expect(ours.saturation > 3)
        // Close to the reference (x264 at CRF 23 moves the means by well under these margins)...
        #expect(abs(ours.luma - reference.luma) < 4)
        #expect(abs(ours.saturation - reference.saturation) < max(1.5, reference.saturation * 0.1))
        // ...and clearly not a mere relabel of the HDR pixels, which looks washed out.
        #expect(ours.saturation > relabelled.saturation * 1.5)
    }

    @Test("HEVC and AV1 targets keep HDR10 with its colour tags and static metadata")
    func keepsHDR() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let input = Fixtures.path("video/sample_with_colr_mdcv_and_clli.mp4")
        for (container, codec) in [(VideoContainer.mp4, VideoCodec.hevc), (.mkv, .av1)] {
            let result = try await VideoConverter.convert(
                VideoRequest(
                    input: input, container: container, codec: codec, maxHeight: 240,
                    output: OutputLocation(directory: directory.path))
            ).result()
            #expect(result.notes.messages.contains("HDR kept"))
            let video = try #require(try MediaTool.probe(try outputPath(result)).video)
            #expect(video.codecName == codec.rawValue)
            #expect(video.string("pix_fmt") == "yuv420p10le")
            #expect(video.string("color_transfer") == "smpte2084")
            #expect(video.string("color_primaries") == "bt2020")
            #expect(video.sideDataTypes.contains("Mastering display metadata"))
            #expect(video.sideDataTypes.contains("Content light level metadata"))
            #expect(video.int("height") == 240)
            let light = (video.fields["side_data_list"] as? [[String: Any]])?
                .first { $0["side_data_type"] as? String == "Content light level metadata" }
            #expect((light?["max_content"] as? NSNumber)?.intValue == 1100)
            if codec == .hevc {
                // In the bitstream too (SEI), not only in the container.
                let frame = try MediaTool.run(
                    "ffprobe",
                    [
                        "-v", "error", "-select_streams", "v", "-read_intervals", "%+#1",
                        "-show_entries", "frame_side_data=side_data_type", "-of", "csv",
                        try outputPath(result),
                    ])
                #expect(String(decoding: frame.output, as: UTF8.self).contains("Mastering display metadata"))
            }
        }
    }

    @Test("HLG Dolby Vision to HEVC keeps HLG and drops the Dolby Vision signalling")
    func keepsHLG() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let result = try await VideoConverter.convert(
            VideoRequest(
                input: Fixtures.path("video/dolbyVision-hdr.MOV"), container: .mp4,
                codec: .hevc, crf: 30, output: OutputLocation(directory: directory.path))
        ).result()
        let video = try #require(try MediaTool.probe(try outputPath(result)).video)
        #expect(video.string("color_transfer") == "arib-std-b67")
        #expect(video.string("codec_tag_string") == "hvc1")
        #expect(!video.sideDataTypes.contains("DOVI configuration record"))
        #expect(result.notes.messages.contains { $0.contains("Dolby Vision metadata dropped") })
    }

    @Test("Dolby Vision profile 5 (no compatible base layer) is refused with a reason, and nothing is written")
    func profile5Refused() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let job = VideoConverter.convert(
            .sendToWindows(Fixtures.generated("video-dv-p5.mp4"), output: OutputLocation(directory: directory.path)))
        let error = await expectConvertError(.unsupportedDolbyVisionProfile) { try await job.result() }
        #expect(error?.category == .unsupported)
        #expect(error?.message.contains("profile 5") == true)
        #expect(error?.message.contains("no HDR10, HLG or SDR base layer") == true)
        #expect(fileNames(in: directory).isEmpty)
    }

    @Test("The dynamic range classification reads colour transfer and the Dolby Vision record")
    func classification() throws {
        func classify(_ path: String) throws -> ToneMapDecision.Source {
            let demuxer = try Demuxer(path: path)
            return ToneMapDecision.classify(try #require(MediaSnapshot(demuxer).video))
        }
        #expect(try classify(Fixtures.path("video/dolbyVision-hdr.MOV")) == .hlg)
        #expect(try classify(Fixtures.path("video/regular.mkv")) == .pq)
        #expect(try classify(Fixtures.path("video/hlg10-color-test.mp4")) == .hlg)
        #expect(try classify(Fixtures.path("video/hdr10-video-with-sdr-container.mp4")) == .pq)
        #expect(try classify(Fixtures.path("video/sample.mp4")) == .sdr)
        #expect(try classify(Fixtures.generated("video-dv-p82.mp4")) == .sdr)
        #expect(
            try classify(Fixtures.generated("video-dv-p5.mp4")) == .dolbyVisionWithoutBase(profile: 5, compatibility: 0)
        )
    }

    @Test("An SDR Dolby Vision base (8.2) is re-encoded without tone mapping")
    func sdrBaseNotToneMapped() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let result = try await VideoConverter.convert(
            .sendToWindows(
                Fixtures.generated("video-dv-p82.mp4"),
                output: OutputLocation(directory: directory.path))
        ).result()
        #expect(!result.notes.messages.contains { $0.contains("tone mapped") })
        let video = try #require(try MediaTool.probe(try outputPath(result)).video)
        #expect(video.codecName == "h264")
        #expect(video.string("pix_fmt") == "yuv420p")
        // The fixture's stream tags still say PQ; an SDR output must not repeat that.
        #expect(video.string("color_transfer") == "bt709")
    }
}
