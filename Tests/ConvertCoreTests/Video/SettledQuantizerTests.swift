import Foundation
import Testing

@testable import ConvertMedia

/// How a tight target's first frames are read when they leave bits unspent: x264's average
/// bitrate starts cautious, so frames that took half their bits or less would have coded finer
/// at the whole bitrate (6 quantizer steps a doubling of bits); frames that took more are read
/// as measured.
@Suite("compress: the first frames' quantizer at the whole bitrate")
struct SettledQuantizerTests {
    @Test("frames that took their bits, or most of them, are read as measured")
    func spent() {
        for share in [2.0, 1.0, 0.9, 0.7, 0.51] {
            #expect(VideoCompressor.settledQuantizer(measured: 39, spentShare: share) == 39, "\(share)")
        }
    }

    @Test("half the bits or less: 6 steps finer a doubling, bounded for frames that took none")
    func underspent() {
        #expect(VideoCompressor.settledQuantizer(measured: 41, spentShare: 0.5) == 35)
        #expect(VideoCompressor.settledQuantizer(measured: 46, spentShare: 0.25) == 34)
        // 35 % (the 1080p screen recording of Benchmarks/ at 720p): about 9 steps.
        let screen = VideoCompressor.settledQuantizer(measured: 41, spentShare: 0.35)
        #expect(abs(screen - (41 + 6 * log2(0.35))) < 1e-9 && screen < 32)
        #expect(VideoCompressor.settledQuantizer(measured: 40, spentShare: 0) == 4)
    }
}
