/// Reads a still image's description without converting it.
public enum ImageProbe {
    /// Probes the image at `path` (format detected from its content), reading it off Swift's
    /// cooperative threads as ``PhotoConverter`` does.
    ///
    /// - Throws: the photo reader's `.input` and `.unsupported` errors (`input.missing`,
    ///   `input.corrupt`, `unsupported.not-a-photo`, ...); `.cancelled` when the calling task is
    ///   cancelled before the read starts.
    public static func probe(path: String) async throws(ConvertError) -> ImageInfo {
        do {
            return try await runBlocking(on: .short) { flag in
                try flag.check()
                return try probeBlocking(path: path)
            }
        } catch {
            throw error.naming(path)
        }
    }

    /// Probes the image at `path` on the calling thread: for callers already on a blocking thread.
    /// With `verifyingPixels` (`info`), a PNG's rows are read too, from the same bytes, and
    /// throw the error a conversion would (see ``verifyPixels(_:info:path:)``).
    package static func probeBlocking(path: String, verifyingPixels: Bool = false) throws(ConvertError) -> ImageInfo {
        try probe(PhotoInput.open(path: path), verifyingPixels: verifyingPixels)
    }

    /// Probes `input`, read already (its HEIF item model is not parsed again).
    package static func probe(_ input: PhotoInput, verifyingPixels: Bool = false) throws(ConvertError) -> ImageInfo {
        var info = try probeFormat(input, verifyingPixels: verifyingPixels)
        // Samsung's trailer (after a JPEG, in a HEIC's last `sefd` box) records the country of
        // the network the phone was on: a location, as IPTC's country is.
        if [.jpeg, .heic, .avif].contains(input.format), let source = try? FileByteSource(path: input.path),
            SamsungTrailer.entryNames(in: source).contains(SamsungTrailer.countryCodeEntry)
        {
            info.locationSources.append(.samsungCountry)
            info.hasLocation = true
        }
        return info
    }

    private static func probeFormat(_ input: PhotoInput, verifyingPixels: Bool) throws(ConvertError) -> ImageInfo {
        let path = input.path
        switch input.format {
        case .heic, .avif:
            var info = try probeHeif(input)
            // An animated AVIF's frames are a movie track beside its still image (libheif reads the still).
            info.animation = AnimationSummary.ofSequence(meta: input.heifMeta, path: path).map(
                ImageInfo.Animation.init)
            return info
        case .jpeg: return try probeJPEG(path: path)
        case .png:
            // The header chunks say all `info` shows: inflating the pixels would cost the whole
            // bitmap's memory for nothing (and a batch probes every input for its cost).
            let data = try ImageDecoder.readAll(path: path)
            let header = try PNGCodec.header(data, path: path)
            // The depth the file stores (1, 2 and 4 bits too), not the 8 it is decoded to.
            var result = info(
                format: .png, width: header.width, height: header.height, bitDepth: header.sourceBitDepth,
                hasAlpha: header.hasAlpha, icc: header.icc, exif: header.exif, xmp: PNGText.xmp(data))
            result.color.model = header.colorType == 3 ? "indexed" : header.colorType & 2 == 0 ? "grey" : nil
            if case .cicp(let nclx) = PNGColorChunks(data).description { result.color.nclx = nclx }
            result.animation = AnimationSummary.of(data, format: .png, path: path).map(ImageInfo.Animation.init)
            if verifyingPixels { try verifyPixels(data, info: &result, path: path) }
            return result
        case .webp:
            // Headers and metadata chunks only, as for PNG: no limit to apply, no pixels decoded.
            let data = try ImageDecoder.readAll(path: path)
            let header = try WebPCodec.header(data, path: path)
            var result = info(
                format: .webp, width: header.width, height: header.height, bitDepth: 8, hasAlpha: header.hasAlpha,
                icc: header.icc, exif: header.exif, xmp: header.xmp)
            result.animation = AnimationSummary.of(data, format: .webp, path: path).map(ImageInfo.Animation.init)
            return result
        case .gif:
            // GIF's palette pixels become 8-bit RGBA with alpha (transparent outside the frame).
            // The blocks are walked, no frame decoded: no limit to apply yet.
            let data = try ImageDecoder.readAll(path: path)
            let gif = try GIFAnimation(data, maxPixels: nil, path: path)
            var result = info(
                format: .gif, width: gif.width, height: gif.height, bitDepth: 8, hasAlpha: true, icc: nil, exif: nil,
                xmp: nil)
            result.animation = AnimationSummary(durations: gif.durations).map(ImageInfo.Animation.init)
            return result
        case .jxl:
            return try probeJXL(path: path)
        case .bmp:
            // Headers only; a V3+ alpha mask is reported as alpha (an all-zero channel, read as
            // opaque, is only found by decoding).
            let header = try BMPDecoder.header(ImageDecoder.readAll(path: path), path: path)
            return info(
                format: .bmp, width: header.width, height: header.height, bitDepth: 8, hasAlpha: header.mayHaveAlpha,
                icc: header.icc, exif: nil, xmp: nil)
        case .tiff:
            return try probeTIFF(path: path)
        case .tga, .pnm, .ico, .psd, .jp2:
            return try probeSmallFormat(input.format, path: path)
        }
    }

