import Foundation

/// Converts photos between formats: decode (orientation applied), colour, alpha, metadata policy,
/// encode, and a staged write that never leaves a partial file or replaces the input.
public enum PhotoConverter {
    /// Starts converting one photo. The job's result lists the file(s) written and notes such as
    /// "location removed".
    public static func convert(_ request: PhotoRequest) -> ConversionJob {
        ConversionJob.start(path: request.inputPath) { reporter in
            try await runBlocking { flag in
                var result = try convertBlocking(request, reporter: reporter, cancellation: flag)
                // Only the still is decoded; a motion photo's video would silently vanish otherwise.
                if MotionPhoto.isMotionPhoto(path: request.inputPath) { result.notes.append(MotionPhotoEditor.motionNotKeptNote) }
                return result
            }
        }
    }

    /// Whether this system can write `format`: HEIC and AVIF need libheif encoder plugins
    /// (x265, an AV1 encoder) that a system may lack; GIF is never written as a photo.
    public static func canEncode(_ format: PhotoFormat) -> Bool {
        switch format {
        case .heic: HeifEncoding.isAvailable(.heic)
        case .avif: HeifEncoding.isAvailable(.avif)
        case .gif: false
        default: true
        }
    }

    package static func convertBlocking(
        _ request: PhotoRequest, reporter: ProgressReporter, cancellation: CancellationFlag
    ) throws(ConvertError) -> JobResult {
        let input = request.inputPath
        try check(request)
        // The input is read once: every reader below takes its format and item model from here.
        let opened: PhotoInput
        if let probed = request.probed, probed.path == input { opened = probed } else { opened = try PhotoInput.open(path: input) }
        let heif = try opened.heifFile()
        if let result = try directHeicToJPEG(request, format: opened.format, heif: heif, reporter: reporter, cancellation: cancellation) {
            return result
        }
        let recompression = try recompressedJPEG(request, cancellation: cancellation)
        if case .done(let result) = recompression { return result }
        reporter.report(.decoding, 0)
        var photo = try ImageDecoder.decode(
            path: input, options: decodeOptions(for: request), cancellation: cancellation, opened: (opened.format, heif))
        reporter.report(.encoding, 0.6)
        var notes = photo.notes
        if case .refused = recompression { notes.append(refusedRecompressionNote) }
        func note(_ text: String) { if !notes.contains(text) { notes.append(text) } }
        var gainMap = try generalGainMap(request, format: opened.format, heif: heif, cancellation: cancellation)
        if let computed = photo.hdrGainMap {
            gainMap = (computed, nil)
        } else if photo.toneMapped != nil, request.hdr == .keep, request.format != .jpeg {
            note(notKeptNote(request.format))
        }
        gainMap.note.map(note)
        // The frames move out of `photo` so that each slot is the only reference to its bitmap
        // (the target-size search releases it before decoding a smaller one).
        var frames: [DecodedFrame?] = photo.frames
        photo.frames = []
        var outputs: [OutputFile] = []
        var location = LocationOutcome.noneFound
        let names = try outputPaths(for: request, count: frames.count)
        for index in frames.indices {
            try cancellation.check()
            let metadata = OutputMetadata(
                exif: frames[index]?.exif, xmp: frames[index]?.xmp, iptc: frames[index]?.iptc, policy: request.metadata)
            metadata.notes.forEach(note)
            if metadata.location != .noneFound { location = metadata.location }
            let output: OutputFile
            if let target = request.targetByteCount {
                // A smaller decode of the same input reuses what was read of it.
                var searched = request
                searched.probed = opened
                let result = try encodeToTarget(
                    searched, frameIndex: index, frame: &frames[index], target: target, metadata: metadata,
                    gainMap: gainMap.carried.flatMap { $0.frameIndex == index ? $0 : nil }, cancellation: cancellation)
                frames[index] = nil
                result.notes.forEach(note)
                let range = TargetSizeSolver.qualities
                note(result.quality.map { "quality \($0)" } ?? "quality chosen by libwebp's size search (\(range.lowerBound)–\(range.upperBound))")
                if let edge = result.longEdge { note("resized to \(edge) px long edge") }
                output = try write(to: names[index], overwrite: request.overwrite, renumber: request.outputPath == nil || request.outputMayBeRenumbered) {
                    (temporary, display) throws(ConvertError) in
                    try ImageEncoder.writeFile(result.bytes, to: temporary, displayPath: display)
                } cancellation: { cancellation }
            } else {
                guard let frame = frames[index] else { continue }
                frames[index] = nil
                let bitmap = try prepare(frame.bitmap, for: request, path: input)
                let sized = metadata.withPixelSize(width: bitmap.width, height: bitmap.height).carried(by: request.format)
                let depth = heifBitDepth(for: request, bitmap: bitmap)
                depth.note.map(note)
                if let carried = gainMap.carried, index == carried.frameIndex {
                    let plane = carried.plane(
                        resize: request.resize, maxLongEdge: request.maxLongEdge, bitmapWidth: bitmap.width, bitmapHeight: bitmap.height)
                    try cancellation.check()
                    output = request.format == .heic
                        ? try writeHEIC(
                            bitmap, plane: plane, map: carried.map, request: request, bitDepth: depth.bits, metadata: sized,
                            to: names[index], note: note, cancellation: cancellation)
                        : try writeUltraHDR(
                            bitmap, plane: plane, map: carried.map, request: request, metadata: sized, to: names[index], note: note,
                            cancellation: cancellation)
                } else {
                    output = try write(to: names[index], overwrite: request.overwrite, renumber: request.outputPath == nil || request.outputMayBeRenumbered) {
                        (temporary, display) throws(ConvertError) in
                        let written = try ImageEncoder.write(
                            bitmap, format: request.format, quality: request.quality, lossless: request.lossless,
                            heifBitDepth: depth.bits, exif: sized.exif, xmp: sized.xmp, iptc: sized.iptc, to: temporary,
                            displayPath: display)
                        written.notes.forEach(note)
                    } cancellation: { cancellation }
                }
            }
            outputs.append(output)
            reporter.report(.writing, 0.6 + 0.4 * Double(index + 1) / Double(frames.count))
        }
        return JobResult(inputPath: input, outputs: outputs, notes: notes, location: location)
    }

