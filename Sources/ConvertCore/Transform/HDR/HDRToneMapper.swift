import FoundationEssentials
import Glibc

/// Tone maps a PQ or HLG still to SDR, and measures the HDR it leaves out as a gain map.
///
/// The curve is BT.2390's EETF (the ITU's reference for PQ), from the source peak down to SDR
/// white at 203 nits (BT.2408), applied to each pixel's largest component in display light
/// (maxRGB), whose ratio then scales all three: hue and saturation are kept (a bright red stays
/// red instead of washing out to white, as a per-component curve would make it), no component
/// can leave the cube (so no gamut clipping), and the SDR picture differs from the HDR one by one
/// factor per pixel, which is exactly what a one-channel gain map can give back. Below the knee
/// (about half of SDR white's PQ signal) the picture is unchanged; above it highlights roll off to
/// white instead of clipping. Then nits / 203 is the SDR linear value and gets the sRGB curve. The
/// primaries are kept (a BT.2020 source is tagged with a BT.2020 profile over the sRGB curve, as
/// ColorProfiles tags a BT.2020 SDR photo).
///
/// The source peak: for PQ the brightest component in the picture (a camera grades its stills
/// to its own peak; the mastering metadata a video carries is rarely in a still), at least SDR
/// white; for HLG the 1000-nit display BT.2100's reference OOTF is defined for.
///
/// Every per-value step is a table, never a per-pixel `pow`: the 12-bit signal → display light
/// (the EOTF, or HLG's inverse OETF), √Ys → Ys^(γ−1) for HLG's OOTF, √maxRGB → the EETF's ratio,
/// and √(SDR linear) → the 8-bit sRGB code; the square roots spread the tables' steps where the
/// eye needs them (near black).
struct HDRToneMapper: Sendable {
    package let transfer: HDRTransfer
    /// The source peak the EETF maps to SDR white, in nits.
    fileprivate let peakNits: Double
    /// Luminance weights of the primaries (for HLG's OOTF and the gain map).
    private let weights: (r: Float, g: Float, b: Float)
    /// 12-bit signal → display light ÷ peak (PQ), or scene light (HLG).
    private let linear: [Float]
    /// HLG: √Ys in 1/16383 steps → Ys^(γ−1).
    private let ootfGain: [Float]
    /// √(maxRGB ÷ peak) in 1/16383 steps → SDR linear ÷ (maxRGB ÷ peak): the factor of the pixel.
    private let ratio: [Float]
    /// √(SDR linear) in 1/16383 steps → 8-bit sRGB code.
    private let encode: [UInt8]
    /// 8-bit sRGB code → SDR linear.
    private let sdrLinear: [Float]

    private static let signalSteps = 4096
    private static let rootSteps = 16384

    /// A tone mapper for `transfer` with the luminance weights of H.273 `primaries`; for PQ the
    /// peak is `brightest`, the picture's largest 16-bit component (see ``brightestSample(_:)``).
    package init(transfer: HDRTransfer, primaries: Int, brightest: UInt16) {
        self.transfer = transfer
        switch primaries {
        case 1: weights = (0.2126, 0.7152, 0.0722)
        case 12: weights = (0.2290, 0.6917, 0.0793)
        default: weights = (0.2627, 0.6780, 0.0593)
        }
        let white = HDRTransfer.sdrWhiteNits
        let steps = Double(Self.signalSteps - 1)
        let roots = Double(Self.rootSteps - 1)
        switch transfer {
        case .pq:
            let peak = max(white, HDRTransfer.pqToNits(Double(brightest) / 65535))
            peakNits = peak
            linear = (0..<Self.signalSteps).map { Float(min(1, HDRTransfer.pqToNits(Double($0) / steps) / peak)) }
            ootfGain = []
        case .hlg:
            peakNits = HDRTransfer.hlgPeakNits
            linear = (0..<Self.signalSteps).map { Float(HDRTransfer.hlgToScene(Double($0) / steps)) }
            ootfGain = (0..<Self.rootSteps).map {
                Float(pow(pow(Double($0) / roots, 2), HDRTransfer.hlgSystemGamma - 1))
            }
        }
        let peak = peakNits
        ratio = (0..<Self.rootSteps).map { index in
            let m = pow(Double(index) / roots, 2)
            guard m > 0 else { return Float(peak / white) }
            return Float(Self.eetf(nits: m * peak, peak: peak) / white / m)
        }
        encode = (0..<Self.rootSteps).map { index in
            let v = pow(Double(index) / roots, 2)
            let coded = v <= 0.0031308 ? v * 12.92 : 1.055 * pow(v, 1 / 2.4) - 0.055
            return UInt8((coded * 255).rounded())
        }
        sdrLinear = (0..<256).map { code in
            let v = Double(code) / 255
            return Float(v <= 0.04045 ? v / 12.92 : pow((v + 0.055) / 1.055, 2.4))
        }
    }

