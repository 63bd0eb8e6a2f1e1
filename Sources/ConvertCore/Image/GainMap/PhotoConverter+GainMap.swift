extension PhotoConverter {
    /// Starts encoding a HEIC's gain map beside the primary (``PendingGainMap``) when the
    /// request keeps HDR and the file has a gain map this reader decodes; nil otherwise.
    static func startGainMap(_ request: PhotoRequest, source: DirectSource, cancellation: CancellationFlag) -> PendingGainMap? {
        guard request.hdr == .keep, let file = source.file else { return nil }
        switch HeifGainMap.presence(in: file) {
        case .apple, .iso:
            return PendingGainMap.start(
                path: request.inputPath, size: (source.width, source.height), quality: request.quality, cancellation: cancellation)
        case .none, .unusable:
            return nil
        }
    }

    /// The Ultra HDR file of a HEIC's primary JPEG `primary` and the gain map `pending` encoded
    /// beside it; nil when there is no map to carry (the caller then writes the SDR JPEG).
    static func ultraHDRFile(
        primary: [UInt8], pending: PendingGainMap?, exif: [UInt8]?, xmp: [UInt8]?, icc: [UInt8]?
    ) throws(ConvertError) -> (bytes: [UInt8], notes: [String])? {
        guard let encoded = try pending?.wait() else { return nil }
        let assembled = UltraHDRWriter.assemble(
            primary: primary, exif: exif, xmp: xmp, icc: icc, gainMap: encoded.stream, metadata: encoded.map.metadata)
        return (assembled.bytes, assembled.notes + [encoded.map.keptNote])
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
        case .apple, .iso:
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
