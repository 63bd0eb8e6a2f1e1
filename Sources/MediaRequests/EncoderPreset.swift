import ConvertCore

/// How much time x264 and x265 spend per frame: their named presets, fastest first.
///
/// A slower preset makes a smaller file of the same quality. ``VideoRequest/preset`` chooses one;
/// `nil` there uses the situation's default (``VideoSituation/defaultPreset``).
public enum EncoderPreset: String, Sendable, CaseIterable {
    /// x264's and x265's `ultrafast`.
    case ultrafast
    /// `superfast`.
    case superfast
    /// `veryfast`.
    case veryfast
    /// `faster`: what `send-to-windows` uses (Benchmarks/RESULTS-presets.md says why).
    case faster
    /// `fast`.
    case fast
    /// `medium`: x264's and x265's own default, and `convert`'s, so `--crf N` matches ffmpeg's.
    case medium
    /// `slow`.
    case slow
    /// `slower`.
    case slower
    /// `veryslow`.
    case veryslow
}

extension VideoSituation {
    /// The x264/x265 preset a conversion for this situation uses unless the request names one.
    ///
    /// Sending a clip is about getting it there: against `medium`, `faster` took 15–40% less CPU
    /// on the four SDR clips compared, for files the same size within ±6% and 0–1.7 dB less PSNR.
    /// `convert` keeps the encoders' own default, so it is comparable with ffmpeg at the same CRF.
    public var defaultPreset: EncoderPreset {
        switch self {
        case .sendToWindows: .faster
        case .convert: .medium
        }
    }
}
