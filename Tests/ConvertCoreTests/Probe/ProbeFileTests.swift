import Foundation
import Testing

@testable import ConvertCore
@testable import ConvertMedia

@Suite("Media probe: tracks, metadata and broken files")
struct ProbeFileTests {
    @Test("iPhone-like MOV: every track named, rotation, language and location")
    func iPhoneLike() async throws {
        let info = try await MediaProbe.probe(path: Fixtures.generated("iphone-like.mov"))
        #expect(info.format == "mov")
        let container = try #require(info.container)
        #expect(container.location == "+48.8583+002.2945/")
        #expect(container.tracks.map(\.kind) == [.video, .audio, .audio, .data])
        #expect(container.tracks.map(\.codec) == ["hevc", "aac", "aac", "tmcd"])
        #expect(container.tracks.map(\.handler) == ["vide", "soun", "soun", "tmcd"])
        #expect(container.tracks.map(\.trackID) == [1, 2, 3, 4])
        #expect(container.tracks[3].decoderAvailable == false)
        let video = try #require(container.tracks[0].video)
        // Stored 320x180, turned 90° clockwise: displayed 180x320.
        #expect(video.width == 180 && video.height == 320 && video.rotation == 90 && !video.mirrored)
        #expect(video.frameRate == 25)
        #expect(video.bitDepth == 8 && video.pixelFormat == "yuv420p")
        #expect(
            container.tracks[1].audio
                == AudioTrackInfo(channels: 2, channelLayout: "stereo", sampleRate: 48000, sampleFormat: "fltp"))
        #expect(container.tracks[2].audio?.channels == 1 && container.tracks[2].audio?.sampleRate == 44100)
        #expect(container.tracks[2].language == "fra")
        #expect(container.tracks[1].language == nil)
        let duration = try #require(container.durationSeconds)
        #expect(abs(duration - 0.4) < 0.05)
    }

    @Test("real iPhone clip: mebx tracks are named although FFmpeg has no codec for them")
    func iPhoneMetadataTracks() async throws {
        let info = try await MediaProbe.probe(path: Fixtures.path("video/dolbyVision-hdr.MOV"))
        let container = try #require(info.container)
        #expect(container.tracks.map(\.codec) == ["hevc", "aac", "mebx", "mebx", "mebx"])
        #expect(
            container.tracks.suffix(3).allSatisfy { $0.kind == .data && !$0.decoderAvailable && $0.handler == "meta" })
        #expect(container.location == "+51.5334-000.1255+026.756/")
        let video = try #require(container.tracks.first?.video)
        #expect(video.rotation == 90)
        #expect(video.color == ColorDescription(primaries: .bt2020, transfer: .hlg, matrix: .bt2020nc, range: .limited))
        #expect(video.bitDepth == 10)
    }

    @Test("mdcv and clli boxes give the mastering display and light levels")
    func masteringDisplay() async throws {
        let info = try await MediaProbe.probe(path: Fixtures.path("video/sample_with_colr_mdcv_and_clli.mp4"))
        let video = try #require(info.container?.videoTracks.first?.video)
        #expect(video.contentLight == ContentLightLevel(maxCLL: 1100, maxFALL: 180))
        let display = try #require(video.masteringDisplay)
        // ffprobe: red 33899/50000, white 15634/50000 16449/50000, luminance 0..1000 cd/m².
        #expect(abs((display.red?.x ?? 0) - 0.67798) < 0.0001)
        #expect(abs((display.whitePoint?.y ?? 0) - 0.32898) < 0.0001)
        #expect(display.maxLuminance == 1000 && display.minLuminance == 0)
        #expect(info.container?.warnings.isEmpty == true, "box and FFmpeg values agree")
    }

    @Test("rotation and mirroring from the display matrix")
    func mirrored() async throws {
        let info = try await MediaProbe.probe(path: Fixtures.path("video/sample_rotate_and_reflect.mp4"))
        let video = try #require(info.container?.videoTracks.first?.video)
        #expect(video.rotation == 90 && video.mirrored)
        let plain = try await MediaProbe.probe(path: Fixtures.path("video/sample.mp4"))
        #expect(plain.container?.videoTracks.first?.video?.rotation == 0)
        #expect(plain.container?.location == "+40.680-074.500/")
    }

    @Test(
        "containers are named by content",
        arguments: [
            ("generated/sdr-h264.mkv", "matroska"), ("generated/sdr-vp9.webm", "webm"),
            ("generated/sdr-mpeg4.avi", "avi"),
            ("generated/sdr-h264.ts", "mpegts"), ("generated/pq-hevc.mp4", "mp4"), ("generated/hlg-hevc.mov", "mov"),
            ("video/roadtrip-vp92-10bit.webm", "matroska"),
        ])
    func containerFormats(file: String, format: String) async throws {
        let info = try await MediaProbe.probe(path: Fixtures.media.appendingPathComponent(file).path)
        #expect(info.format == format)
        #expect(info.container?.tracks.isEmpty == false)
        #expect(info.byteCount == (try FileManager.default.attributesOfItem(atPath: info.path)[.size] as? Int))
    }

    @Test("VVC, which FFmpeg 5.1 cannot decode, is still described and named vvc1")
    func undecodableCodec() async throws {
        let info = try await MediaProbe.probe(path: Fixtures.path("broken/sample_vvc.mp4"))
        let track = try #require(info.container?.tracks.first)
        #expect(track.codec == "vvc1")
        #expect(!track.decoderAvailable)
        #expect(track.kind == .video)
        #expect(track.video?.width == 320 && track.video?.height == 180)
        #expect(track.video?.pixelFormat == nil)
    }

    @Test("broken/box.mp4 (mp3 in MP4, a damaged H.264 slice) is still described")
    func brokenBox() async throws {
        let info = try await MediaProbe.probe(path: Fixtures.path("broken/box.mp4"))
        #expect(info.container?.tracks.map(\.codec) == ["mp3", "h264"])
    }

    @Test(
        "images are identified by content and have no container part",
        arguments: [
            ("generated/jpeg-named.heic", "jpeg"), ("photos/tokyo.jpg", "jpeg"),
            ("generated/broken/corrupted.jpg", "jpeg"),
            ("photos/pug.heic", "heic"), ("photos/cat.hif", "heic"),
        ])
    func images(file: String, format: String) async throws {
        let info = try await MediaProbe.probe(path: Fixtures.media.appendingPathComponent(file).path)
        #expect(info.format == format)
        #expect(info.isImage)
        #expect(info.container == nil)
        #expect(info.byteCount > 0)
    }

    @Test("an MP4 cut before its movie box is input.truncated")
    func truncatedBeforeMovie() async throws {
        let error = await expectConvertError(.inputTruncated) {
            try await MediaProbe.probe(path: Fixtures.generated("truncated-moov.mp4"))
        }
        #expect(error?.category == .input)
        #expect(error?.path == Fixtures.generated("truncated-moov.mp4"))
    }

    @Test("a real clip truncated at test time: header kept gives a warning, header lost gives input.truncated")
    func truncatedAtTestTime() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let whole = try Data(contentsOf: URL(fileURLWithPath: Fixtures.path("video/hlg10-color-test.mp4")))
        for fraction in [0.1, 0.5, 0.9] {
            let cut = directory.appendingPathComponent("cut-\(fraction).mp4")
            try whole.prefix(Int(Double(whole.count) * fraction)).write(to: cut)
            do {
                let info = try await MediaProbe.probe(path: cut.path)
                #expect(info.container?.warnings.contains { $0.contains("cut short") } == true)
            } catch {
                #expect(error.code == .inputTruncated)
            }
        }
        let mdat = try await MediaProbe.probe(path: Fixtures.generated("truncated-mdat.mp4"))
        #expect(mdat.container?.warnings.first == "the file is cut short: its 'mdat' box runs past the end")
    }

    @Test(
        "files that are not media give input errors",
        arguments: [
            ("text", Array("This is a text file, not media.\n".utf8), ConvertError.Code.inputUnrecognised),
            ("random", (0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 2_654_435_761 >> 7) }, .inputUnrecognised),
            ("empty", [], .inputEmpty),
            ("ftyp-only", BoxBytes.ftyp("isom"), .inputTruncated),
            (
                "hostile-moov",
                BoxBytes.ftyp("isom") + BoxBytes.box("moov", BoxBytes.header("trak", size: 0xFFFF_FFF0)), .inputCorrupt
            ),
        ])
    func notMedia(name: String, bytes: [UInt8], code: ConvertError.Code) async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("\(name).mp4").path
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let error = await expectConvertError(code) { try await MediaProbe.probe(path: path) }
        #expect(error?.category == .input)
        #expect(error?.message.contains(path) == true)
    }

    @Test("the generated text file is not media, whatever FFmpeg's tty demuxer thinks")
    func textFile() async throws {
        await expectConvertError(.inputUnrecognised) {
            try await MediaProbe.probe(path: Fixtures.generated("not-media.txt"))
        }
    }

    @Test("missing files and directories")
    func missingAndDirectory() async throws {
        await expectConvertError(.inputMissing) { try await MediaProbe.probe(path: "/nonexistent/clip.mp4") }
        await expectConvertError(.inputNotAFile) { try await MediaProbe.probe(path: Fixtures.media.path) }
    }

    @Test("a FIFO and a device are refused without blocking")
    func specialFiles() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let fifo = directory.appendingPathComponent("pipe.mp4").path
        try #require(mkfifo(fifo, 0o600) == 0)
        for path in [fifo, "/dev/zero"] {
            await expectConvertError(.inputNotAFile) { try await MediaProbe.probe(path: path) }
        }
    }

    @Test("MediaInfo survives a JSON round trip with its documented field names")
    func jsonRoundTrip() async throws {
        let info = try await MediaProbe.probe(path: Fixtures.path("video/dolbyVision-hdr.MOV"))
        let data = try JSONEncoder().encode(info)
        #expect(try JSONDecoder().decode(MediaInfo.self, from: data) == info)
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(Set(object.keys) == ["path", "format", "formatName", "byteCount", "container", "location"])
        let container = try #require(object["container"] as? [String: Any])
        let tracks = try #require(container["tracks"] as? [[String: Any]])
        let video = try #require(tracks.first?["video"] as? [String: Any])
        let range = try #require(video["dynamicRange"] as? [String: Any])
        #expect(range["class"] as? String == "dolbyVision")
        #expect((range["dolbyVision"] as? [String: Any])?["baseLayerCompatibility"] as? String == "hlg")
        #expect((video["colour"] as? [String: Any])?["transfer"] as? String == "arib-std-b67")
        #expect(container["warnings"] == nil, "empty warnings are omitted")
    }
}

