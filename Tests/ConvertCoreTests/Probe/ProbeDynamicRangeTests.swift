import Foundation
import Testing

@testable import ConvertCore
@testable import ConvertMedia

/// The expected dynamic-range class of every video in TestMedia, verified with ffprobe
/// (`-show_entries stream=color_transfer:stream_side_data`): Dolby Vision rows match ffprobe's
/// "DOVI configuration record" (profile, level, compatibility id), the others its color_transfer.
struct DynamicRangeCase: CustomTestStringConvertible, Sendable {
    let file: String
    let expected: String
    var testDescription: String { file }

    /// `sdr`, `hdr10`, `hlg`, or `dv P.C L<level> <layers>` for Dolby Vision.
    static func key(_ range: DynamicRange) -> String {
        guard let record = range.dolbyVision else { return range.className }
        return "dv \(record.name) L\(record.level) \(record.layerSummary)"
    }

    static let all: [DynamicRangeCase] = [
        .init(file: "video/bikes.mp4", expected: "sdr"),
        .init(file: "video/bt601.mov", expected: "sdr"),
        .init(file: "video/dolbyVision-hdr.MOV", expected: "dv 8.4 L2 RPU+BL"),
        .init(file: "video/h265_with_metadata_track.mp4", expected: "sdr"),
        .init(file: "video/hdr10-video-with-sdr-container.mp4", expected: "hdr10"),
        .init(file: "video/hlg10-color-test.mp4", expected: "hlg"),
        .init(file: "video/motion.mov", expected: "sdr"),
        .init(file: "video/regular.mkv", expected: "dv 8.1 L1 RPU+BL"),
        .init(file: "video/roadtrip-vp92-10bit.webm", expected: "sdr"),
        .init(file: "video/sample.mp4", expected: "sdr"),
        .init(file: "video/sample_rotate_and_reflect.mp4", expected: "sdr"),
        .init(file: "video/sample_with_color_info.mp4", expected: "dv 8.4 L4 RPU+BL"),
        .init(file: "video/sample_with_colr_mdcv_and_clli.mp4", expected: "hdr10"),
        .init(file: "broken/box.mp4", expected: "sdr"),
        .init(file: "broken/sample_vvc.mp4", expected: "sdr"),
        .init(file: "generated/iphone-like.mov", expected: "sdr"),
        .init(file: "generated/pq-hevc.mp4", expected: "hdr10"),
        .init(file: "generated/pq-hevc.mkv", expected: "hdr10"),
        .init(file: "generated/hlg-hevc.mov", expected: "hlg"),
        .init(file: "generated/sdr-h264.mkv", expected: "sdr"),
        .init(file: "generated/sdr-vp9.webm", expected: "sdr"),
        .init(file: "generated/sdr-mpeg4.avi", expected: "sdr"),
        .init(file: "generated/sdr-h264.ts", expected: "sdr"),
        .init(file: "generated/dvcc-p5.mp4", expected: "dv 5 L3 RPU+BL"),
        .init(file: "generated/dvwc-p8.mp4", expected: "dv 8.1 L1 RPU+BL"),
        .init(file: "generated/video-dv-p5.mp4", expected: "dv 5 L1 RPU+BL"),
        .init(file: "generated/video-dv-p82.mp4", expected: "dv 8.2 L1 RPU+BL"),
        .init(file: "generated/video-iphone-like.mov", expected: "sdr"),
        .init(file: "generated/video-vfr.mp4", expected: "sdr"),
        .init(file: "generated/dji-telemetry.mp4", expected: "sdr"),
        .init(file: "generated/dji-telemetry.mkv", expected: "sdr"),
        .init(file: "generated/video-size-change.ts", expected: "sdr"),
        .init(file: "generated/video-long.mp4", expected: "sdr"),
        .init(file: "generated/truncated-mdat.mp4", expected: "sdr"),
        .init(file: "generated/location-xyz.mp4", expected: "sdr"),
        .init(file: "generated/location-keys.mov", expected: "sdr"),
        .init(file: "generated/stress-tiny.mp4", expected: "sdr"),
        .init(file: "generated/sizing-120fps.mp4", expected: "sdr"),
        .init(file: "generated/sizing-90fps.mp4", expected: "sdr"),
        .init(file: "generated/sizing-5frames.mp4", expected: "sdr"),
        .init(file: "generated/sizing-lowrate.mp4", expected: "sdr"),
        .init(file: "generated/sizing-mp3.mp4", expected: "sdr"),
        .init(file: "generated/sizing-444-mp3.mp4", expected: "sdr"),
        .init(file: "generated/sizing-aac-big.mp4", expected: "sdr"),
        .init(file: "generated/sizing-short-noise.ts", expected: "sdr"),
        .init(file: "video/gopro-karma-gpmf-cut.mp4", expected: "sdr"),
        .init(file: "generated/fidelity-180.mp4", expected: "sdr"),
        .init(file: "generated/fidelity-editlist.mp4", expected: "sdr"),
        .init(file: "generated/fidelity-14s.mp4", expected: "sdr"),
        .init(file: "generated/fidelity-dv10.mp4", expected: "dv 10.1 L1 RPU+BL"),
        .init(file: "generated/fidelity-spatial.mov", expected: "sdr"),
        .init(file: "generated/hdr10plus.mp4", expected: "hdr10"),
        .init(file: "generated/motion-clip.mp4", expected: "sdr"),
        .init(file: "generated/motion-located-clip.mp4", expected: "sdr"),
        .init(file: "video/sample_with_chapters.mp4", expected: "sdr"),
        .init(file: "generated/subtitles.mkv", expected: "sdr"),
        .init(file: "generated/subtitles.mp4", expected: "sdr"),
        .init(file: "generated/fragmented.mp4", expected: "sdr"),
        .init(file: "generated/fragmented-cut.mp4", expected: "sdr"),
        .init(file: "generated/onefps-bframes.mp4", expected: "sdr"),
        .init(file: "generated/surround-eac3.mkv", expected: "sdr"),
        .init(file: "generated/truehd.mkv", expected: "sdr"),
        .init(file: "generated/opus-clip.mkv", expected: "sdr"),
        .init(file: "generated/screen-720p.mp4", expected: "sdr"),
    ]
}

