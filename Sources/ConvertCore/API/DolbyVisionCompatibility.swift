/// What a Dolby Vision base layer looks like to a player without Dolby Vision
/// (`dv_bl_signal_compatibility_id`). An open set.
public struct DolbyVisionCompatibility: Hashable, Sendable, CustomStringConvertible {
    /// The compatibility id.
    public let id: Int
    /// Creates a compatibility from its id.
    public init(id: Int) { self.id = id }

    /// 0: no compatible base layer (profile 5's IPT-PQ-c2); needs a Dolby Vision decoder.
    public static let none = DolbyVisionCompatibility(id: 0)
    /// 1: HDR10 (BT.2020, PQ).
    public static let hdr10 = DolbyVisionCompatibility(id: 1)
    /// 2: SDR (BT.709).
    public static let sdr = DolbyVisionCompatibility(id: 2)
    /// 4: HLG (BT.2100 HLG).
    public static let hlg = DolbyVisionCompatibility(id: 4)
    /// 6: Ultra HD Blu-ray HDR10 (BT.2020, PQ).
    public static let hdr10BluRay = DolbyVisionCompatibility(id: 6)

    /// The stable name used in JSON: `none`, `hdr10`, `sdr`, `hlg`, `hdr10-bluray` or `id-N`.
    public var name: String {
        switch id {
        case 0: "none"
        case 1: "hdr10"
        case 2: "sdr"
        case 4: "hlg"
        case 6: "hdr10-bluray"
        default: "id-\(id)"
        }
    }

    /// A readable phrase, e.g. `HLG-compatible base` or `no compatible base`.
    public var displayName: String {
        switch id {
        case 0: "no compatible base"
        case 1: "HDR10-compatible base"
        case 2: "SDR-compatible base"
        case 4: "HLG-compatible base"
        case 6: "HDR10 (Blu-ray)-compatible base"
        default: "base compatibility id \(id)"
        }
    }

    /// Same as ``displayName``.

    public var description: String { displayName }
}
