/// What a decode does with a still coded in an HDR transfer (PQ, HLG) that has no gain map: the
/// outputs offconvert writes as SDR (JPEG, PNG, WebP, JPEG XL) get it tone mapped
/// (``HDRToneMapper``), and a JPEG that keeps HDR also gets a gain map computed from the HDR
/// picture (written as Ultra HDR). HEIC and AVIF outputs keep the HDR code values.
package enum HDRStillPolicy: Sendable, Equatable {
    /// Tone mapped to SDR only.
    case toneMap
    /// Tone mapped, with a gain map of what the SDR picture leaves out.
    case toneMapWithGainMap

    /// The policy a conversion to `format` under `hdr` takes, or nil when the HDR code values
    /// are kept as they are.
    package init?(format: PhotoFormat, hdr: HDRPolicy) {
        switch format {
        case .jpeg: self = hdr == .keep ? .toneMapWithGainMap : .toneMap
        case .png, .webp, .jxl, .gif, .bmp, .tiff: self = .toneMap
        case .heic, .avif: return nil
        }
    }
}