    /// Refuses a request that cannot be carried out, before the input is read: a quality or
    /// target outside its range, a resize box that contradicts itself or is over the pixel
    /// limit, an output format this system cannot write.
    private static func check(_ request: PhotoRequest) throws(ConvertError) {
        guard (1...100).contains(request.quality) else {
            throw ConvertError(.request, code: .requestQuality, message: "Quality must be between 1 and 100.")
        }
        if let target = request.targetByteCount {
            guard target > 0 else {
                throw ConvertError(.request, code: .requestTargetSize, message: "The target size must be positive.")
            }
            guard request.format == .jpeg || request.format == .webp else {
                throw ConvertError(
                    .request, code: .requestTargetFormat, message: "A target size can be met for JPEG and WebP outputs only.")
            }
        }
        if let resize = request.resize {
            guard request.maxLongEdge == nil else {
                throw ConvertError(
                    .request, code: .requestResize, message: "A resize box and a long-edge limit cannot be used together.")
            }
            guard resize.width > 0, resize.height > 0 else {
                throw ConvertError(.request, code: .requestResize, message: "A resize box needs a positive width and height.")
            }
            // Each side first, so the product cannot overflow.
            guard resize.width <= request.maxPixels, resize.height <= request.maxPixels,
                resize.width * resize.height <= request.maxPixels
            else {
                throw ConvertError(
                    .request, code: .requestResizeTooLarge,
                    message: "A \(resize.width)x\(resize.height) box is over the limit of \(request.maxPixels) pixels.")
            }
        }
        guard request.format != .gif else {
            throw ConvertError(.unsupported, code: .outputUnsupported, message: "offconvert does not write GIF photos.")
        }
        if request.format == .heic || request.format == .avif {
            let format: HeifEncoding.Format = request.format == .heic ? .heic : .avif
            // Check before decoding: a missing encoder should fail fast, not after a full decode.
            guard HeifEncoding.isAvailable(format) else {
                throw ConvertError(
                    .unsupported, code: .outputEncoderMissing,
                    message: format == .heic
                        ? "HEIC output needs libheif's x265 (HEVC) encoder plugin, which this system lacks."
                        : "AVIF output needs an AV1 encoder plugin for libheif (aom, rav1e or SVT-AV1), which this system lacks.")
            }
        }
        if request.bitDepth == .ten, request.format == .avif, !HeifEncoding.supportsTenBit(.avif) {
            throw ConvertError(
                .unsupported, code: .outputDepthUnsupported,
                message: "10-bit AVIF cannot be written on this system (libheif's AV1 encoder fails on 10-bit input); write 8-bit AVIF or 10-bit HEIC.")
        }
    }

