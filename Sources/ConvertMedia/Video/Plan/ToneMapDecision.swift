import ConvertCore
internal import FFmpegLayer

/// Decides how a video stream's dynamic range is handled.
///
/// This is the ONE place that classifies a stream as SDR, PQ (HDR10), HLG or Dolby Vision without
/// a usable base layer. It reads the codec parameters (`color_trc`) and the Dolby Vision
/// configuration record: FFmpeg's stream side data, completed for MP4/MOV by the probe's own
/// sample-entry reader (`dvcC`/`dvvC`/`dvwC`, see ``MediaSnapshot``), decided once at planning.
enum ToneMapDecision {
    /// A stream's dynamic range, as far as converting it is concerned.
    enum Source: Equatable, Sendable {
        /// Standard dynamic range (including Dolby Vision 8.2, whose base layer is SDR).
        case sdr
        /// HDR10 / SMPTE ST 2084 (PQ), including Dolby Vision 8.1 and 7.6 base layers.
        case pq
        /// Hybrid Log-Gamma, including Dolby Vision 8.4 (iPhone) base layers.
        case hlg
        /// Dolby Vision whose base layer no ordinary decoder can show correctly (profile 5,
        /// compatibility id 0: IPTPQc2). Decoding it without the RPU gives green/purple video.
        case dolbyVisionWithoutBase(profile: Int32, compatibility: Int32)
    }

    /// What the pipeline does with the stream's dynamic range.
    enum Action: Equatable, Sendable {
        /// Nothing to do: SDR in, SDR out.
        case none
        /// Tone map from `Source` (`.pq` or `.hlg`) to BT.709 SDR.
        case toneMap(Source)
        /// Keep HDR (10-bit, colour tags, mastering and light-level metadata).
        case keepHDR(Source)
    }

    /// Classifies `stream`.
    static func classify(_ stream: StreamSnapshot) -> Source {
        if let profile = stream.doviProfile {
            switch stream.doviCompatibility ?? 0 {
            case 1, 6: return .pq
            case 2: return .sdr
            case 4: return .hlg
            default: return .dolbyVisionWithoutBase(profile: profile, compatibility: stream.doviCompatibility ?? 0)
            }
        }
        switch stream.transfer {
        case .pq: return .pq
        case .hlg: return .hlg
        default: return .sdr
        }
    }

    /// The action for re-encoding `stream` to a target that can (`targetCarriesHDR`) or cannot
    /// carry HDR. Throws `.unsupported` for Dolby Vision without a compatible base layer.
    static func decide(for stream: StreamSnapshot, targetCarriesHDR: Bool, path: String) throws(ConvertError) -> Action
    {
        let source = classify(stream)
        switch source {
        case .sdr:
            return .none
        case .pq, .hlg:
            return targetCarriesHDR ? .keepHDR(source) : .toneMap(source)
        case .dolbyVisionWithoutBase(let profile, let compatibility):
            throw ConvertError(
                code: .unsupportedDolbyVisionProfile,
                message:
                    "\(path) is Dolby Vision profile \(profile) (base layer compatibility \(compatibility)): it has no "
                    + "HDR10, HLG or SDR base layer, so it cannot be converted without showing wrong colours. "
                    + "It can only be copied into another container.",
                path: path)
        }
    }

    /// The libavfilter chain that tone maps `source` to 8-bit BT.709 (`yuv420p`, limited range).
    ///
    /// zscale linearises with the input transfer named explicitly (PQ or HLG, so a mislabelled
    /// container cannot fool it), converts the primaries to BT.709 in linear light, Hable maps
    /// highlights without desaturating, and zscale re-applies the BT.709 transfer and matrix.
    ///
    /// This float chain is the reference the table tone mapper (``ToneMapTable``) is sampled from,
    /// and the fallback for frames that table does not cover (see ``LUTToneMapper/covers(_:)``).
    static func filter(for source: Source) -> String {
        chain(for: source, output: "yuv420p")
    }

    /// The same chain ending in `output` (`yuv444p16le` when the table is sampled from it).
    static func chain(for source: Source, output: String) -> String {
        let transfer = source == .hlg ? "arib-std-b67" : "smpte2084"
        return "zscale=tin=\(transfer):min=bt2020nc:pin=bt2020:rin=tv:t=linear:npl=100,format=gbrpf32le,"
            + "zscale=p=bt709,tonemap=tonemap=hable:desat=0,zscale=t=bt709:m=bt709:r=tv,format=\(output)"
    }

    /// `description` (an encoding's filter chain) for frames the table tone mapper has already
    /// turned into 8-bit BT.709 `yuv420p`: the float chain is replaced by a plain format step, and
    /// everything around it (trim, rotation, scaling) stays as planned.
    static func filterAfterTable(_ description: String, source: Source) -> String {
        description.replacingOccurrences(of: filter(for: source), with: "format=yuv420p")
    }
}