    /// Whether the picture can be brighter than SDR white: always for HLG (its 1000-nit
    /// reference display), for PQ when its brightest sample is above 203 nits.
    var hasHighlights: Bool { peakNits > HDRTransfer.sdrWhiteNits }

    /// The largest sample of a 16-bit bitmap's colour channels.
    static func brightestSample(_ bitmap: Bitmap) -> UInt16 {
        guard case .sixteen(let values) = bitmap.samples else { return 65535 }
        let channels = bitmap.channels
        return values.withUnsafeBufferPointer { samples in
            var brightest: UInt16 = 0
            for index in 0..<samples.count where channels == 3 || index % channels != 3 {
                brightest = max(brightest, samples[index])
            }
            return brightest
        }
    }

    /// BT.2390 EETF (no black lift: the SDR target's black is 0): display light `nits` of a
    /// source whose peak is `peak` → display light of a display whose peak is SDR white.
    static func eetf(nits: Double, peak: Double) -> Double {
        let sourcePeak = HDRTransfer.nitsToPQ(peak)
        let maxLum = HDRTransfer.nitsToPQ(HDRTransfer.sdrWhiteNits) / sourcePeak
        let e1 = min(1, HDRTransfer.nitsToPQ(nits) / sourcePeak)
        guard maxLum < 1 else { return min(nits, HDRTransfer.sdrWhiteNits) }
        let knee = 1.5 * maxLum - 0.5
        var e2 = e1
        if e1 >= knee {
            // BT.2390's Hermite spline from the knee to (1, maxLum).
            let t = (e1 - knee) / (1 - knee)
            let t2 = t * t
            let t3 = t2 * t
            e2 = (2 * t3 - 3 * t2 + 1) * knee + (t3 - 2 * t2 + t) * (1 - knee) + (-2 * t3 + 3 * t2) * maxLum
        }
        return HDRTransfer.pqToNits(e2 * sourcePeak)
    }

    /// The SDR picture of `bitmap` (16-bit R'G'B' in the HDR transfer; alpha kept) as 8-bit
    /// samples tagged with `icc`, and with `gainMap` the log2 HDR / SDR luminance ratio of each
    /// block (``GainMapBuilder``); rows are split among `threads` workers.
    package func toneMap(_ bitmap: Bitmap, icc: [UInt8]?, gainMap: Bool, threads: Int = 1) -> (
        bitmap: Bitmap, gainMap: GainMapBuilder?
    ) {
        guard case .sixteen(let source) = bitmap.samples else { return (bitmap, nil) }
        let (width, height, channels) = (bitmap.width, bitmap.height, bitmap.channels)
        let length = width * channels
        return source.withUnsafeBufferPointer { input in
            let input = SharedRows(base: input.baseAddress!)
            return toneMap(
                width: width, height: height, channels: channels, icc: icc, gainMap: gainMap, threads: threads
            ) { rows, row in
                for y in rows { row(y, UnsafeBufferPointer(start: input.base + y * length, count: length)) }
            }
        }
    }