    /// The bits per channel a HEIC/AVIF output of `bitmap` gets: the request's, or 10 for HEIC
    /// when the source had more than 8; with a note when a deep source is written at 8 bits
    /// because the format cannot take more here.
    package static func heifBitDepth(for request: PhotoRequest, bitmap: Bitmap) -> (bits: Int, note: String?) {
        guard request.format == .heic || request.format == .avif else { return (8, nil) }
        let format: HeifEncoding.Format = request.format == .heic ? .heic : .avif
        if let depth = request.bitDepth { return (depth.rawValue, nil) }
        guard bitmap.sourceBitDepth > 8 else { return (8, nil) }
        guard HeifEncoding.supportsTenBit(format) else { return (8, "\(format.rawValue) written at 8 bits") }
        return (10, nil)
    }

    /// How `request` wants its input decoded (and resized on the way).
    package static func decodeOptions(for request: PhotoRequest, maxLongEdge: Int? = nil) -> DecodeOptions {
        var options = DecodeOptions()
        options.allImages = request.allImages
        options.maxLongEdge = maxLongEdge ?? request.maxLongEdge
        options.resize = request.resize
        options.maxPixels = request.maxPixels
        if let threads = request.decodingThreads { options.decodingThreads = threads }
        options.hdrStill = HDRStillPolicy(format: request.format, hdr: request.hdr)
        // Bars are transparent only where the output keeps alpha; elsewhere the background.
        if let colour = request.resize?.padding {
            options.padding = .color(colour)
        } else {
            options.padding = ImageEncoder.supportsAlpha(request.format) ? .transparent : .color(request.background)
        }
        return options
    }

    /// Applies the colour policy and flattens alpha where the target cannot hold it.
    package static func prepare(_ source: Bitmap, for request: PhotoRequest, path: String) throws(ConvertError) -> Bitmap {
        var bitmap = source
        if bitmap.hasAlpha && (!ImageEncoder.supportsAlpha(request.format) || !bitmap.hasTransparency) {
            bitmap = bitmap.flattened(onto: request.background)
        }
        if request.color == .sRGB { bitmap = try ColorProfiles.convertToSRGB(bitmap, path: path) }
        return bitmap
    }

    /// Encodes through a staged temporary file and moves it to `destination` (replacing an
    /// existing file only with `overwrite`; the destination is never the input, see
    /// ``outputPaths(for:count:)``; numbered around a name taken meanwhile when `renumber`).
    package static func write(
        to destination: String, overwrite: Bool, renumber: Bool,
        encode: (_ temporaryPath: String, _ displayPath: String) throws(ConvertError) -> Void,
        cancellation: () -> CancellationFlag
    ) throws(ConvertError) -> OutputFile {
        let stage = try StagedOutput(destination: destination)
        try encode(stage.temporaryPath, destination)
        try cancellation().check()
        return try stage.commit(overwrite: overwrite, renumber: renumber)
    }

    /// Where each of `count` images goes: ``PhotoRequest/outputPath`` (with `-1`, `-2`, ... for
    /// several images), or fresh names from ``OutputNamer`` in the output folder.
    package static func outputPaths(for request: PhotoRequest, count: Int) throws(ConvertError) -> [String] {
        try OutputNamer.destination(
            input: request.inputPath, explicitPath: request.outputPath, directory: request.outputDirectory,
            overwrite: request.overwrite, pathExtension: request.format.fileExtension,
            suffixes: count > 1 ? (1...count).map { "-\($0)" } : [""])
    }
}