    /// Reads every row of the PNG in `data`, keeping none, and throws the error a conversion
    /// would: a PNG's header chunks can be whole while its image data is damaged (a CRC error in
    /// an IDAT, a broken zlib stream). For `info`, which must not call such a file a fine
    /// picture; the batch's cost probe does not pay for it. A file cut short that a conversion
    /// keeps as far as it goes gets the conversion's note in ``ImageInfo/damage``. Not past the
    /// pixel limit: a conversion refuses that from the header, and a zlib bomb's rows would keep
    /// `info` busy for nothing.
    private static func verifyPixels(_ data: [UInt8], info: inout ImageInfo, path: String) throws(ConvertError) {
        guard Int64(info.width) * Int64(info.height) <= Int64(PixelLimit.defaultMaxPixels) else { return }
        info.damage = try PNGCodec.verify(data, height: info.height, path: path)
    }

    /// TGA, Netpbm, icon, Photoshop and JPEG 2000: headers only, no pixel decoded; a colour
    /// model other than RGB is named (grey, indexed, CMYK).
    private static func probeSmallFormat(_ format: PhotoFormat, path: String) throws(ConvertError) -> ImageInfo {
        let data = try ImageDecoder.readAll(path: path)
        var result: ImageInfo
        var model: String?
        switch format {
        case .tga:
            let header = try TGADecoder.header(data, path: path)
            result = info(
                format: .tga, width: header.width, height: header.height, bitDepth: 8, hasAlpha: header.mayHaveAlpha,
                icc: nil, exif: nil, xmp: nil)
            model = header.isGrey ? "grey" : header.imageType & 7 == 1 ? "indexed" : nil
        case .pnm:
            let header = try PNMDecoder.header(data, path: path)
            result = info(
                format: .pnm, width: header.width, height: header.height, bitDepth: header.bitDepth > 8 ? 16 : 8,
                hasAlpha: header.hasAlpha, icc: nil, exif: nil, xmp: nil)
            model = header.maxval == 1 && header.isGrey ? "black and white" : header.isGrey ? "grey" : nil
        case .ico:
            let header = try ICODecoder.header(data, path: path)
            result = info(
                format: .ico, width: header.width, height: header.height, bitDepth: 8,
                hasAlpha: true, icc: nil,
                exif: nil, xmp: nil)
            result.imageCount = header.count
        case .psd:
            let header = try PSDDecoder.header(data, path: path)
            result = info(
                format: .psd, width: header.width, height: header.height, bitDepth: header.depth,
                hasAlpha: header.hasAlpha, icc: header.icc, exif: nil, xmp: nil)
            model = header.modelName
        default:
            let header = try JPEG2000Decoder.header(data, path: path)
            result = info(
                format: .jp2, width: header.width, height: header.height, bitDepth: header.precision,
                hasAlpha: header.hasAlpha, icc: header.icc, exif: nil, xmp: nil)
            model = header.colorSpace == 5 ? "CMYK" : header.componentCount < 3 ? "grey" : nil
        }
        result.color.model = model
        return result
    }

    /// JPEG XL: the codestream header and boxes only; its size is upright already (libjxl
    /// orients), so the EXIF Orientation is reported but not applied again.
    private static func probeJXL(path: String) throws(ConvertError) -> ImageInfo {
        let image = try JXLCodec.header(ImageDecoder.readAll(path: path), path: path)
        let exif = image.exif.flatMap { Exif(block: $0) }
        let sources = locations(exif: exif, xmp: image.xmp)
        return ImageInfo(
            format: .jxl, width: image.width, height: image.height, bitDepth: image.bitDepth, hasAlpha: image.hasAlpha,
            exifOrientation: exif?.orientation, containerRotates: nil,
            color: color(icc: image.originalICC, nclx: image.hdrCoding),
            hasEXIF: image.exif != nil, hasXMP: image.xmp != nil, hasLocation: !sources.isEmpty,
            locationSources: sources,
            make: exif?.make, model: exif?.model, dateTimeOriginal: exif?.dateTimeOriginal, imageCount: 1,
            auxiliaryImages: [], thumbnailCount: exif?.hasThumbnail == true ? 1 : 0)
    }

