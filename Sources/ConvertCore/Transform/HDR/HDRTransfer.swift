import FoundationEssentials
import Glibc

/// The HDR transfer functions of BT.2100 a still can be coded in (the nclx transfer code point):
/// PQ (SMPTE ST 2084, 16) and HLG (ARIB STD-B67, 18). Their formulas, in display or scene light.
package enum HDRTransfer: Sendable, Equatable {
    case pq
    case hlg

    /// The transfer of `nclx`, or nil when it is not an HDR one.
    package init?(_ nclx: NCLX?) {
        switch nclx?.transfer.code {
        case 16: self = .pq
        case 18: self = .hlg
        default: return nil
        }
    }

    /// "PQ" or "HLG", for notes.
    package var name: String {
        switch self {
        case .pq: "PQ"
        case .hlg: "HLG"
        }
    }

    /// The luminance of SDR reference white in nits (BT.2408: HDR reference white, graphics white).
    static let sdrWhiteNits = 203.0
    /// The nominal peak of an HLG display (BT.2100's reference OOTF is defined for 1000 nits).
    static let hlgPeakNits = 1000.0
    /// The HLG system gamma at 1000 nits (BT.2100 table 5).
    static let hlgSystemGamma = 1.2

    private static let m1 = 2610.0 / 16384
    private static let m2 = 2523.0 / 4096 * 128
    private static let c1 = 3424.0 / 4096
    private static let c2 = 2413.0 / 4096 * 32
    private static let c3 = 2392.0 / 4096 * 32

    /// ST 2084 EOTF: a PQ signal (0...1) to display luminance in nits (0...10000).
    static func pqToNits(_ signal: Double) -> Double {
        let e = pow(max(0, min(1, signal)), 1 / m2)
        return 10000 * pow(max(0, e - c1) / (c2 - c3 * e), 1 / m1)
    }

    /// ST 2084 inverse EOTF: display luminance in nits to a PQ signal (0...1).
    static func nitsToPQ(_ nits: Double) -> Double {
        let y = pow(max(0, min(10000, nits)) / 10000, m1)
        return pow((c1 + c2 * y) / (1 + c3 * y), m2)
    }

    private static let hlgA = 0.17883277
    private static let hlgB = 1 - 4 * hlgA
    private static let hlgC = 0.5 - hlgA * log(4 * hlgA)

    /// HLG inverse OETF (BT.2100 table 5): a signal (0...1) to normalised scene light (0...1).
    static func hlgToScene(_ signal: Double) -> Double {
        let e = max(0, min(1, signal))
        return e <= 0.5 ? e * e / 3 : (exp((e - hlgC) / hlgA) + hlgB) / 12
    }
}

extension NCLX {
    /// "PQ" or "HLG" when the transfer is one of BT.2100's HDR ones, else nil.
    public var hdrTransferName: String? { HDRTransfer(self)?.name }
}