extension PhotoConverter {
    /// HEIC → JPEG without a colour round trip: when nothing needs an RGB bitmap (no alpha, no
    /// resize, no colour conversion, a BT.601 matrix: JPEG's) the HEVC tiles are decoded straight
    /// to 8-bit full-range YCbCr 4:2:0 (``HeifYCbCrDecoder``, a 10-bit or limited-range stream
    /// mapped on the planes) and go to `tjCompressFromYUVPlanes`. Files offconvert's reader does not
    /// take go through libheif's own planes when they are already in JPEG's layout. Returns nil
    /// when the photo does not qualify; the caller then takes the general path.
    package static func directHeicToJPEG(
        _ request: PhotoRequest, format: PhotoFormat, heif: HeifFile?, reporter: ProgressReporter, cancellation: CancellationFlag
    ) throws(ConvertError) -> JobResult? {
        guard request.format == .jpeg, !request.allImages, request.maxLongEdge == nil, request.resize == nil, request.color == .keep,
            request.targetByteCount == nil
        else { return nil }
        let input = request.inputPath
        let threads = request.decodingThreads ?? ProcessInfo.processInfo.activeProcessorCount
        guard format == .heic,
            let source = try directJPEGSource(path: input, heif: heif, decodingThreads: threads, maxPixels: request.maxPixels)
        else { return nil }
        // A PQ/HLG still is tone mapped in RGB (the general path), not coded from its planes.
        guard HDRTransfer(source.nclx) == nil else { return nil }
        reporter.report(.decoding, 0)
        var pendingGainMap: PendingGainMap?
        // The worker finishes before this returns or throws, so its bitmap stays within the job.
        defer { _ = try? pendingGainMap?.wait() }
        // The map starts once the primary is decoded: the decode keeps every core busy, the
        // primary's JPEG encode only one, and the map's decode and encode fit beside it.
        let stream = try directStream(request, source: source, threads: threads, reporter: reporter, cancellation: cancellation) {
            pendingGainMap = startGainMap(request, source: source, cancellation: cancellation)
        }
        guard let stream else { return nil }
        var notes: [String] = []
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
        if let ultraHDR = try ultraHDRFile(primary: stream, pending: pendingGainMap, exif: metadata.exif, xmp: metadata.xmp, icc: icc) {
            pieces = [ultraHDR.bytes[...]]
            notes += ultraHDR.notes
        } else {
            let segments = ImageEncoder.jpegSegments(exif: metadata.exif, xmp: metadata.xmp, icc: icc)
            notes += segments.notes
            let insertAt = JPEGMarkers.insertionPoint(in: stream)
            pieces = [stream[..<insertAt], segments.bytes[...], stream[insertAt...]]
            if request.hdr == .keep, let file = source.file, case .unusable(let why) = HeifGainMap.presence(in: file) { notes.append(why) }
        }
        let names = try outputPaths(for: request, count: 1)
        let output = try write(to: names[0], overwrite: request.overwrite, renumber: request.outputPath == nil || request.outputMayBeRenumbered) {
            (temporary, display) throws(ConvertError) in
            try ImageEncoder.writeFile(pieces: pieces, to: temporary, displayPath: display)
        } cancellation: { cancellation }
        reporter.report(.writing, 1)
        return JobResult(inputPath: input, outputs: [output], notes: notes, location: metadata.location)
    }

    /// Decodes a direct-path photo and encodes it as a bare JPEG stream (no metadata yet), or nil
    /// when neither offconvert's decoder nor libheif's planes take it; `decoded` runs between the
    /// two. The pictures' planes are freed when this returns, before the file is put together.
    private static func directStream(
        _ request: PhotoRequest, source: DirectSource, threads: Int, reporter: ProgressReporter, cancellation: CancellationFlag,
        decoded: () -> Void
    ) throws(ConvertError) -> [UInt8]? {
        guard let picture = try directPicture(
            path: request.inputPath, source: source, decodingThreads: threads, maxPixels: request.maxPixels, cancellation: cancellation)
        else { return nil }
        decoded()
        try cancellation.check()
        reporter.report(.encoding, 0.6)
        let encoder = try TurboJPEGHandle.compressor()
        switch picture {
        case .ycbcr(let image):
            return try image.withPlanes { (planes, strides) throws(ConvertError) in
                try encoder.encodeYUV420(planes: planes, strides: strides, width: image.width, height: image.height, quality: request.quality)
            }
        case .heif(let image):
            let viaYCbCr = try image.withYCbCr420Planes { (planes, strides, width, height) throws(ConvertError) in
                try encoder.encodeYUV420(planes: planes, strides: strides, width: width, height: height, quality: request.quality)
            }
            if let viaYCbCr { return viaYCbCr }
            return try image.withRGBPlanes { (planes, strides, width, height) throws(ConvertError) in
                try encoder.encodeRGBPlanes(planes: planes, strides: strides, width: width, height: height, quality: request.quality)
            }
        }
    }