@Suite("Dynamic range of every TestMedia video")
struct ProbeDynamicRangeTests {
    @Test("class per video track", arguments: DynamicRangeCase.all)
    func dynamicRange(_ row: DynamicRangeCase) async throws {
        let info = try await MediaProbe.probe(path: Fixtures.media.appendingPathComponent(row.file).path)
        let video = try #require(info.container?.videoTracks.first?.video)
        #expect(DynamicRangeCase.key(video.dynamicRange) == row.expected)
        #expect(info.container?.videoTracks.count == 1)
    }

    @Test("the table covers every video file in TestMedia")
    func tableIsComplete() throws {
        let videoExtensions: Set<String> = ["mp4", "mov", "mkv", "webm", "avi", "ts", "m4v"]
        var files: [String] = []
        for folder in ["video", "broken", "generated"] {
            let url = Fixtures.media.appendingPathComponent(folder)
            for name in try FileManager.default.contentsOfDirectory(atPath: url.path)
            where videoExtensions.contains((name as NSString).pathExtension.lowercased()) {
                files.append("\(folder)/\(name)")
            }
        }
        let covered = Set(DynamicRangeCase.all.map(\.file))
        // Video-named files without a video track: one cut before its movie box (see the broken-file
        // tests), and text playlists named .mp4 that FFmpeg must refuse (see the stripper tests).
        let notVideos: Set<String> = ["generated/truncated-moov.mp4", "generated/playlist.mp4", "generated/list.mp4"]
        let missing = files.filter { !covered.contains($0) && !notVideos.contains($0) }
        #expect(missing.isEmpty, "no expected dynamic range for \(missing)")
        #expect(files.count >= 27, "TestMedia/generate has not been run")
    }

    @Test("iPhone Dolby Vision: 8.4 over HLG, read from the dvvC box and agreeing with FFmpeg")
    func iPhoneDolbyVision() async throws {
        let info = try await MediaProbe.probe(path: Fixtures.path("video/dolbyVision-hdr.MOV"))
        let video = try #require(info.container?.videoTracks.first?.video)
        let record = try #require(video.dynamicRange.dolbyVision)
        #expect(record.configurationBox == "dvvC")
        #expect(record.baseLayerCompatibility == .hlg)
        #expect(video.dynamicRange.summary.hasPrefix("Dolby Vision 8.4, HLG-compatible base"))
        #expect(video.dynamicRange.sdrConversion == .toneMapFromHLG)
        #expect(video.dynamicRange.needsToneMappingForSDR)
        #expect(!video.dynamicRange.hasNoCompatibleBaseLayer)
        #expect(info.container?.warnings.isEmpty == true)
    }