    /// The SDR picture of rows of 16-bit samples that `rows` hands, top to bottom within each
    /// band of rows it is asked for, to the closure it is given (no whole 16-bit picture needs to
    /// exist: see ``YCbCr420Image/withRGBRows(matrix:fullRange:rows:_:)``). The bands are split
    /// among `threads` workers and `rows` is called for several at once.
    package func toneMap(
        width: Int, height: Int, channels: Int, icc: [UInt8]?, gainMap: Bool, threads: Int = 1,
        rows: @Sendable (_ band: Range<Int>, _ row: (Int, UnsafeBufferPointer<UInt16>) -> Void) -> Void
    ) -> (bitmap: Bitmap, gainMap: GainMapBuilder?) {
        let bands = RowBands(rows: height, workers: threads, alignment: GainMapBuilder.scale)
        let builders = PthreadLocked<[GainMapBuilder?]>(Array(repeating: nil, count: bands.ranges.count))
        let length = width * channels
        var out = [UInt8](repeating: 0, count: width * height * channels)
        out.withUnsafeMutableBufferPointer { target in
            let target = SharedRows(base: target.baseAddress!)
            bands.forEachBand { band, range in
                var builder = gainMap ? GainMapBuilder(width: width, height: height, rows: range) : nil
                var hdrRow = [Float](repeating: 0, count: gainMap ? width : 0)
                var sdrRow = [Float](repeating: 0, count: gainMap ? width : 0)
                rows(range) { y, input in
                    let output = UnsafeMutableBufferPointer(start: target.base + y * length, count: length)
                    mapRow(input, into: output, channels: channels, hdr: &hdrRow, sdr: &sdrRow)
                    builder?.add(row: y, hdr: hdrRow, sdr: sdrRow)
                }
                builders.withLock { $0[band] = builder }
            }
        }
        let mapped = Bitmap(
            width: width, height: height, channels: channels, samples: .eight(out), sourceBitDepth: 8, icc: icc)
        return (mapped, GainMapBuilder(joining: builders.withLock { $0 }.compactMap { $0 }))
    }

    /// One row: each pixel's output, and (when the rows are not empty) its HDR and SDR luminance.
    private func mapRow(
        _ input: UnsafeBufferPointer<UInt16>, into target: UnsafeMutableBufferPointer<UInt8>, channels: Int,
        hdr: inout [Float], sdr: inout [Float]
    ) {
        let measuring = !hdr.isEmpty
        let (wr, wg, wb) = weights
        let roots = Float(Self.rootSteps - 1)
        let last = Self.rootSteps - 1
        let hdrScale = Float(peakNits / HDRTransfer.sdrWhiteNits)
        func root(_ value: Float) -> Int { min(last, Int(max(0, value).squareRoot() * roots + 0.5)) }
        linear.withUnsafeBufferPointer { linear in
            ootfGain.withUnsafeBufferPointer { ootfGain in
                ratio.withUnsafeBufferPointer { ratio in
                    encode.withUnsafeBufferPointer { encode in
                        sdrLinear.withUnsafeBufferPointer { sdrLinear in
                            for x in 0..<(input.count / channels) {
                                let at = x * channels
                                var r = linear[Int(input[at] >> 4)]
                                var g = linear[Int(input[at + 1] >> 4)]
                                var b = linear[Int(input[at + 2] >> 4)]
                                if transfer == .hlg {
                                    // BT.2100 OOTF: Fd = Lw × Ys^(γ−1) × E, in units of the peak Lw.
                                    let gain = ootfGain[root(wr * r + wg * g + wb * b)]
                                    (r, g, b) = (r * gain, g * gain, b * gain)
                                }
                                let factor = ratio[root(max(r, g, b))]
                                target[at] = encode[root(r * factor)]
                                target[at + 1] = encode[root(g * factor)]
                                target[at + 2] = encode[root(b * factor)]
                                if channels == 4 {
                                    target[at + 3] = UInt8((UInt32(input[at + 3]) * 255 + 32767) / 65535)
                                }
                                guard measuring else { continue }
                                hdr[x] = (wr * r + wg * g + wb * b) * hdrScale
                                sdr[x] =
                                    wr * sdrLinear[Int(target[at])] + wg * sdrLinear[Int(target[at + 1])] + wb
                                    * sdrLinear[Int(target[at + 2])]
                            }
                        }
                    }
                }
            }
        }
    }
}

/// One picture's samples, shared by the bands of a tone map: each band reads and writes only
/// its own rows, so no two workers touch the same element.
private struct SharedRows<Element>: @unchecked Sendable {
    let base: UnsafeMutablePointer<Element>

    init(base: UnsafeMutablePointer<Element>) { self.base = base }
    init(base: UnsafePointer<Element>) { self.base = UnsafeMutablePointer(mutating: base) }
}
