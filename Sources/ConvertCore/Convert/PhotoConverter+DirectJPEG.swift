import FoundationEssentials

extension PhotoConverter {
    /// HEIC → JPEG without a colour round trip: when nothing needs an RGB bitmap (no alpha, no
    /// resize, no colour conversion, a BT.601 matrix: JPEG's) the HEVC tiles are decoded straight
    /// to 8-bit full-range YCbCr 4:2:0 (``HeifYCbCrDecoder``, a 10-bit or limited-range stream
    /// mapped on the planes) and go to `tjCompressFromYUVPlanes`. Files offconvert's reader does not
    /// take go through libheif's own planes when they are already in JPEG's layout. Returns nil
    /// when the photo does not qualify; the caller then takes the general path.
    static func directHeicToJPEG(
        _ request: PhotoRequest, opened: OpenedPhoto, reporter: ProgressReporter, cancellation: CancellationFlag
    ) throws(ConvertError) -> JobResult? {
        guard request.format == .jpeg, !request.allImages, request.maxLongEdge == nil, request.resize == nil,
            request.color == .keep,
            request.targetByteCount == nil
        else { return nil }
        guard opened.format == .heic, let source = try directJPEGSource(opened, maxPixels: request.maxPixels) else {
            return nil
        }
        // A PQ/HLG still is tone mapped in RGB (the general path), not coded from its planes.
        guard HDRTransfer(source.nclx) == nil else { return nil }
        reporter.report(.decoding, 0)
        var pendingGainMap: PendingGainMap?
        // The worker finishes before this returns or throws, so its bitmap stays within the job.
        defer { _ = try? pendingGainMap?.wait() }
        // The map starts once the primary is decoded: the decode keeps every core busy, the
        // primary's JPEG encode only one, and the map's decode and encode fit beside it.
        var damaged = false
        let stream = try directStream(
            request, source: source, opened: opened, reporter: reporter, cancellation: cancellation, damaged: &damaged
        ) {
            pendingGainMap = startGainMap(request, source: source, cancellation: cancellation)
        }
        guard let stream else { return nil }
        return try writeDirectJPEG(
            stream, source: source, pendingGainMap: pendingGainMap, request: request, reporter: reporter,
            cancellation: cancellation,
            notes: damaged ? [JobNote(fact: damagedNote)] : [])
    }

    /// Said when a tile of the photo did not decode cleanly and libheif's decode (which conceals
    /// what it cannot read) was written instead.
    static let damagedNote = "damaged data: converted what decodes (some areas may look wrong)"

    /// Puts the direct path's JPEG file together (the stream, its metadata segments and colour
    /// profile, the gain map as Ultra HDR when one was encoded beside it) and writes it.
    private static func writeDirectJPEG(
        _ stream: [UInt8], source: DirectSource, pendingGainMap: PendingGainMap?, request: PhotoRequest,
        reporter: ProgressReporter, cancellation: CancellationFlag, notes: [JobNote]
    ) throws(ConvertError) -> JobResult {
        var notes = notes
        var icc = source.icc
        if icc == nil, let nclx = source.nclx, let generated = ColorProfiles.icc(for: nclx) {
            icc = generated.icc
            if let note = generated.note { notes.append(note) }
        }
        let metadata = OutputMetadata(exif: source.exif, xmp: source.xmp, policy: request.metadata)
            .withPixelSize(width: source.width, height: source.height)
        notes += metadata.notes
        // The file's pieces, written one after another: the stream is not copied again to put
        // the metadata segments inside it.
        let pieces: [ArraySlice<UInt8>]
        if let ultraHDR = try ultraHDRFile(
            primary: stream, pending: pendingGainMap, exif: metadata.exif, xmp: metadata.xmp, icc: icc)
        {
            pieces = [ultraHDR.bytes[...]]
            notes += ultraHDR.notes
        } else {
            let segments = ImageEncoder.jpegSegments(exif: metadata.exif, xmp: metadata.xmp, icc: icc)
            notes += segments.notes
            let insertAt = JPEGMarkers.insertionPoint(in: stream)
            pieces = [stream[..<insertAt], segments.bytes[...], stream[insertAt...]]
            if request.hdr == .keep, let file = source.file, case .unusable(let why) = HeifGainMap.presence(in: file) {
                notes.append(why)
            }
        }
        let names = try outputPaths(for: request, count: 1)
        let output = try write(to: names[0], for: request) {
            (temporary, display) throws(ConvertError) in
            try ImageEncoder.writeFile(pieces: pieces, to: temporary, displayPath: display)
        } cancellation: {
            cancellation
        }
        reporter.report(.writing, 1)
        return JobResult(inputPath: request.inputPath, outputs: [output], notes: notes, location: metadata.location)
    }

