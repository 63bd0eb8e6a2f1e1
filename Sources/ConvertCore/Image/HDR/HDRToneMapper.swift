import Foundation

/// Tone maps a PQ or HLG still to SDR, and measures the HDR it leaves out as a gain map.
///
/// The curve is BT.2390's EETF (the ITU's reference for PQ, defined on the PQ signal itself, so a
/// whole PQ pipeline is one table per signal value), applied to each of R', G', B' (BT.2390 5.4.1
/// allows the components) from the source peak down to SDR white at 203 nits (BT.2408); then
/// nits / 203 is the SDR linear value and gets the sRGB curve. Below the knee (about half the
/// way to SDR white in PQ terms) the picture is unchanged; above it highlights roll off to white
/// instead of clipping. The primaries are kept (a BT.2020 source is tagged with a BT.2020 profile
/// over the sRGB curve, as a BT.2020 SDR photo is today): a per-component curve keeps every value
/// inside the cube, so no gamut clipping is needed.
///
/// The source peak: for PQ the brightest component in the picture (a camera grades its stills
/// to its own peak; the mastering metadata a video carries is rarely in a still), at least SDR
/// white; for HLG the 1000-nit display BT.2100's reference OOTF is defined for.
///
/// Every per-value step is a table: PQ is 4096 entries from the 12-bit signal to the 8-bit
/// output; HLG (whose OOTF depends on the pixel's luminance) is a 4096-entry inverse OETF, a
/// table of Ys^(γ−1) and a table from display light to the output, both indexed by a square root.
package struct HDRToneMapper: Sendable {
    package let transfer: HDRTransfer
    /// The source peak the EETF maps to SDR white, in nits.
    package let peakNits: Double
    /// Luminance weights of the primaries (for HLG's OOTF and the gain map).
    private let weights: (r: Float, g: Float, b: Float)
    /// PQ: 12-bit signal → 8-bit output. HLG: √(Fd / peak) in 1/16383 steps → 8-bit output.
    private let output: [UInt8]
    /// PQ: 12-bit signal → HDR linear (nits / 203). HLG: 12-bit signal → scene light.
    private let linear: [Float]
    /// HLG: √Ys in 1/16383 steps → Ys^(γ−1).
    private let ootfGain: [Float]
    /// 8-bit sRGB output → SDR linear.
    private let sdrLinear: [Float]

    private static let signalSteps = 4096
    private static let rootSteps = 16384

    /// A tone mapper for `transfer` with the luminance weights of H.273 `primaries`; for PQ the
    /// peak is found in `bitmap`.
    package init(transfer: HDRTransfer, primaries: Int, bitmap: Bitmap) {
        self.transfer = transfer
        switch primaries {
        case 1: weights = (0.2126, 0.7152, 0.0722)
        case 12: weights = (0.2290, 0.6917, 0.0793)
        default: weights = (0.2627, 0.6780, 0.0593)
        }
        let white = HDRTransfer.sdrWhiteNits
        switch transfer {
        case .pq:
            let peak = max(white, HDRTransfer.pqToNits(Double(Self.brightestSample(bitmap)) / 65535))
            peakNits = peak
            let steps = Double(Self.signalSteps - 1)
            output = (0..<Self.signalSteps).map { Self.sdrCode(nits: HDRTransfer.pqToNits(Double($0) / steps), peak: peak) }
            linear = (0..<Self.signalSteps).map { Float(HDRTransfer.pqToNits(Double($0) / steps) / white) }
            ootfGain = []
        case .hlg:
            let peak = HDRTransfer.hlgPeakNits
            peakNits = peak
            let steps = Double(Self.signalSteps - 1), roots = Double(Self.rootSteps - 1)
            output = (0..<Self.rootSteps).map { Self.sdrCode(nits: peak * pow(Double($0) / roots, 2), peak: peak) }
            linear = (0..<Self.signalSteps).map { Float(HDRTransfer.hlgToScene(Double($0) / steps)) }
            ootfGain = (0..<Self.rootSteps).map { Float(pow(pow(Double($0) / roots, 2), HDRTransfer.hlgSystemGamma - 1)) }
        }
        sdrLinear = (0..<256).map { code in
            let v = Double(code) / 255
            return Float(v <= 0.04045 ? v / 12.92 : pow((v + 0.055) / 1.055, 2.4))
        }
    }

    /// The largest sample of a 16-bit bitmap's colour channels.
    private static func brightestSample(_ bitmap: Bitmap) -> UInt16 {
        guard case .sixteen(let values) = bitmap.samples else { return 65535 }
        let channels = bitmap.channels
        return values.withUnsafeBufferPointer { samples in
            var brightest: UInt16 = 0
            for index in 0..<samples.count where channels == 3 || index % channels != 3 { brightest = max(brightest, samples[index]) }
            return brightest
        }
    }

    /// BT.2390 EETF (no black lift: the SDR target's black is 0): display light `nits` of a
    /// source whose peak is `peak` → display light of a display whose peak is SDR white.
    package static func eetf(nits: Double, peak: Double) -> Double {
        let sourcePeak = HDRTransfer.nitsToPQ(peak)
        let maxLum = HDRTransfer.nitsToPQ(HDRTransfer.sdrWhiteNits) / sourcePeak
        let e1 = min(1, HDRTransfer.nitsToPQ(nits) / sourcePeak)
        guard maxLum < 1 else { return min(nits, HDRTransfer.sdrWhiteNits) }
        let knee = 1.5 * maxLum - 0.5
        var e2 = e1
        if e1 >= knee {
            // BT.2390's Hermite spline from the knee to (1, maxLum).
            let t = (e1 - knee) / (1 - knee)
            let t2 = t * t, t3 = t2 * t
            e2 = (2 * t3 - 3 * t2 + 1) * knee + (t3 - 2 * t2 + t) * (1 - knee) + (-2 * t3 + 3 * t2) * maxLum
        }
        return HDRTransfer.pqToNits(e2 * sourcePeak)
    }

    /// The 8-bit sRGB-coded SDR value of display light `nits` from a source with peak `peak`.
    private static func sdrCode(nits: Double, peak: Double) -> UInt8 {
        let v = min(1, max(0, eetf(nits: nits, peak: peak) / HDRTransfer.sdrWhiteNits))
        let coded = v <= 0.0031308 ? v * 12.92 : 1.055 * pow(v, 1 / 2.4) - 0.055
        return UInt8((coded * 255).rounded())
    }

    /// The SDR picture of `bitmap` (16-bit R'G'B' in the HDR transfer; alpha kept) as 8-bit
    /// samples tagged with `icc`, and with `gainMap` the log2 HDR / SDR luminance ratio of each
    /// 4×4 block (``GainMapBuilder``).
    package func toneMap(_ bitmap: Bitmap, icc: [UInt8]?, gainMap: Bool) -> (bitmap: Bitmap, gainMap: GainMapBuilder?) {
        let (width, height, channels) = (bitmap.width, bitmap.height, bitmap.channels)
        var builder = gainMap ? GainMapBuilder(width: width, height: height) : nil
        guard case .sixteen(let source) = bitmap.samples else {
            return (bitmap, nil)
        }
        var out = [UInt8](repeating: 0, count: source.count)
        var hdrRow = [Float](repeating: 0, count: gainMap ? width : 0)
        var sdrRow = [Float](repeating: 0, count: gainMap ? width : 0)
        source.withUnsafeBufferPointer { input in
            out.withUnsafeMutableBufferPointer { target in
                for y in 0..<height {
                    let start = y * width * channels
                    mapRow(
                        UnsafeBufferPointer(rebasing: input[start..<(start + width * channels)]),
                        into: UnsafeMutableBufferPointer(rebasing: target[start..<(start + width * channels)]),
                        channels: channels, hdr: &hdrRow, sdr: &sdrRow)
                    builder?.add(row: y, hdr: hdrRow, sdr: sdrRow)
                }
            }
        }
        let mapped = Bitmap(width: width, height: height, channels: channels, samples: .eight(out), sourceBitDepth: 8, icc: icc)
        return (mapped, builder)
    }

    /// One row: each pixel's output, and (when the rows are not empty) its HDR and SDR luminance.
    private func mapRow(
        _ input: UnsafeBufferPointer<UInt16>, into target: UnsafeMutableBufferPointer<UInt8>, channels: Int,
        hdr: inout [Float], sdr: inout [Float]
    ) {
        let measuring = !hdr.isEmpty
        let (wr, wg, wb) = weights
        output.withUnsafeBufferPointer { output in
            linear.withUnsafeBufferPointer { linear in
                sdrLinear.withUnsafeBufferPointer { sdrLinear in
                    ootfGain.withUnsafeBufferPointer { ootfGain in
                        let roots = Float(Self.rootSteps - 1)
                        for x in 0..<(input.count / channels) {
                            let at = x * channels
                            let r = Int(input[at] >> 4), g = Int(input[at + 1] >> 4), b = Int(input[at + 2] >> 4)
                            var lr = linear[r], lg = linear[g], lb = linear[b]
                            switch transfer {
                            case .pq:
                                (target[at], target[at + 1], target[at + 2]) = (output[r], output[g], output[b])
                            case .hlg:
                                // BT.2100 OOTF: Fd = Lw × Ys^(γ−1) × E, in units of the peak here.
                                let ys = max(0, wr * lr + wg * lg + wb * lb)
                                let gain = ootfGain[min(Self.rootSteps - 1, Int(ys.squareRoot() * roots + 0.5))]
                                (lr, lg, lb) = (lr * gain, lg * gain, lb * gain)
                                target[at] = output[min(Self.rootSteps - 1, Int(lr.squareRoot() * roots + 0.5))]
                                target[at + 1] = output[min(Self.rootSteps - 1, Int(lg.squareRoot() * roots + 0.5))]
                                target[at + 2] = output[min(Self.rootSteps - 1, Int(lb.squareRoot() * roots + 0.5))]
                                let scale = Float(HDRTransfer.hlgPeakNits / HDRTransfer.sdrWhiteNits)
                                (lr, lg, lb) = (lr * scale, lg * scale, lb * scale)
                            }
                            if channels == 4 { target[at + 3] = UInt8((UInt32(input[at + 3]) * 255 + 32767) / 65535) }
                            guard measuring else { continue }
                            hdr[x] = wr * lr + wg * lg + wb * lb
                            sdr[x] = wr * sdrLinear[Int(target[at])] + wg * sdrLinear[Int(target[at + 1])] + wb * sdrLinear[Int(target[at + 2])]
                        }
                    }
                }
            }
        }
    }
}
