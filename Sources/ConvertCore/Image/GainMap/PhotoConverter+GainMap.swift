extension PhotoConverter {
    /// The Ultra HDR file of a HEIC's primary JPEG `primary` (displayed size `size`) when the
    /// request keeps HDR and the HEIC has an Apple gain map this reader decodes; nil otherwise
    /// (the caller then writes the SDR JPEG as before).
    static func ultraHDRFile(
        _ request: PhotoRequest, source: DirectSource, primary: [UInt8], exif: [UInt8]?, xmp: [UInt8]?, icc: [UInt8]?,
        size: (width: Int, height: Int), encoder: TurboJPEGHandle, cancellation: CancellationFlag
    ) throws(ConvertError) -> (bytes: [UInt8], notes: [String])? {
        guard request.hdr == .keep, let file = source.file, let gainMap = try HeifGainMap.decode(file, cancellation: cancellation)
        else { return nil }
        var plane = gainMap.plane
        // A map whose shape is not the picture's (its sides' ratios differ) would not line up.
        let ratioX = Double(size.width) / Double(plane.width)
        let ratioY = Double(size.height) / Double(plane.height)
        guard abs(ratioX - ratioY) <= 0.02 * max(ratioX, ratioY) else { return nil }
        // Ultra HDR decoders scale the map up; one no larger than the picture keeps it small.
        if plane.width > size.width || plane.height > size.height { plane = plane.resized(width: size.width, height: size.height) }
        try cancellation.check()
        let stream = try encoder.encodeGray(plane.pixels, width: plane.width, height: plane.height, quality: request.quality)
        let assembled = UltraHDRWriter.assemble(
            primary: primary, exif: exif, xmp: xmp, icc: icc, gainMap: stream, metadata: gainMap.metadata)
        let stops = (gainMap.metadata.alternateHeadroomStops * 10).rounded() / 10
        return (assembled.bytes, assembled.notes + ["HDR gain map kept (\(gainMap.origin), headroom \(stops) stops)"])
    }
}

extension PhotoConverter {
    /// The note for a photo whose gain map the general path does not carry: the output format
    /// has no gain map (PNG, WebP, AVIF; HEIC output is written without one), or the JPEG goes
    /// through a step the gain map does not follow yet. Nil when the input has no gain map or
    /// the request asked for SDR.
    static func droppedGainMapNote(_ request: PhotoRequest) -> String? {
        guard request.hdr == .keep, (try? ImageDecoder.sniff(path: request.inputPath)) == .heic,
            let file = (try? HeifFile.open(path: request.inputPath)) ?? nil
        else { return nil }
        switch HeifGainMap.presence(in: file) {
        case .none: return nil
        case .unusable(let why): return why
        case .apple:
            switch request.format {
            case .jpeg: return "HDR not kept: the gain map does not follow this resize or colour conversion yet"
            case .heic: return "HDR not kept: HEIC output is written without the gain map"
            default:
                let name = request.format == .webp ? "WebP" : request.format.rawValue.uppercased()
                return "HDR not kept: \(name) has no gain map"
            }
        }
    }
}