    @Test("Matroska Dolby Vision comes from FFmpeg: 8.1 over HDR10")
    func matroskaDolbyVision() async throws {
        let info = try await MediaProbe.probe(path: Fixtures.path("video/regular.mkv"))
        let range = try #require(info.container?.videoTracks.first?.video?.dynamicRange)
        #expect(range.dolbyVision?.configurationBox == nil)
        #expect(range.summary.hasPrefix("Dolby Vision 8.1, HDR10-compatible base"))
        #expect(range.sdrConversion == .toneMapFromPQ)
    }

    @Test("profile 5 has no compatible base: no tone map can make SDR from it")
    func profileFive() async throws {
        let info = try await MediaProbe.probe(path: Fixtures.generated("dvcc-p5.mp4"))
        let track = try #require(info.container?.videoTracks.first)
        let range = try #require(track.video?.dynamicRange)
        #expect(track.codecTag == "dvh1")
        #expect(range.dolbyVision?.configurationBox == "dvcC")
        #expect(range.dolbyVision?.baseLayerCompatibility == DolbyVisionCompatibility.none)
        #expect(range.hasNoCompatibleBaseLayer)
        #expect(!range.needsToneMappingForSDR)
        #expect(range.summary.hasPrefix("Dolby Vision 5, no compatible base"))
    }

    @Test("the dvwC box is read by our reader")
    func dvwC() async throws {
        let info = try await MediaProbe.probe(path: Fixtures.generated("dvwc-p8.mp4"))
        let range = try #require(info.container?.videoTracks.first?.video?.dynamicRange)
        #expect(range.dolbyVision?.configurationBox == "dvwC")
        #expect(range.summary.hasPrefix("Dolby Vision 8.1, HDR10-compatible base"))
    }

    @Test(
        "classification rules",
        arguments: [
            (
                TransferCharacteristics.pq, nil as DolbyVisionConfiguration?, "hdr10",
                DynamicRange.SDRConversion.toneMapFromPQ
            ),
            (.hlg, nil, "hlg", .toneMapFromHLG),
            (.bt709, nil, "sdr", .none),
            (.unspecified, nil, "sdr", .none),
            (
                .bt709,
                DolbyVisionConfiguration(
                    profile: 9, level: 4, rpuPresent: true, enhancementLayerPresent: false,
                    baseLayerPresent: true, baseLayerCompatibilityID: 2), "dolbyVision", .none
            ),
            (
                .pq,
                DolbyVisionConfiguration(
                    profile: 7, level: 6, rpuPresent: true, enhancementLayerPresent: true,
                    baseLayerPresent: true, baseLayerCompatibilityID: 6), "dolbyVision", .toneMapFromPQ
            ),
            (
                .pq,
                DolbyVisionConfiguration(
                    profile: 8, level: 1, rpuPresent: false, enhancementLayerPresent: false,
                    baseLayerPresent: false, baseLayerCompatibilityID: 1), "hdr10", .toneMapFromPQ
            ),
            (
                .pq,
                DolbyVisionConfiguration(
                    profile: 8, level: 1, rpuPresent: true, enhancementLayerPresent: false,
                    baseLayerPresent: true, baseLayerCompatibilityID: 9), "dolbyVision", .notPossible
            ),
        ])
    func rules(
        transfer: TransferCharacteristics, record: DolbyVisionConfiguration?, className: String,
        conversion: DynamicRange.SDRConversion
    ) {
        let range = DynamicRange.classify(transfer: transfer, dolbyVision: record)
        #expect(range.className == className)
        #expect(range.sdrConversion == conversion)
    }

    @Test("profile names follow Dolby's spelling")
    func profileNames() {
        func record(_ profile: Int, _ id: Int) -> DolbyVisionConfiguration {
            DolbyVisionConfiguration(
                profile: profile, level: 1, rpuPresent: true, enhancementLayerPresent: false,
                baseLayerPresent: true, baseLayerCompatibilityID: id)
        }
        #expect(record(8, 4).name == "8.4")
        #expect(record(10, 0).name == "10.0")
        #expect(record(5, 0).name == "5")
        #expect(record(7, 6).name == "7")
    }
}
