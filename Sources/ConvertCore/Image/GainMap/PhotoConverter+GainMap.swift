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
        return (assembled.bytes, assembled.notes + [gainMap.keptNote])
    }
}

extension PhotoConverter {
    /// What the general path does with a HEIC's gain map: carries it (decoded, to follow the
    /// resized picture) when the output is one JPEG scaled as a whole (`--max-size`,
    /// `--resize --fit fit`, or neither), or notes why the HDR was not kept. Neither when the
    /// input has no gain map or the request asked for SDR.
    static func generalGainMap(_ request: PhotoRequest, cancellation: CancellationFlag) throws(ConvertError) -> (
        carried: (map: HeifGainMap, sourceSize: (width: Int, height: Int))?, note: String?
    ) {
        guard request.hdr == .keep, (try? ImageDecoder.sniff(path: request.inputPath)) == .heic,
            let file = (try? HeifFile.open(path: request.inputPath)) ?? nil
        else { return (nil, nil) }
        switch HeifGainMap.presence(in: file) {
        case .none: return (nil, nil)
        case .unusable(let why): return (nil, why)
        case .apple:
            switch request.format {
            case .jpeg:
                let wholeScale = request.resize.map { $0.fit == .fit } ?? true
                guard wholeScale, request.targetByteCount == nil, request.color == .keep, !request.allImages else {
                    return (nil, "HDR not kept: the gain map does not follow this resize, colour conversion or target size yet")
                }
                guard let size = file.displayedSize(file.primaryID), let map = try HeifGainMap.decode(file, cancellation: cancellation)
                else { return (nil, "HDR not kept: the gain map could not be decoded") }
                return ((map, size), nil)
            case .heic: return (nil, "HDR not kept: HEIC output is written without the gain map")
            default:
                let name = request.format == .webp ? "WebP" : request.format.rawValue.uppercased()
                return (nil, "HDR not kept: \(name) has no gain map")
            }
        }
    }

    /// The Ultra HDR file of `bitmap` (the source picture scaled from `sourceSize`) with `map`
    /// scaled by the same factor.
    static func ultraHDRFile(
        _ bitmap: Bitmap, map: HeifGainMap, sourceSize: (width: Int, height: Int), quality: Int, exif: [UInt8]?, xmp: [UInt8]?,
        cancellation: CancellationFlag
    ) throws(ConvertError) -> (bytes: [UInt8], notes: [String]) {
        precondition(!bitmap.hasAlpha, "alpha is flattened before JPEG encoding")
        let encoder = try TurboJPEGHandle.compressor()
        let primary = try encoder.encodeRGB(bitmap.eightBitSamples, width: bitmap.width, height: bitmap.height, quality: quality, subsampling: .s420)
        try cancellation.check()
        let width = max(1, Int((Double(map.plane.width) * Double(bitmap.width) / Double(sourceSize.width)).rounded()))
        let height = max(1, Int((Double(map.plane.height) * Double(bitmap.height) / Double(sourceSize.height)).rounded()))
        let plane = map.plane.resized(width: min(width, bitmap.width), height: min(height, bitmap.height))
        let stream = try encoder.encodeGray(plane.pixels, width: plane.width, height: plane.height, quality: quality)
        let assembled = UltraHDRWriter.assemble(primary: primary, exif: exif, xmp: xmp, icc: bitmap.icc, gainMap: stream, metadata: map.metadata)
        return (assembled.bytes, assembled.notes + [map.keptNote])
    }
}