    /// Decodes a direct-path photo and encodes it as a bare JPEG stream (no metadata yet), or nil
    /// when neither offconvert's decoder nor libheif's planes take it; `decoded` runs once, when
    /// the picture is decoded (a banded one: when its bands start). The pictures' planes are freed when this returns, before the file is
    /// put together.
    private static func directStream(
        _ request: PhotoRequest, source: DirectSource, opened: OpenedPhoto, reporter: ProgressReporter,
        cancellation: CancellationFlag, damaged: inout Bool, decoded: () -> Void
    ) throws(ConvertError) -> [UInt8]? {
        // A banded picture is decoded and encoded together: what waits for the decode starts
        // beside the bands.
        var started = false
        func start() {
            if !started { decoded() }
            started = true
        }
        if let file = source.file,
            let outcome = try HeifYCbCrDecoder.jpeg(
                file, item: file.primaryID, threads: opened.decodingThreads, maxPixels: request.maxPixels,
                quality: request.quality, cancellation: cancellation,
                // The tiles are the job: a banded picture's encode keeps pace with them.
                progress: DecodeProgress { reporter.report(.decoding, 0.9 * $0) }, banding: start)
        {
            switch outcome {
            case .stream(let stream, let width, let height) where width == source.width && height == source.height:
                reporter.report(.encoding, 0.6)
                return stream
            case .planes(let planes)
            where planes.image.width == source.width && planes.image.height == source.height
                && HeifYCbCrDecoder.jpegMatrices.contains(planes.matrix):
                start()
                return try encode(
                    .ycbcr(planes.image), quality: request.quality, reporter: reporter, cancellation: cancellation)
            case .damagedTile:
                guard !request.strict else {
                    throw ConvertError(
                        code: .inputCorrupt,
                        message: "\(request.inputPath) is damaged: a part of the picture could not be decoded.",
                        path: request.inputPath)
                }
                damaged = true
            default: break
            }
        }
        var handle = source.handle
        if handle == nil { handle = try libheifSource(opened.libheif(), maxPixels: request.maxPixels) }
        guard let handle else { return nil }
        let planes = try directPlanes(handle, cancellation: cancellation)
        start()
        return try encode(.heif(planes), quality: request.quality, reporter: reporter, cancellation: cancellation)
    }

    /// A decoded direct-path picture's bare JPEG stream; nil when libheif's planes are in neither
    /// layout the encoder takes.
    private static func encode(
        _ picture: DirectPicture, quality: Int, reporter: ProgressReporter, cancellation: CancellationFlag
    ) throws(ConvertError) -> [UInt8]? {
        try cancellation.check()
        reporter.report(.encoding, 0.6)
        let encoder = try TurboJPEGHandle.compressor()
        switch picture {
        case .ycbcr(let image):
            return try image.withPlanes { (planes, strides) throws(ConvertError) in
                try encoder.encodeYUV420(
                    planes: planes, strides: strides, width: image.width, height: image.height, quality: quality)
            }
        case .heif(let image):
            let viaYCbCr = try image.withYCbCr420Planes { (planes, strides, width, height) throws(ConvertError) in
                try encoder.encodeYUV420(
                    planes: planes, strides: strides, width: width, height: height, quality: quality)
            }
            if let viaYCbCr { return viaYCbCr }
            return try image.withRGBPlanes { (planes, strides, width, height) throws(ConvertError) in
                try encoder.encodeRGBPlanes(
                    planes: planes, strides: strides, width: width, height: height, quality: quality)
            }
        }
    }

    /// A HEIC's primary image as the direct JPEG path reads it: by offconvert's own reader
    /// (``HeifFile``) for an HEVC-coded file, else by libheif.
    struct DirectSource {
        /// Offconvert's reader of the file, when it takes it.
        var file: HeifFile?
        /// libheif's handle, when offconvert's reader does not take the file.
        var handle: HeifImageHandle?
        var width: Int
        var height: Int
        var icc: [UInt8]?
        var nclx: NCLX?
        var exif: [UInt8]?
        var xmp: [UInt8]?
    }

    /// Matrices the direct path takes: BT.601, and BT.709 and BT.2020 (non-constant luminance),
    /// which ``HeifYCbCrDecoder`` re-expresses in BT.601 on the planes.
    private static let directMatrices: Set<Int> = [1, 2, 5, 6, 9]

