/// The tone mapping of one decoded HDR still: the SDR bitmap, the gain map computed beside it,
/// and the note.
package struct HDRStill {
    package var bitmap: Bitmap
    package var gainMap: HeifGainMap?
    package var transfer: HDRTransfer

    /// Tone maps `bitmap` (as decoded: R'G'B' in the transfer `nclx` states) when `policy` asks
    /// for it and `nclx` is PQ or HLG (``HDRStillPolicy/toneMaps(_:)``); nil otherwise. `measuring`: this is the picture a gain map is
    /// computed for (the primary image), when the policy wants one. Rows are split among
    /// `threads` workers.
    package static func apply(_ bitmap: Bitmap, nclx: NCLX?, policy: HDRStillPolicy?, measuring: Bool, threads: Int = 1)
        -> HDRStill?
    {
        guard let policy, policy.toneMaps(nclx), let nclx, let transfer = HDRTransfer(nclx) else { return nil }
        let deep = bitmap.isSixteenBit ? bitmap : bitmap.toSixteenBit()
        let mapper = HDRToneMapper(
            transfer: transfer, primaries: nclx.primaries.code, brightest: HDRToneMapper.brightestSample(deep))
        let wantsMap = policy == .toneMapWithGainMap && measuring
        let mapped = mapper.toneMap(
            deep, icc: sdrProfile(primaries: nclx.primaries.code), gainMap: wantsMap && mapper.hasHighlights,
            threads: threads)
        return finish(mapped, transfer: transfer, wantedMap: wantsMap)
    }

    /// Tone maps a picture decoded by offconvert's tile decoder straight from its YCbCr planes:
    /// two passes of the row conversion (the peak, then the pixels), so that no 16-bit RGB
    /// picture is made (for a 2400x1600 Canon photo that is 23 MB less at the peak). Both passes
    /// split the rows among `threads` workers: alone, a single photo's tone map would leave a
    /// core idle for as long as the tile decode took.
    package static func apply(
        _ image: YCbCr420Image, matrix: Int, fullRange: Bool, nclx: NCLX?, policy: HDRStillPolicy?, measuring: Bool,
        threads: Int = 1
    ) -> HDRStill? {
        guard let policy, policy.toneMaps(nclx), let nclx, let transfer = HDRTransfer(nclx) else { return nil }
        let brightest =
            transfer == .pq ? brightestSample(image, matrix: matrix, fullRange: fullRange, threads: threads) : 0
        let mapper = HDRToneMapper(transfer: transfer, primaries: nclx.primaries.code, brightest: brightest)
        let wantsMap = policy == .toneMapWithGainMap && measuring
        let mapped = mapper.toneMap(
            width: image.width, height: image.height, channels: 3, icc: sdrProfile(primaries: nclx.primaries.code),
            gainMap: wantsMap && mapper.hasHighlights, threads: threads
        ) { rows, row in
            image.withRGBRows(matrix: matrix, fullRange: fullRange, rows: rows, row)
        }
        return finish(mapped, transfer: transfer, wantedMap: wantsMap)
    }

    /// The largest 16-bit RGB sample of `image`, as ``YCbCr420Image/withRGBRows(matrix:fullRange:rows:_:)``
    /// converts it.
    private static func brightestSample(_ image: YCbCr420Image, matrix: Int, fullRange: Bool, threads: Int) -> UInt16 {
        let brightest = PthreadLocked<UInt16>(0)
        RowBands(rows: image.height, workers: threads).forEachBand { _, rows in
            let band = image.brightestRGBSample(matrix: matrix, fullRange: fullRange, rows: rows)
            brightest.withLock { $0 = max($0, band) }
        }
        return brightest.withLock { $0 }
    }

    /// The still with the gain map `mapped` measured, when one was `wantedMap`. The map is not
    /// measured at all for a PQ picture whose peak is at most SDR white (``HDRToneMapper/hasHighlights``):
    /// such a picture is its own SDR rendition, each pixel's only change its 8-bit rounding, which
    /// is under 0.02 stops, below ``minimumStops``.
    private static func finish(
        _ mapped: (bitmap: Bitmap, gainMap: GainMapBuilder?), transfer: HDRTransfer, wantedMap: Bool
    ) -> HDRStill {
        var still = HDRStill(bitmap: mapped.bitmap, gainMap: nil, transfer: transfer)
        guard wantedMap else { return still }
        if let (plane, metadata) = mapped.gainMap?.finish(), metadata.maxStops >= minimumStops {
            still.gainMap = HeifGainMap(
                plane: plane, metadata: metadata, origin: transfer.name, computedFrom: transfer.name)
        } else {
            // A picture no brighter than SDR white is its SDR rendition: a map would boost nothing.
            still.notKeptNote = "HDR not kept: the picture has no highlights above SDR white"
        }
        return still
    }

    /// The smallest boost (in stops) worth a gain map.
    private static let minimumStops = 0.05
    /// Why a JPEG that keeps HDR got no gain map, when that is so.
    var notKeptNote: String?

    /// The note of an SDR output: "HDR tone mapped to SDR (PQ, BT.2390)".
    var toneMappedNote: String { "HDR tone mapped to SDR (\(transfer.name), BT.2390)" }

    /// An ICC profile of the source's primaries over the sRGB curve (what the tone-mapped pixels
    /// are coded in): BT.709 is lcms2's sRGB, Display P3 and BT.2020 matrix/TRC profiles.
    private static func sdrProfile(primaries: Int) -> [UInt8]? {
        switch primaries {
        case 1: LCMSProfile.sRGB()?.bytes
        case 12: LCMSProfile.rgb(primaries: .displayP3, curve: .sRGB, description: "Display P3")?.bytes
        default: LCMSProfile.rgb(primaries: .bt2020, curve: .sRGB, description: "BT.2020")?.bytes
        }
    }
}