    /// TIFF: the first page's tags and the page count; its orientation is the TIFF tag (the one
    /// EXIF copies), applied to the size shown.
    private static func probeTIFF(path: String) throws(ConvertError) -> ImageInfo {
        let data = try ImageDecoder.readAll(path: path)
        let header = try TIFFDecoder.header(data, path: path)
        // The first page's camera, date and GPS tags, as a conversion carries them.
        let exifBytes = Exif.ofTIFFPage(data)
        let exif = exifBytes.flatMap { Exif(block: $0) }
        let sources = locations(exif: exif, xmp: header.xmp)
        return ImageInfo(
            format: .tiff, width: header.width, height: header.height, bitDepth: header.bitDepth,
            hasAlpha: header.hasAlpha,
            exifOrientation: header.orientation == 1 ? nil : header.orientation, containerRotates: nil,
            color: color(icc: header.icc),
            hasEXIF: exif?.make != nil || exif?.model != nil || exif?.dateTimeOriginal != nil || exif?.hasGPS == true,
            hasXMP: header.xmp != nil, hasLocation: !sources.isEmpty, locationSources: sources, make: exif?.make,
            model: exif?.model,
            dateTimeOriginal: exif?.dateTimeOriginal, imageCount: header.pageCount, auxiliaryImages: [],
            thumbnailCount: 0)
    }

    private static func color(icc: [UInt8]?, nclx: NCLX? = nil) -> ImageInfo.Color {
        ImageInfo.Color(iccDescription: icc.flatMap(ColorProfiles.describe), iccBytes: icc?.count, nclx: nclx)
    }

    private static func locations(exif: Exif?, xmp: [UInt8]?, iptc: [UInt8]? = nil) -> [LocationSource] {
        var sources: [LocationSource] = []
        if exif?.gpsHasPosition == true { sources.append(.exif) }
        if let xmp { sources += XMP.locationKinds(xmp) }
        if let iptc, IPTC.hasLocation(iptc) { sources.append(.iptc) }
        if exif?.thumbnailHasGPS == true { sources.append(.exifThumbnail) }
        return sources
    }

    /// Info for a picture stored `width`×`height` and turned upright by its EXIF Orientation.
    private static func info(
        format: PhotoFormat, width: Int, height: Int, bitDepth: Int, hasAlpha: Bool, icc: [UInt8]?,
        exif exifBytes: [UInt8]?, xmp: [UInt8]?
    ) -> ImageInfo {
        let exif = exifBytes.flatMap { Exif(block: $0) }
        let orientation = exif?.orientation
        let swaps = (orientation ?? 1) >= 5
        let sources = locations(exif: exif, xmp: xmp)
        var info = ImageInfo(
            format: format, width: swaps ? height : width, height: swaps ? width : height,
            bitDepth: bitDepth, hasAlpha: hasAlpha, exifOrientation: orientation, containerRotates: nil,
            color: color(icc: icc), hasEXIF: exifBytes != nil, hasXMP: xmp != nil, hasLocation: !sources.isEmpty,
            locationSources: sources, make: exif?.make, model: exif?.model, dateTimeOriginal: exif?.dateTimeOriginal,
            imageCount: 1, auxiliaryImages: [], thumbnailCount: exif?.hasThumbnail == true ? 1 : 0)
        info.gpsWithoutPosition = exif?.hasGPSWithoutPosition == true ? true : nil
        return info
    }

