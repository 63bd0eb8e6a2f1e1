extension PhotoConverter {
    /// Starts encoding a HEIC's gain map beside the primary (``PendingGainMap``) when the
    /// request keeps HDR and the file has a gain map this reader decodes; nil otherwise.
    static func startGainMap(_ request: PhotoRequest, source: DirectSource, cancellation: CancellationFlag)
        -> PendingGainMap?
    {
        guard request.hdr == .keep, let file = source.file else { return nil }
        switch HeifGainMap.presence(in: file) {
        case .apple, .iso, .samsung:
            return PendingGainMap.start(
                file: file, size: (source.width, source.height), quality: request.quality, cancellation: cancellation)
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
    /// What the general path does with a HEIC's or an AVIF's gain map: carries it (decoded, to
    /// follow the picture through every resize, colour conversion and target size) when the
    /// output can, or notes why the HDR was not kept. Neither when the input has no gain map or
    /// the request asked for SDR.
    static func generalGainMap(
        _ request: PhotoRequest, format: PhotoFormat, heif: HeifFile?, cancellation: CancellationFlag
    ) throws(ConvertError) -> (carried: CarriedGainMap?, note: JobNote?) {
        guard request.hdr == .keep else { return (nil, sdrNote(request, format: format, heif: heif)) }
        if format == .jpeg { return try jpegGainMap(request, cancellation: cancellation) }
        guard format == .heic || format == .avif, let file = heif else { return (nil, nil) }
        switch HeifGainMap.presence(in: file) {
        case .none: return (nil, nil)
        case .unusable(let why): return (nil, JobNote(fact: why))
        case .apple, .iso, .samsung:
            if request.format == .heic { return try heicGainMap(request, file: file, cancellation: cancellation) }
            guard carriesLogGainMap(request.format) else { return (nil, JobNote(fact: notKeptNote(request.format))) }
            return try logGainMap(request, file: file, cancellation: cancellation)
        }
    }

    /// Whether an output of `format` takes a gain map in ISO 21496-1's logarithmic coding: an
    /// Ultra HDR JPEG and an AVIF carry it (`hdrgm:` XMP and ISO record; a `tmap` item), a JPEG
    /// XL gets the HDR picture it describes (libjxl 0.7 has no gain-map box).
    static func carriesLogGainMap(_ format: PhotoFormat) -> Bool { [.jpeg, .avif, .jxl].contains(format) }

    /// A HEIC's gain map decoded into the logarithmic coding (Apple's through its table) and
    /// carried, or why not.
    private static func logGainMap(
        _ request: PhotoRequest, file: HeifFile, cancellation: CancellationFlag
    ) throws(ConvertError) -> (carried: CarriedGainMap?, note: JobNote?) {
        let frameIndex = request.allImages ? file.topLevelImageIDs.firstIndex(of: file.primaryID) ?? 0 : 0
        guard let size = file.displayedSize(file.primaryID),
            let map = try HeifGainMap.decode(file, cancellation: cancellation)
        else { return (nil, JobNote(fact: "HDR not kept: the gain map could not be decoded")) }
        // A map whose shape is not the picture's (its sides' ratios differ) would not line up.
        let ratioX = Double(size.width) / Double(map.plane.width)
        let ratioY = Double(size.height) / Double(map.plane.height)
        guard abs(ratioX - ratioY) <= 0.02 * max(ratioX, ratioY) else {
            return (nil, JobNote(fact: "HDR not kept: the gain map's shape is not the picture's"))
        }
        return (
            CarriedGainMap(map: map, sourceWidth: size.width, sourceHeight: size.height, frameIndex: frameIndex), nil
        )
    }

    /// What a HEIC output of a HEIC, or an AVIF output of an AVIF, with a gain map says under
    /// `--hdr sdr` (the output could carry the map, so its absence is the request's doing); nil
    /// for every other output, whose notes say nothing of HDR when it was not asked for.
    static func sdrNote(_ request: PhotoRequest, format: PhotoFormat, heif: HeifFile?) -> JobNote? {
        guard request.format == format, format == .heic || format == .avif, let file = heif else { return nil }
        switch HeifGainMap.presence(in: file) {
        case .apple, .iso, .samsung: return JobNote(.gainMapRemoved, "gain map removed")
        case .none, .unusable: return nil
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

    /// The gain map of a JPEG input (Ultra HDR, ISO 21496-1, Apple's): decoded and turned upright
    /// by the primary's EXIF Orientation, to be carried like a HEIC's. Apple's goes to a HEIC
    /// output as stored (Apple's coding, with its MakerNote headroom), to the others through
    /// Apple's table into the logarithmic coding, as a HEIC's Apple map does.
    static func jpegGainMap(_ request: PhotoRequest, cancellation: CancellationFlag) throws(ConvertError) -> (
        carried: CarriedGainMap?, note: JobNote?
    ) {
        let path = request.inputPath
        // An unreadable file is the decoder's to report, with its own error.
        guard let data = try? ImageDecoder.readAll(path: path), let located = JPEGGainMap.locate(data) else {
            return (nil, nil)
        }
        let keepsAppleCoding = located.apple != nil && request.format == .heic
        guard carriesLogGainMap(request.format) || keepsAppleCoding else {
            return (nil, JobNote(fact: notKeptNote(request.format)))
        }
        // As for a HEIC's Apple map: in a HEIC, only the MakerNote says what the map means.
        if keepsAppleCoding, request.metadata == .strip {
            return (
                nil,
                JobNote(
                    .gainMapMetadataRemoved,
                    "HDR not kept: the metadata that describes the gain map is removed with the rest")
            )
        }
        guard located.metadata.brightens else {
            return (nil, JobNote(fact: "HDR not kept: the gain map has no headroom"))
        }
        try cancellation.check()
        // A damaged map costs the HDR, not the photo.
        guard
            let decoded = try? decodeGainMap(
                Array(data[located.range]), primary: data, path: path, maxPixels: request.maxPixels)
        else { return (nil, JobNote(fact: "HDR not kept: the gain map could not be decoded")) }
        let (plane, primarySize, orientation) = decoded
        let swaps = orientation >= 5
        var map = HeifGainMap(plane: plane, metadata: located.metadata, origin: located.origin)
        if let apple = located.apple {
            if keepsAppleCoding {
                map.appleMakerNote = apple.makerNote
            } else {
                GainMapTable(appleStops: apple.stops).apply(to: &map.plane)
            }
        }
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
        _ bitmap: Bitmap, plane: GrayPlane, metadata: GainMapMetadata, quality: Int, exif: [UInt8]?, xmp: [UInt8]?,
        iptc: [UInt8]?
    ) throws(ConvertError) -> (bytes: [UInt8], notes: [String]) {
        precondition(!bitmap.hasAlpha, "alpha is flattened before JPEG encoding")
        let encoder = try TurboJPEGHandle.compressor()
        let primary = try encoder.encodeRGB(
            bitmap.eightBitSamples, width: bitmap.width, height: bitmap.height, quality: quality, subsampling: .s420)
        let stream = try encoder.encodeGray(plane.pixels, width: plane.width, height: plane.height, quality: quality)
        return UltraHDRWriter.assemble(
            primary: primary, exif: exif, xmp: xmp, iptc: iptc, icc: bitmap.icc, gainMap: stream, metadata: metadata)
    }

    /// A gain-map JPEG `stream` decoded to grey and turned upright by the EXIF Orientation of
    /// `primary` (the whole file); with the primary's stored size and that orientation.
    private static func decodeGainMap(_ stream: [UInt8], primary: [UInt8], path: String, maxPixels: Int)
        throws(ConvertError) -> (
            GrayPlane, JPEGHeader, Int
        )?
    {
        let decoder = try TurboJPEGHandle.decompressor()
        let mapSize = try decoder.header(stream, path: path)
        let primarySize = try decoder.header(primary, path: path)
        guard mapSize.width * mapSize.height <= maxPixels else { return nil }
        let orientation = JPEGMarkers.metadata(primary).exif.flatMap { Exif(block: $0)?.orientation } ?? 1
        let pixels = try decoder.decodeGray(stream, width: mapSize.width, height: mapSize.height, path: path)
        let plane = GrayPlane(width: mapSize.width, height: mapSize.height, pixels: pixels).applyingOrientation(
            orientation)
        return (plane, primarySize, orientation)
    }
}

extension PhotoConverter {
    /// Writes `bitmap` and its gain map `plane` (lined up with it) as an Ultra HDR JPEG at
    /// `destination`, telling `note` what was kept.
    static func writeUltraHDR(
        _ bitmap: Bitmap, plane: GrayPlane, map: HeifGainMap, request: PhotoRequest, metadata: OutputMetadata,
        to destination: String, note: (String) -> Void, cancellation: CancellationFlag
    ) throws(ConvertError) -> OutputFile {
        let file = try ultraHDRFile(
            bitmap, plane: plane, metadata: map.metadata, quality: request.quality, exif: metadata.exif,
            xmp: metadata.xmp,
            iptc: metadata.iptc)
        file.notes.forEach(note)
        note(map.keptNote)
        return try writeBytes(file.bytes, to: destination, for: request, cancellation: cancellation)
    }
}
