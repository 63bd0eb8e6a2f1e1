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

/// A HEIC's gain map as the general path carries it: decoded once at its own size, then cut,
/// scaled and padded by the same ``ResizePlan`` as the picture, for each resolution the
/// conversion (or its target-size search) writes.
package struct CarriedGainMap: Sendable {
    package var map: HeifGainMap
    /// The displayed size of the source picture the map covers.
    package var sourceWidth: Int
    package var sourceHeight: Int
    /// Which of the decoded frames is the primary picture (`--all-images` decodes them all).
    package var frameIndex: Int

    /// The map lined up with a picture `bitmap` made from the source by `resize` and then
    /// `maxLongEdge`: the plan's crop, scale and canvas at the map's own resolution (never
    /// more than the picture's), bars set to "no boost".
    package func plane(resize: PhotoResize?, maxLongEdge: Int?, bitmapWidth: Int, bitmapHeight: Int) -> GrayPlane {
        let plan = ResizePlan(sourceWidth: sourceWidth, sourceHeight: sourceHeight, resize: resize, maxLongEdge: maxLongEdge)
        let source = map.plane
        let factor = min(1, Double(source.width) / Double(sourceWidth))
        func scaled(_ value: Int) -> Int { max(1, Int((Double(value) * factor).rounded())) }
        func offset(_ value: Int) -> Int { Int((Double(value) * factor).rounded()) }
        let sx = Double(source.width) / Double(sourceWidth), sy = Double(source.height) / Double(sourceHeight)
        var plane = source.cropped(
            x: Int((Double(plan.crop.x) * sx).rounded()), y: Int((Double(plan.crop.y) * sy).rounded()),
            width: max(1, Int((Double(plan.crop.width) * sx).rounded())), height: max(1, Int((Double(plan.crop.height) * sy).rounded())))
        plane = plane.resized(width: scaled(plan.scaledWidth), height: scaled(plan.scaledHeight))
        plane = plane.placed(
            onCanvas: scaled(plan.canvasWidth), scaled(plan.canvasHeight), x: offset(plan.offsetX), y: offset(plan.offsetY),
            fill: map.metadata.noBoostCode)
        if plane.width > bitmapWidth || plane.height > bitmapHeight { plane = plane.resized(width: bitmapWidth, height: bitmapHeight) }
        return plane
    }
}

extension PhotoConverter {
    /// What the general path does with a HEIC's gain map: carries it (decoded, to follow the
    /// picture through every resize, colour conversion and target size) when the output is
    /// JPEG, or notes why the HDR was not kept. Neither when the input has no gain map or the
    /// request asked for SDR.
    static func generalGainMap(_ request: PhotoRequest, cancellation: CancellationFlag) throws(ConvertError) -> (
        carried: CarriedGainMap?, note: String?
    ) {
        guard request.hdr == .keep else { return (nil, nil) }
        let kind = try? ImageDecoder.sniff(path: request.inputPath)
        if kind == .jpeg { return try jpegGainMap(request, cancellation: cancellation) }
        guard kind == .heic, let file = (try? HeifFile.open(path: request.inputPath)) ?? nil else { return (nil, nil) }
        switch HeifGainMap.presence(in: file) {
        case .none: return (nil, nil)
        case .unusable(let why): return (nil, why)
        case .apple, .iso:
            switch request.format {
            case .jpeg:
                let frameIndex = request.allImages ? file.topLevelImageIDs.firstIndex(of: file.primaryID) ?? 0 : 0
                guard let size = file.displayedSize(file.primaryID), let map = try HeifGainMap.decode(file, cancellation: cancellation)
                else { return (nil, "HDR not kept: the gain map could not be decoded") }
                // A map whose shape is not the picture's (its sides' ratios differ) would not line up.
                let ratioX = Double(size.width) / Double(map.plane.width), ratioY = Double(size.height) / Double(map.plane.height)
                guard abs(ratioX - ratioY) <= 0.02 * max(ratioX, ratioY) else {
                    return (nil, "HDR not kept: the gain map's shape is not the picture's")
                }
                return (CarriedGainMap(map: map, sourceWidth: size.width, sourceHeight: size.height, frameIndex: frameIndex), nil)
            default: return (nil, notKeptNote(request.format))
            }
        }
    }

