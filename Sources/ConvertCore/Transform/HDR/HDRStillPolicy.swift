/// What a decode does with a still coded in an HDR transfer (PQ, HLG) that has no gain map: the
/// outputs offconvert writes as SDR (PNG, WebP) get it tone mapped (``HDRToneMapper``), and a
/// JPEG that keeps HDR also gets a gain map computed from the HDR picture (written as Ultra HDR).
/// A JPEG XL that keeps HDR keeps the code values and names their transfer in its colour
/// encoding; HEIC and AVIF outputs keep the code values. Under `--hdr sdr` every output but
/// HEIC and AVIF is tone mapped.
package enum HDRStillPolicy: Sendable, Equatable {
    /// Tone mapped to SDR only.
    case toneMap
    /// Tone mapped, with a gain map of what the SDR picture leaves out.
    case toneMapWithGainMap
    /// The code values kept, with the transfer and primaries they are coded in (``DecodedFrame/hdrCoding``),
    /// for an output that states them: JPEG XL's colour encoding names PQ and HLG, as no ICC
    /// matrix/TRC profile can. A still whose primaries it cannot name is tone mapped instead.
    case keepTransfer

    /// The policy a conversion to `format` under `hdr` takes, or nil when the HDR code values
    /// are kept as they are.
    package init?(format: PhotoFormat, hdr: HDRPolicy) {
        switch format {
        case .jpeg: self = hdr == .keep ? .toneMapWithGainMap : .toneMap
        case .jxl: self = hdr == .keep ? .keepTransfer : .toneMap
        case .png, .webp, .gif, .bmp, .tiff, .tga, .pnm, .ico, .psd, .jp2: self = .toneMap
        case .heic, .avif: return nil
        }
    }

    /// Whether a still under this policy is tone mapped, given the nclx it is coded in.
    package func toneMaps(_ nclx: NCLX?) -> Bool {
        guard HDRTransfer(nclx) != nil else { return false }
        return self != .keepTransfer || !Self.namedPrimaries.contains(nclx?.primaries.code ?? 0)
    }

    /// The primaries a JPEG XL colour encoding names (nclx code points: BT.709, BT.2020, Display P3).
    static let namedPrimaries: Set<Int> = [1, 9, 12]
}