    private static func probeJPEG(path: String) throws(ConvertError) -> ImageInfo {
        let data = try ImageDecoder.readAll(path: path)
        let header = try TurboJPEGHandle.decompressor().header(data, path: path)
        let (width, height) = (header.width, header.height)
        let metadata = JPEGMarkers.metadata(data)
        let exif = metadata.exif.flatMap { Exif(block: $0) }
        let orientation = exif?.orientation
        let swaps = (orientation ?? 1) >= 5
        var sources = locations(exif: exif, xmp: metadata.xmp, iptc: IPTC.block(inJPEG: data))
        if FLIRRecords(jpeg: data)?.hasGPS == true { sources.append(.flir) }
        var info = ImageInfo(
            format: .jpeg, width: swaps ? height : width, height: swaps ? width : height, bitDepth: 8, hasAlpha: false,
            exifOrientation: orientation, containerRotates: nil, color: color(icc: metadata.icc),
            hasEXIF: metadata.exif != nil, hasXMP: metadata.xmp != nil, hasLocation: !sources.isEmpty,
            locationSources: sources, make: exif?.make, model: exif?.model, dateTimeOriginal: exif?.dateTimeOriginal,
            imageCount: 1, auxiliaryImages: [], thumbnailCount: exif?.hasThumbnail == true ? 1 : 0)
        if header.colorSpace.isInk { info.color.model = header.colorSpace.name }
        info.gpsWithoutPosition = exif?.hasGPSWithoutPosition == true ? true : nil
        if let views = MPFIndex(data)?.views, !views.isEmpty {
            info.imageCount = 1 + views.count
            info.multiPicture = views.allSatisfy { $0.typeCode == 0x02_0002 } ? "stereo" : "multi-angle"
        }
        if let map = JPEGGainMap.locate(data) {
            info.gainMap = ImageInfo.GainMap(
                origin: map.origin, headroomStops: map.metadata.alternateHeadroomStops,
                brightens: map.metadata.brightens)
        }
        return info
    }

    private static func probeHeif(_ input: PhotoInput) throws(ConvertError) -> ImageInfo {
        let (path, format) = (input.path, input.format)
        if let file = try input.heifFile(), file.isHEVC(file.primaryID) {
            guard file.isStoredWhole else {
                throw ConvertError(
                    code: .inputTruncated, message: "\(path) is damaged: it is cut short.", path: path)
            }
            return probeHEVC(file, format: format)
        }
        var info = try probeWithLibheif(path: path, format: format, meta: input.heifMeta)
        // An AVIF's gain map (offconvert writes one) is described by its tmap item, read the same way.
        if let file = try input.heifFile() {
            switch HeifGainMap.presence(in: file) {
            case .iso(_, let metadata):
                info.gainMap = ImageInfo.GainMap(origin: "ISO 21496-1", headroomStops: metadata.alternateHeadroomStops)
            case .unusable(let why): info.ignoredGainMap = ignoredReason(why)
            case .none, .apple, .samsung: break
            }
        }
        return info
    }

    /// Why a gain map is ignored, in `info`'s words: a conversion's note ("HDR not kept: …")
    /// without its lead.
    private static func ignoredReason(_ note: String) -> String {
        let lead = "HDR not kept: "
        return note.hasPrefix(lead) ? String(note.dropFirst(lead.count)) : note
    }

    /// Info for an HEVC-coded HEIF from offconvert's own reader, the way libheif would report it.
    private static func probeHEVC(_ file: HeifFile, format: PhotoFormat) -> ImageInfo {
        let primary = file.primaryID
        let exifBytes = file.exif(primary)
        let exif = exifBytes.flatMap { Exif(block: $0) }
        let xmp = file.xmp(primary)
        func hasLocation(_ id: UInt32) -> Bool {
            file.exif(id).flatMap { Exif(block: $0) }?.hasGPS == true || file.xmp(id).map(XMP.hasLocation) == true
        }
        var sources = locations(exif: exif, xmp: xmp)
        let thumbnails = file.thumbnails(of: primary)
        if thumbnails.contains(where: hasLocation) { sources.append(.thumbnail) }
        let ids = file.topLevelImageIDs
        if ids.contains(where: { $0 != primary && hasLocation($0) }) { sources.append(.otherImage) }
        var auxiliary = file.otherAuxiliaryTypes(primary)
        if file.depthImageCount(primary) > 0 { auxiliary.insert("depth", at: 0) }
        let coded = file.codedSize(primary) ?? (0, 0)
        let shown = file.displayedSize(primary) ?? coded
        let rotates =
            coded.width > 0 && coded.width != coded.height && coded.width == shown.height
            && coded.height == shown.width
        var info = ImageInfo(
            format: format, width: shown.width, height: shown.height, bitDepth: file.bitDepth(primary) ?? 8,
            hasAlpha: file.hasAlpha(primary), exifOrientation: exif?.orientation, containerRotates: rotates,
            color: color(icc: file.iccProfile(primary), nclx: file.nclx(primary)), hasEXIF: exifBytes != nil,
            hasXMP: xmp != nil, hasLocation: !sources.isEmpty, locationSources: sources, make: exif?.make,
            model: exif?.model, dateTimeOriginal: exif?.dateTimeOriginal, imageCount: ids.count,
            auxiliaryImages: auxiliary, thumbnailCount: thumbnails.count)
        info.gpsWithoutPosition = exif?.hasGPSWithoutPosition == true ? true : nil
        switch HeifGainMap.presence(in: file) {
        case .apple(_, let stops): info.gainMap = ImageInfo.GainMap(origin: "Apple", headroomStops: stops)
        case .iso(_, let metadata):
            info.gainMap = ImageInfo.GainMap(origin: "ISO 21496-1", headroomStops: metadata.alternateHeadroomStops)
        case .samsung(_, let metadata):
            info.gainMap = ImageInfo.GainMap(
                origin: "Samsung", headroomStops: metadata.alternateHeadroomStops, brightens: metadata.brightens)
        case .unusable(let why): info.ignoredGainMap = ignoredReason(why)
        case .none: break
        }
        for transform in file.transforms(primary) {
            switch transform {
            case .rotate(let turns) where turns % 4 != 0:
                info.containerRotation = clockwiseDegrees(anticlockwiseTurns: turns)
            case .mirror(let topToBottom): info.containerMirror = topToBottom ? "top-to-bottom" : "left-to-right"
            default: break
            }
        }
        return info
    }