@Suite("Media probe: HDR10 metadata carried only in the bitstream")
struct ProbeBitstreamHDRTests {
    @Test(
        "x265's mastering display and MaxCLL SEI are read from the first frame",
        arguments: [
            "pq-hevc.mp4", "pq-hevc.mkv", "dvwc-p8.mp4",
        ])
    func firstFrame(file: String) async throws {
        let info = try await MediaProbe.probe(path: Fixtures.generated(file))
        let video = try #require(info.container?.videoTracks.first?.video)
        // The generator's x265-params: G(13250,34500) B(7500,3000) R(34000,16000) WP(15635,16450)
        // L(10000000,1), max-cll=1000,400.
        #expect(video.contentLight == ContentLightLevel(maxCLL: 1000, maxFALL: 400))
        let display = try #require(video.masteringDisplay)
        #expect(
            display.approximatelyEqual(
                MasteringDisplay(
                    red: Chromaticity(x: 0.68, y: 0.32), green: Chromaticity(x: 0.265, y: 0.69),
                    blue: Chromaticity(x: 0.15, y: 0.06), whitePoint: Chromaticity(x: 0.3127, y: 0.329),
                    minLuminance: 0.0001, maxLuminance: 1000)))
    }

    @Test("mis-scaled mastering luminance is reported, not hidden")
    func implausibleLuminance() async throws {
        let info = try await MediaProbe.probe(path: Fixtures.path("video/hdr10-video-with-sdr-container.mp4"))
        #expect(info.container?.videoTracks.first?.video?.contentLight == ContentLightLevel(maxCLL: 1000, maxFALL: 200))
        #expect(info.container?.warnings.contains { $0.contains("implausible") } == true)
    }

    @Test("SDR and HLG clips report no HDR10 static metadata", arguments: ["hlg-hevc.mov", "iphone-like.mov"])
    func notDecoded(file: String) async throws {
        let info = try await MediaProbe.probe(path: Fixtures.generated(file))
        let video = try #require(info.container?.videoTracks.first?.video)
        #expect(video.masteringDisplay == nil && video.contentLight == nil)
    }
}
