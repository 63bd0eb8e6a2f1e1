import Testing

@testable import ConvertMedia

/// One memory estimator for every video command (issue 39: `compress --dry-run` said 600 MB for
/// every file, 8K included). Each case is a peak measured with `/usr/bin/time` on the release
/// build; the estimate must be within 1.5x of it either way.
@Suite("Video memory estimate")
struct VideoMemoryEstimateTests {
    static func video(_ width: Int, _ height: Int, bits: Int = 8) -> VideoTrackInfo {
        var video = VideoTrackInfo(width: width, height: height)
        video.bitDepth = bits
        return video
    }

    /// (what was measured, the source, the work, the measured peak in MiB).
    static let measured: [(String, VideoTrackInfo, VideoMemoryEstimate.Work, Double)] = [
        ("send-to-windows 1080p HEVC", video(1920, 1080), .encode(height: 1080, slowPreset: false), 404),
        (
            "send-to-windows 4K 10-bit PQ HEVC", video(3840, 2160, bits: 10), .encode(height: 2160, slowPreset: false),
            1382
        ),
        ("send-to-windows 8K HEVC to 4K", video(7680, 4320), .encode(height: 2160, slowPreset: false), 1618),
        ("send-to-windows 4K AV1", video(3840, 2160), .encode(height: 2160, slowPreset: false), 1299),
        ("compress 1080p HEVC, 1 MB", video(1920, 1080), .encode(height: 1080, slowPreset: true), 539),
        ("compress 8K written at 8K", video(7680, 4320), .encode(height: 4320, slowPreset: true), 4269),
        ("convert 1080p H.264 to VP9", video(1920, 1080), .encode(height: 1080, slowPreset: true), 374),
        ("gif of 4 s of 1080p at 12 fps, 480 wide", video(1920, 1080), .gif(width: 480, frames: 48), 162),
        ("convert --to mkv, copied", video(1920, 1080), .copy, 74),
    ]

    @Test("within 1.5x of the measured peak", arguments: 0..<measured.count)
    func calibrated(_ index: Int) {
        let (name, video, work, peak) = Self.measured[index]
        let estimate = Double(VideoMemoryEstimate.bytes(for: video, work: work)) / Double(1 << 20)
        #expect(
            estimate <= peak * 1.5 && estimate >= peak / 1.5,
            "\(name): estimated \(Int(estimate)) MiB, measured \(Int(peak))")
    }

    @Test("bigger pictures cost more: 8K more than 4K more than 1080p; a file without a picture the base")
    func ordered() {
        let costs = [(1920, 1080), (3840, 2160), (7680, 4320)].map {
            VideoMemoryEstimate.bytes(for: Self.video($0.0, $0.1), work: .encode(height: $0.1, slowPreset: true))
        }
        #expect(costs == costs.sorted() && Set(costs).count == 3)
        #expect(
            VideoMemoryEstimate.bytes(for: nil, work: .encode(height: 1080, slowPreset: true))
                == VideoMemoryEstimate.baseBytes)
    }
}
