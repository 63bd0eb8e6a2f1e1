import FoundationEssentials

/// JPEG XL outputs of HDR photos: libjxl 0.7 has no gain-map box, but its colour encoding names
/// PQ and HLG, so the HDR picture itself is written at 16 bits. A gain-map photo (HEIC, Ultra
/// HDR JPEG) gets the HDR rendition its map describes (``HDRRendition``) as PQ over BT.2020; a
/// PQ or HLG still keeps its code values and its transfer (``HDRStillPolicy/keepTransfer``).
/// `--hdr sdr` writes the SDR picture instead, as for every other output.
extension PhotoConverter {
    /// Writes the HDR rendition of `bitmap` and its gain map `plane` (lined up with it) as a
    /// 16-bit PQ JPEG XL to `destination`, staged, with a note saying so.
    static func writeHDRJXL(
        _ bitmap: Bitmap, plane: GrayPlane, map: HeifGainMap, request: PhotoRequest, metadata: OutputMetadata,
        to destination: String, note: (String) -> Void, cancellation: CancellationFlag
    ) throws(ConvertError) -> OutputFile {
        let threads = request.decodingThreads ?? ProcessInfo.processInfo.activeProcessorCount
        let rendition = try HDRRendition.pq(
            bitmap, plane: plane, metadata: map.metadata, threads: threads, path: request.inputPath)
        try cancellation.check()
        let stops = (map.metadata.alternateHeadroomStops * 10).rounded() / 10
        note(
            "HDR rendition written as 16-bit PQ (BT.2100): the \(map.origin) gain map applied, headroom \(stops) stops")
        return try writeJXL(
            rendition, transfer: .pq, primaries: 9, request: request, metadata: metadata, to: destination,
            cancellation: cancellation)
    }

    /// Writes `bitmap`, whose samples are still coded as `coding` says (a PQ or HLG still), as a
    /// 16-bit JPEG XL with that transfer and those primaries, staged, with a note saying so.
    static func writeHDRJXL(
        _ bitmap: Bitmap, coding: NCLX, request: PhotoRequest, metadata: OutputMetadata, to destination: String,
        note: (String) -> Void, cancellation: CancellationFlag
    ) throws(ConvertError) -> OutputFile {
        guard let transfer = HDRTransfer(coding) else { preconditionFailure("an HDR coding has an HDR transfer") }
        note("HDR kept: written as 16-bit \(transfer.name) (\(primariesName(coding.primaries.code)))")
        return try writeJXL(
            bitmap, transfer: transfer, primaries: coding.primaries.code, request: request, metadata: metadata,
            to: destination,
            cancellation: cancellation)
    }

    /// The primaries a JPEG XL colour encoding can name, in words.
    private static func primariesName(_ primaries: Int) -> String {
        switch primaries {
        case 9: "BT.2100"
        case 12: "Display P3"
        default: "BT.709"
        }
    }

    private static func writeJXL(
        _ bitmap: Bitmap, transfer: HDRTransfer, primaries: Int, request: PhotoRequest, metadata: OutputMetadata,
        to destination: String, cancellation: CancellationFlag
    ) throws(ConvertError) -> OutputFile {
        let bytes = try JXLCodec.encodeHDR(
            bitmap, transfer: transfer, primaries: primaries, quality: request.quality, lossless: request.lossless,
            exif: metadata.exif,
            xmp: metadata.xmp)
        return try writeBytes(bytes, to: destination, for: request, cancellation: cancellation)
    }
}
