import FoundationEssentials
import Glibc

/// The HDR picture a gain map describes (ISO 21496-1's reconstruction of the alternate image),
/// computed from the SDR picture and its map and coded as 16-bit PQ with BT.2020 primaries
/// (BT.2100): what a JPEG XL output of a gain-map photo gets, since libjxl 0.7 has no gain-map box.
///
/// Per pixel, in linear light with SDR white = 1: the SDR picture goes from its ICC profile
/// (sRGB without one) to linear BT.2020 through lcms2; the map is scaled up bilinearly with
/// sample centres aligned (as libultrahdr does), and a map value g stands for a boost of
/// 2^(min + (max − min) × g^(1/gamma)) stops; hdr = (sdr + base offset) × boost − alternate
/// offset. The standard applies the boost in the base picture's primaries; applying it in
/// BT.2020 is the same, because the change of primaries is linear and keeps white (so equal
/// offsets on the three channels stay equal). Then nits = hdr × 203 (BT.2408's reference white,
/// as the PQ stills' tone mapping takes it) and ST 2084's inverse EOTF, to 16 bits.
package enum HDRRendition {
    /// The rendition of `sdr` (8 or 16 bits, RGB or RGBA; alpha kept) with `plane` (the map
    /// lined up with it, at most its size) and `metadata`, rows split among `threads` workers.
    package static func pq(
        _ sdr: Bitmap, plane: GrayPlane, metadata: GainMapMetadata, threads: Int, path: String
    ) throws(ConvertError) -> Bitmap {
        precondition(
            plane.width > 0 && plane.height > 0 && plane.width <= sdr.width && plane.height <= sdr.height,
            "the gain map is lined up with the picture")
        guard linearTransform(for: sdr) != nil else {
            throw ConvertError(
                code: .inputColorProfile,
                message: "\(path) has a colour profile that cannot be converted to BT.2020 for its HDR picture.",
                path: path)
        }
        let width = sdr.width
        let channels = sdr.channels
        let output = PthreadLocked([UInt16](repeating: 0, count: width * sdr.height * channels))
        let sampler = MapSampler(plane: plane, width: width, height: sdr.height, metadata: metadata)
        let bands = RowBands(rows: sdr.height, workers: max(1, threads))
        bands.forEachBand { _, rows in
            // A transform per band: lcms2's objects are not shared between threads here.
            guard let transform = linearTransform(for: sdr) else { return }
            let band = encodeBand(sdr, rows: rows, transform: transform, sampler: sampler)
            output.withLock {
                $0.replaceSubrange(
                    (rows.lowerBound * width * channels)..<(rows.upperBound * width * channels), with: band)
            }
        }
        return Bitmap(
            width: width, height: sdr.height, channels: channels, samples: .sixteen(output.withLock { $0 }),
            sourceBitDepth: 16)
    }

    /// The transform of `sdr`'s pixels from its profile (sRGB without one) to linear BT.2020
    /// floats; nil when its profile is not an RGB one lcms2 can use.
    private static func linearTransform(for sdr: Bitmap) -> LCMSTransform? {
        guard let source = sdr.icc.flatMap(LCMSProfile.open) ?? LCMSProfile.sRGB(), source.isRGB,
            let target = LCMSProfile.rgb(primaries: .bt2020, curve: .linear, description: "BT.2020 linear")
        else { return nil }
        return LCMSTransform(toFloatFrom: source, to: target, sixteenBit: sdr.isSixteenBit, alpha: sdr.hasAlpha)
    }

    /// The 16-bit PQ samples of `rows`.
    private static func encodeBand(_ sdr: Bitmap, rows: Range<Int>, transform: LCMSTransform, sampler: MapSampler)
        -> [UInt16]
    {
        let width = sdr.width
        let channels = sdr.channels
        let rowSamples = width * channels
        var linear = [Float](repeating: 0, count: rowSamples)
        var band = [UInt16](repeating: 0, count: rows.count * rowSamples)
        var boosts = [Float](repeating: 1, count: width)
        for (index, y) in rows.enumerated() {
            linear.withUnsafeMutableBytes { target in
                switch sdr.samples {
                case .eight(let values):
                    values.withUnsafeBytes {
                        transform.apply($0.baseAddress! + y * rowSamples, to: target.baseAddress!, count: width)
                    }
                case .sixteen(let values):
                    values.withUnsafeBytes {
                        transform.apply($0.baseAddress! + y * rowSamples * 2, to: target.baseAddress!, count: width)
                    }
                }
            }
            sampler.boosts(row: y, into: &boosts)
            let offsets = sampler.offsets
            for x in 0..<width {
                let boost = boosts[x]
                for c in 0..<3 {
                    let hdr = (linear[x * channels + c] + offsets.base) * boost - offsets.alternate
                    band[index * rowSamples + x * channels + c] = pqCode(hdr)
                }
                if channels == 4 {
                    band[index * rowSamples + x * 4 + 3] = UInt16((max(0, min(1, linear[x * 4 + 3])) * 65535).rounded())
                }
            }
        }
        return band
    }

    /// The 16-bit ST 2084 code of linear light `value` (SDR white = 1 = 203 nits).
    static func pqCode(_ value: Float) -> UInt16 {
        let signal = HDRTransfer.nitsToPQ(Double(value) * HDRTransfer.sdrWhiteNits)
        return UInt16((max(0, min(1, signal)) * 65535).rounded())
    }

    /// A gain map scaled up to the picture bilinearly, read as boosts (linear factors).
    private struct MapSampler: Sendable {
        let plane: GrayPlane
        let height: Int
        /// Per picture column: the two map columns and the weight of the second.
        let columns: [(Int, Int, Float)]
        /// The map's parameters: its values are interpolated first, then read as boosts
        /// (gamma applies to the interpolated value).
        let minStops: Float, rangeStops: Float, inverseGamma: Float
        let offsets: (base: Float, alternate: Float)

        init(plane: GrayPlane, width: Int, height: Int, metadata: GainMapMetadata) {
            self.plane = plane
            self.height = height
            columns = (0..<width).map { Self.taps($0, picture: width, map: plane.width) }
            minStops = Float(metadata.minStops)
            rangeStops = Float(metadata.maxStops - metadata.minStops)
            inverseGamma = Float(1 / metadata.gamma)
            offsets = (Float(metadata.baseOffset), Float(metadata.alternateOffset))
        }

        /// The two map samples around picture sample `index` and the second one's weight.
        static func taps(_ index: Int, picture: Int, map: Int) -> (Int, Int, Float) {
            let position = (Double(index) + 0.5) * Double(map) / Double(picture) - 0.5
            let first = max(0, min(map - 1, Int(position.rounded(.down))))
            let second = min(map - 1, first + 1)
            return (first, second, Float(max(0, min(1, position - Double(first)))))
        }

        /// The boost of every pixel of picture row `row`.
        func boosts(row: Int, into boosts: inout [Float]) {
            let (top, bottom, fy) = Self.taps(row, picture: height, map: plane.height)
            let width = plane.width
            plane.pixels.withUnsafeBufferPointer { pixels in
                for (x, (left, right, fx)) in columns.enumerated() {
                    let upper = Float(pixels[top * width + left]) * (1 - fx) + Float(pixels[top * width + right]) * fx
                    let lower =
                        Float(pixels[bottom * width + left]) * (1 - fx) + Float(pixels[bottom * width + right]) * fx
                    let value = (upper * (1 - fy) + lower * fy) / 255
                    let stops = minStops + rangeStops * (inverseGamma == 1 ? value : powf(value, inverseGamma))
                    boosts[x] = exp2f(stops)
                }
            }
        }
    }
}
