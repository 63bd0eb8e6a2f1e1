import Testing

@testable import ConvertMedia

/// The copy lane's timestamp repair, on the packet timestamps of damaged files: whatever comes
/// in, what goes to the muxer has DTS that only go forward and a PTS never before its DTS, so
/// FFmpeg's muxer neither refuses a packet nor warns and guesses.
@Suite("Remux: timestamp repair")
struct TimestampRepairTests {
    static let unset = Int64.min

    /// Runs `packets` through a repair and checks the invariants of what comes out.
    static func repaired(_ packets: [(Int64, Int64)], nonStrict: Bool = false) -> [(pts: Int64, dts: Int64)] {
        var repair = TimestampRepair(nonStrict: nonStrict, unset: unset)
        let out = packets.map { repair.repair(pts: $0.0, dts: $0.1) }
        var last: Int64?
        for (pts, dts) in out where dts != unset {
            if let last { #expect(nonStrict ? dts >= last : dts > last, "\(out)") }
            if pts != unset { #expect(pts >= dts, "\(out)") }
            last = dts
        }
        return out
    }

    @Test("packets without any timestamp get the next DTS (the muxer's 'Timestamps are unset' warning)")
    func unsetTimestamps() {
        let out = Self.repaired([(0, 0), (Self.unset, Self.unset), (Self.unset, Self.unset), (3, 3)])
        #expect(out.map(\.dts) == [0, 1, 2, 3])
        #expect(out.allSatisfy { $0.pts != Self.unset })
        #expect(Self.repaired([(Self.unset, Self.unset)]).first?.dts == 0)
    }

    @Test("DTS going backwards and PTS before DTS are moved forward; valid streams are untouched")
    func backwards() {
        #expect(Self.repaired([(0, 0), (80, 20), (40, 40), (20, 60), (60, 80)]).map(\.dts) == [0, 20, 40, 41, 60])
        let valid: [(Int64, Int64)] = [(2, 0), (5, 1), (3, 2), (4, 3)]
        #expect(Self.repaired(valid).map(\.pts) == valid.map(\.0))
        #expect(Self.repaired([(0, 10), (0, 5), (1, 5)], nonStrict: true).map(\.dts) == [10, 10, 10])
    }

    @Test("a packet with a PTS and no DTS is left for the muxer to derive")
    func ptsOnly() {
        let out = Self.repaired([(0, 0), (5, Self.unset)])
        #expect(out[1].pts == 5 && out[1].dts == Self.unset)
    }
}
