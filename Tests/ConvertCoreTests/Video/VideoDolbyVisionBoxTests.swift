import Testing

@testable import ConvertCore
@testable import ConvertMedia
@testable import FFmpegLayer

@Suite("Dolby Vision seen by the video engine")
struct VideoDolbyVisionBoxTests {
    @Test("a dvwC record (which FFmpeg 5.1 does not parse) reaches the tone-mapping decision")
    func dvwC() throws {
        let snapshot = MediaSnapshot(try Demuxer(path: Fixtures.generated("dvwc-p8.mp4")))
        let video = try #require(snapshot.video)
        #expect(video.doviProfile == 8)
        #expect(video.doviCompatibility == 1)
        #expect(ToneMapDecision.classify(video) == .pq)
    }

    @Test("profile 5 from a dvcC box is refused for SDR targets")
    func profileFive() throws {
        let snapshot = MediaSnapshot(try Demuxer(path: Fixtures.generated("dvcc-p5.mp4")))
        let video = try #require(snapshot.video)
        expectConvertError(.unsupportedDolbyVisionProfile) {
            try ToneMapDecision.decide(for: video, targetCarriesHDR: false, path: "dvcc-p5.mp4")
        }
    }
}