    /// A HEIC's primary image as the direct JPEG path reads it: by offconvert's own reader
    /// (``HeifFile``) for an HEVC-coded file, else by libheif.
    package struct DirectSource {
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

    /// JPEG codes BT.601 YCbCr; 2 (unspecified) is read as BT.601, as libheif does.
    private static let jpegMatrices: Set<Int> = [2, 5, 6]
    /// Matrices the direct path takes: BT.601, and BT.709 and BT.2020 (non-constant luminance),
    /// which ``HeifYCbCrDecoder`` re-expresses in BT.601 on the planes.
    private static let directMatrices: Set<Int> = [1, 2, 5, 6, 9]

    /// Opens a HEIC's primary image for ``directHeicToJPEG(_:format:heif:reporter:cancellation:)``
    /// (from `heif`, offconvert's reader of it, when it takes the file), or returns nil when its
    /// planes cannot go to the JPEG encoder. Shared with the decode-only benchmark
    /// (``DecodeFloor``) so that both decode with the same settings.
    package static func directJPEGSource(
        path: String, heif: HeifFile?, decodingThreads: Int, maxPixels: Int
    ) throws(ConvertError) -> DirectSource? {
        if let file = heif, file.isHEVC(file.primaryID) {
            let primary = file.primaryID
            guard let size = file.displayedSize(primary) else { return nil }
            try PixelLimit.check(width: size.width, height: size.height, limit: maxPixels, path: path)
            let nclx = file.nclx(primary)
            guard !file.hasAlpha(primary), nclx.map({ directMatrices.contains($0.matrix) }) ?? true else { return nil }
            return DirectSource(
                file: file, handle: nil, width: size.width, height: size.height, icc: file.iccProfile(primary), nclx: nclx,
                exif: file.exif(primary), xmp: file.xmp(primary))
        }
        guard let handle = try libheifSource(path: path, decodingThreads: decodingThreads, maxPixels: maxPixels) else { return nil }
        return DirectSource(
            file: nil, handle: handle, width: handle.width, height: handle.height, icc: handle.iccProfile, nclx: handle.nclx,
            exif: handle.exif, xmp: handle.xmp)
    }

    /// libheif's handle of the primary image when libheif's own planes can go to the JPEG
    /// encoder as they are (8 bits, JPEG's matrix and range), else nil.
    package static func libheifSource(path: String, decodingThreads: Int, maxPixels: Int) throws(ConvertError) -> HeifImageHandle? {
        let context = try HeifContext(reading: path, decodingThreads: decodingThreads)
        let handle = try context.primaryImage()
        try PixelLimit.check(width: handle.width, height: handle.height, limit: maxPixels, path: path)
        let jpegLayout = handle.nclx.map { jpegMatrices.contains($0.matrix) && $0.fullRange } ?? true
        guard !handle.hasAlpha, handle.bitDepth == 8, jpegLayout else { return nil }
        return handle
    }

    /// The pixels of a direct-path photo, in a layout the JPEG encoder takes as it is.
    package enum DirectPicture {
        /// 8-bit full-range YCbCr 4:2:0 decoded from the HEVC tiles by ``HeifYCbCrDecoder``.
        case ycbcr(YCbCr420Image)
        /// libheif's own planes (see ``directPlanes(_:cancellation:)``).
        case heif(HeifDecodedImage)
    }

    /// Decodes a direct-path photo: its HEVC tiles straight to YCbCr when ``HeifYCbCrDecoder``
    /// takes the file and it codes in a BT.601 matrix, otherwise with libheif when libheif's planes
    /// qualify; nil when neither does (the general path then converts the photo). Shared with the
    /// decode-only benchmark (``DecodeFloor``).
    package static func directPicture(
        path: String, source: DirectSource, decodingThreads: Int, maxPixels: Int, cancellation: CancellationFlag
    ) throws(ConvertError) -> DirectPicture? {
        if let file = source.file {
            if let decoded = try HeifYCbCrDecoder.decode(
                file, item: file.primaryID, threads: decodingThreads, maxPixels: maxPixels, output: .jpeg,
                cancellation: cancellation),
                decoded.image.width == source.width, decoded.image.height == source.height, jpegMatrices.contains(decoded.matrix)
            {
                return .ycbcr(decoded.image)
            }
        }
        var handle = source.handle
        if handle == nil { handle = try libheifSource(path: path, decodingThreads: decodingThreads, maxPixels: maxPixels) }
        guard let handle else { return nil }
        return .heif(try directPlanes(handle, cancellation: cancellation))
    }

    /// Decodes a direct-path photo to planes the JPEG encoder takes as they are: libheif's own
    /// layout when it is one of those (no colour conversion at all), otherwise (a grey image,
    /// say) a second decode asking libheif for YCbCr 4:2:0.
    package static func directPlanes(_ handle: HeifImageHandle, cancellation: CancellationFlag) throws(ConvertError) -> HeifDecodedImage {
        let image = try handle.decodeNative(cancellation: cancellation)
        if image.hasEightBitPlanes { return image }
        return try handle.decodeYCbCr420(cancellation: cancellation)
    }
}