    /// Why an output of `format` (not JPEG) has no gain map.
    static func notKeptNote(_ format: PhotoFormat) -> String {
        switch format {
        case .heic: return "HDR not kept: HEIC output is written without the gain map"
        case .webp: return "HDR not kept: WebP has no gain map"
        default: return "HDR not kept: \(format.rawValue.uppercased()) has no gain map"
        }
    }

    /// The gain map of a JPEG input (Ultra HDR, ISO 21496-1): decoded and turned upright by the
    /// primary's EXIF Orientation, to be carried like a HEIC's.
    static func jpegGainMap(_ request: PhotoRequest, cancellation: CancellationFlag) throws(ConvertError) -> (
        carried: CarriedGainMap?, note: String?
    ) {
        let path = request.inputPath
        let data = try ImageDecoder.readAll(path: path)
        guard let located = JPEGGainMap.locate(data) else { return (nil, nil) }
        guard request.format == .jpeg else { return (nil, notKeptNote(request.format)) }
        guard located.metadata.alternateHeadroomStops > 0, located.metadata.maxStops > located.metadata.minStops else {
            return (nil, "HDR not kept: the gain map has no headroom")
        }
        let stream = Array(data[located.range])
        let decoder = try TurboJPEGHandle.decompressor()
        let mapSize = try decoder.header(stream, path: path)
        let primarySize = try decoder.header(data, path: path)
        guard mapSize.width * mapSize.height <= request.maxPixels else { return (nil, "HDR not kept: the gain map is too large") }
        try cancellation.check()
        let orientation = JPEGMarkers.metadata(data).exif.flatMap { Exif(block: $0)?.orientation } ?? 1
        let plane = GrayPlane(
            width: mapSize.width, height: mapSize.height,
            pixels: try decoder.decodeGray(stream, width: mapSize.width, height: mapSize.height, path: path)
        ).applyingOrientation(orientation)
        let swaps = orientation >= 5
        let map = HeifGainMap(plane: plane, metadata: located.metadata, origin: located.origin)
        return (
            CarriedGainMap(
                map: map, sourceWidth: swaps ? primarySize.height : primarySize.width,
                sourceHeight: swaps ? primarySize.width : primarySize.height, frameIndex: 0), nil
        )
    }

    /// The Ultra HDR file of `bitmap` at `quality` with `plane` (the map lined up with it, see
    /// ``CarriedGainMap/plane(resize:maxLongEdge:bitmapWidth:bitmapHeight:)``) encoded at the
    /// same quality: the size a target-size search counts is both images'.
    static func ultraHDRFile(
        _ bitmap: Bitmap, plane: GrayPlane, metadata: GainMapMetadata, quality: Int, exif: [UInt8]?, xmp: [UInt8]?, iptc: [UInt8]?
    ) throws(ConvertError) -> (bytes: [UInt8], notes: [String]) {
        precondition(!bitmap.hasAlpha, "alpha is flattened before JPEG encoding")
        let encoder = try TurboJPEGHandle.compressor()
        let primary = try encoder.encodeRGB(bitmap.eightBitSamples, width: bitmap.width, height: bitmap.height, quality: quality, subsampling: .s420)
        let stream = try encoder.encodeGray(plane.pixels, width: plane.width, height: plane.height, quality: quality)
        return UltraHDRWriter.assemble(
            primary: primary, exif: exif, xmp: xmp, iptc: iptc, icc: bitmap.icc, gainMap: stream, metadata: metadata)
    }
}