    /// Opens a HEIC's primary image for ``directHeicToJPEG(_:opened:reporter:cancellation:)``
    /// (from offconvert's reader of it when it takes the file, else from its libheif context), or
    /// returns nil when its planes cannot go to the JPEG encoder. Shared with the decode-only
    /// benchmark (``DecodeFloor``) so that both decode with the same settings.
    static func directJPEGSource(_ opened: OpenedPhoto, maxPixels: Int) throws(ConvertError) -> DirectSource? {
        let path = opened.path
        if let file = opened.heif, file.isHEVC(file.primaryID) {
            let primary = file.primaryID
            guard let size = file.displayedSize(primary) else { return nil }
            try PixelLimit.check(width: size.width, height: size.height, limit: maxPixels, path: path)
            let nclx = file.nclx(primary)
            guard !file.hasAlpha(primary), nclx.map({ directMatrices.contains($0.matrix.code) }) ?? true else {
                return nil
            }
            return DirectSource(
                file: file, handle: nil, width: size.width, height: size.height, icc: file.iccProfile(primary),
                nclx: nclx,
                exif: file.exif(primary), xmp: file.xmp(primary))
        }
        guard let handle = try libheifSource(opened.libheif(), maxPixels: maxPixels) else { return nil }
        return DirectSource(
            file: nil, handle: handle, width: handle.width, height: handle.height, icc: handle.iccProfile,
            nclx: handle.nclx,
            exif: handle.exif, xmp: handle.xmp)
    }

    /// libheif's handle of the primary image when libheif's own planes can go to the JPEG
    /// encoder as they are (8 bits, JPEG's matrix and range), else nil.
    static func libheifSource(_ context: HeifContext, maxPixels: Int) throws(ConvertError) -> HeifImageHandle? {
        let handle = try context.primaryImage()
        try PixelLimit.check(width: handle.width, height: handle.height, limit: maxPixels, path: context.path)
        let jpegLayout =
            handle.nclx.map { HeifYCbCrDecoder.jpegMatrices.contains($0.matrix.code) && $0.fullRange } ?? true
        guard !handle.hasAlpha, handle.bitDepth == 8, jpegLayout else { return nil }
        return handle
    }

    /// The pixels of a direct-path photo, in a layout the JPEG encoder takes as it is.
    enum DirectPicture {
        /// 8-bit full-range YCbCr 4:2:0 decoded from the HEVC tiles by ``HeifYCbCrDecoder``.
        case ycbcr(YCbCr420Image)
        /// libheif's own planes (see ``directPlanes(_:cancellation:)``).
        case heif(HeifDecodedImage)
    }

    /// Decodes a direct-path photo: its HEVC tiles straight to YCbCr when ``HeifYCbCrDecoder``
    /// takes the file and it codes in a BT.601 matrix, otherwise with libheif when libheif's planes
    /// qualify; nil when neither does (the general path then converts the photo). Shared with the
    /// decode-only benchmark (``DecodeFloor``).
    static func directPicture(
        _ source: DirectSource, opened: OpenedPhoto, maxPixels: Int, cancellation: CancellationFlag
    ) throws(ConvertError) -> DirectPicture? {
        if let file = source.file {
            if let decoded = try HeifYCbCrDecoder.decode(
                file, item: file.primaryID, threads: opened.decodingThreads, maxPixels: maxPixels, output: .jpeg,
                cancellation: cancellation),
                decoded.image.width == source.width, decoded.image.height == source.height,
                HeifYCbCrDecoder.jpegMatrices.contains(decoded.matrix)
            {
                return .ycbcr(decoded.image)
            }
        }
        var handle = source.handle
        if handle == nil { handle = try libheifSource(opened.libheif(), maxPixels: maxPixels) }
        guard let handle else { return nil }
        return .heif(try directPlanes(handle, cancellation: cancellation))
    }

    /// Decodes a direct-path photo to planes the JPEG encoder takes as they are: libheif's own
    /// layout when it is one of those (no colour conversion at all), otherwise (a grey image,
    /// say) a second decode asking libheif for YCbCr 4:2:0.
    static func directPlanes(_ handle: HeifImageHandle, cancellation: CancellationFlag) throws(ConvertError)
        -> HeifDecodedImage
    {
        let image = try handle.decodeNative(cancellation: cancellation)
        if image.hasEightBitPlanes { return image }
        return try handle.decodeYCbCr420(cancellation: cancellation)
    }
}
