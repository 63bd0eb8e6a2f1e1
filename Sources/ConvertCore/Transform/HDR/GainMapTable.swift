import FoundationEssentials
import Glibc

/// Apple's linear gain values re-expressed as Ultra HDR's logarithmic ones, one table entry per
/// 8-bit value, so no approximation lies between the two: each Apple code gives the log code whose
/// boost is nearest to the boost Apple's formula gives.
///
/// Apple: the map is Rec.709-encoded linear gain `g`, and `hdr = sdr × (1 + (headroom − 1) × g)`.
/// Ultra HDR with ``GainMapMetadata/apple(stops:)``: `hdr = sdr × 2^(stops × r)`. So
/// `r = log2(1 + (headroom − 1) × g) / stops`.
struct GainMapTable: Sendable {
    package let values: [UInt8]

    /// The table for a headroom of `stops` (> 0).
    package init(appleStops stops: Double) {
        precondition(stops > 0, "a gain map table needs some headroom")
        let headroom = pow(2, stops)
        values = (0...255).map { code in
            let gain = Self.rec709ToLinear(Double(code) / 255)
            let recovery = log2(1 + (headroom - 1) * gain) / stops
            return UInt8(max(0, min(255, (recovery * 255).rounded())))
        }
    }

    /// BT.709's inverse OETF: the linear value of an encoded one.
    static func rec709ToLinear(_ value: Double) -> Double {
        value < 0.081 ? value / 4.5 : pow((value + 0.099) / 1.099, 1 / 0.45)
    }

    /// `plane` with every sample looked up.
    package func apply(to plane: inout GrayPlane) {
        let table = values
        plane.pixels.withUnsafeMutableBufferPointer { samples in
            for index in samples.indices { samples[index] = table[Int(samples[index])] }
        }
    }
}
