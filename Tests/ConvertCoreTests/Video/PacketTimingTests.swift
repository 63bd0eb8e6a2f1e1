internal import CFFmpeg
import Testing

@testable import ConvertMedia
@testable import FFmpegLayer

/// The timing arithmetic of the pump and the copy lane, on synthetic timings: none of it needs a
/// file, and the lanes' decisions (how far DTS move back, how long a raw stream's frame lasts,
/// how a timestamp crosses time bases) are checked value by value.
@Suite("Remux: packet timing on synthetic timestamps")
struct PacketTimingTests {
    static let unset = Packet.noTimestamp

    @Test("the DTS shift is the largest DTS-after-PTS excess of the first packets")
    func reorderShift() {
        // iPhone B-frame MOVs: DTS run two frames (1024 ticks each) ahead of PTS.
        let reordered: [(pts: Int64, dts: Int64)] = [(0, 2048), (3072, 3072), (1024, 4096), (2048, 5120), (6144, 6144)]
        #expect(TimestampRepair.reorderShift(reordered, unset: Self.unset) == 3072)
        // Valid streams (DTS never after PTS) are not moved.
        #expect(TimestampRepair.reorderShift([(0, -1024), (2048, 0), (1024, 1024)], unset: Self.unset) == 0)
        // Packets with an unset timestamp say nothing; none at all gives no shift.
        #expect(
            TimestampRepair.reorderShift([(Self.unset, 9000), (100, Self.unset), (10, 40)], unset: Self.unset) == 30)
        #expect(TimestampRepair.reorderShift([], unset: Self.unset) == 0)
    }

    @Test("a raw stream's frame lasts one frame period in its time base, at least one tick")
    func frameTicks() {
        #expect(FrameRateTiming.frameTicks(rate: Rational(30, 1), timeBase: Rational(1, 90_000)) == 3000)
        #expect(FrameRateTiming.frameTicks(rate: Rational(30000, 1001), timeBase: Rational(1, 90_000)) == 3003)
        #expect(FrameRateTiming.frameTicks(rate: Rational(24, 1), timeBase: Rational(1, 1_200_000)) == 50_000)
        // Unknown rates are timed at 25 fps.
        #expect(FrameRateTiming.frameTicks(rate: Rational(0, 0), timeBase: Rational(1, 1000)) == 40)
        #expect(FrameRateTiming.frameTicks(rate: Rational(0, 1), timeBase: Rational(1, 25)) == 1)
        // A time base coarser than a frame still advances.
        #expect(FrameRateTiming.frameTicks(rate: Rational(60, 1), timeBase: Rational(1, 10)) == 1)
    }

    @Test("timestamps cross time bases rounded to nearest; container time zero-bases a stream")
    func rescale() {
        #expect(Rational(1, 1000).rescale(1500, to: Rational(1, 90_000)) == 135_000)
        #expect(Rational(1, 90_000).rescale(3003, to: Rational(1, 1000)) == 33)
        // A container start of 1.4 s in a 600-tick stream (QuickTime's usual) is 840 ticks.
        #expect(Rational.microseconds.rescale(1_400_000, to: Rational(1, 600)) == 840)
        #expect(Rational(1001, 30000).doubleValue == 1001.0 / 30000.0)
        #expect(
            Rational(0, 0).doubleValue == 0 && !Rational(0, 1).isPositive && Rational(25, 1).inverted == Rational(1, 25)
        )
    }

    @Test("a packet's Swift timing: shifts leave unset timestamps unset, rescaling converts both and the duration")
    func packetTiming() throws {
        let packet = try Packet()
        packet.pts = 1000
        packet.dts = Self.unset
        packet.duration = 40
        packet.shiftTimestamps(by: 400)
        #expect(packet.pts == 600 && packet.dts == Self.unset)
        #expect(packet.presentationEnd == 640)
        packet.dts = 560
        packet.rescaleTimestamps(from: Rational(1, 1000), to: Rational(1, 90_000))
        #expect(packet.pts == 54_000 && packet.dts == 50_400 && packet.duration == 3600)
        packet.pts = Self.unset
        #expect(packet.presentationEnd == nil)
        #expect(!packet.isDiscarded && packet.size == 0)
    }

    @Test("the layer's no-timestamp constant is FFmpeg's AV_NOPTS_VALUE")
    func noTimestampIsFFmpegs() {
        #expect(FFmpeg.noTimestamp == offc_nopts_value())
        #expect(Packet.noTimestamp == offc_nopts_value())
    }
}