    private static func probeWithLibheif(path: String, format: PhotoFormat, meta: HeifMeta?) throws(ConvertError)
        -> ImageInfo
    {
        let context = try HeifContext.reading(path: path, decodingThreads: 1, meta: meta)
        let primary = try context.primaryImage()
        let exifBytes = primary.exif
        let exif = exifBytes.flatMap { Exif(block: $0) }
        let xmp = primary.xmp
        var sources = locations(exif: exif, xmp: xmp)
        let thumbnails = primary.thumbnails()
        if thumbnails.contains(where: { thumb in
            thumb.exif.flatMap { Exif(block: $0) }?.hasGPS == true || thumb.xmp.map(XMP.hasLocation) == true
        }) {
            sources.append(.thumbnail)
        }
        let ids = context.topLevelImageIDs(meta: meta)
        for id in ids {
            guard let other = try? context.image(id: id), !other.isPrimary else { continue }
            let hasGPS =
                other.exif.flatMap { Exif(block: $0) }?.hasGPS == true || other.xmp.map(XMP.hasLocation) == true
            if hasGPS && !sources.contains(.otherImage) { sources.append(.otherImage) }
        }
        var auxiliary = primary.auxiliaryTypes
        if primary.depthImageCount > 0 { auxiliary.insert("depth", at: 0) }
        let coded = primary.codedSize
        let transforms = containerTransforms(meta)
        let rotates =
            (transforms.rotation.map { $0 % 180 == 90 } ?? false)
            || (coded.width > 0 && coded.width != coded.height && coded.width == primary.height
                && coded.height == primary.width)
        var info = ImageInfo(
            format: format, width: primary.width, height: primary.height, bitDepth: primary.bitDepth ?? 8,
            hasAlpha: primary.hasAlpha, exifOrientation: exif?.orientation, containerRotates: rotates,
            color: color(icc: primary.iccProfile, nclx: primary.nclx), hasEXIF: exifBytes != nil, hasXMP: xmp != nil,
            hasLocation: !sources.isEmpty, locationSources: sources, make: exif?.make, model: exif?.model,
            dateTimeOriginal: exif?.dateTimeOriginal, imageCount: ids.count, auxiliaryImages: auxiliary,
            thumbnailCount: thumbnails.count)
        info.containerRotation = transforms.rotation
        info.containerMirror = transforms.mirror
        info.gpsWithoutPosition = exif?.hasGPSWithoutPosition == true ? true : nil
        return info
    }

    /// The primary item's `irot` and `imir`, read from the item model (libheif applies them and
    /// says nothing); none when the item table could not be read.
    /// `irot`'s anticlockwise quarter turns as the public convention: degrees clockwise.
    private static func clockwiseDegrees(anticlockwiseTurns turns: Int) -> Int {
        (4 - (turns % 4 + 4) % 4) % 4 * 90
    }

    private static func containerTransforms(_ meta: HeifMeta?) -> (rotation: Int?, mirror: String?) {
        guard let meta, let primary = meta.primaryID else { return (nil, nil) }
        var rotation: Int?
        var mirror: String?
        for association in meta.properties[primary] ?? [] {
            switch association.property {
            case .irot(let turns) where turns % 4 != 0: rotation = clockwiseDegrees(anticlockwiseTurns: turns)
            case .imir(let topToBottom): mirror = topToBottom ? "top-to-bottom" : "left-to-right"
            default: break
            }
        }
        return (rotation, mirror)
    }
}
