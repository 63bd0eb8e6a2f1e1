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
        guard (1...100).contains(request.quality) else {
            throw ConvertError(.request, key: "request.quality", message: "Quality must be between 1 and 100.")
        }
        if let target = request.targetByteCount {
            guard target > 0 else {
                throw ConvertError(.request, key: "request.target-size", message: "The target size must be positive.")
            }
            guard request.format == .jpeg || request.format == .webp else {
                throw ConvertError(
                    .request, key: "request.target-format", message: "A target size can be met for JPEG and WebP outputs only.")
            }
        }
        if let resize = request.resize {
            guard request.maxLongEdge == nil else {
                throw ConvertError(
                    .request, key: "request.resize", message: "A resize box and a long-edge limit cannot be used together.")
            }
            guard resize.width > 0, resize.height > 0 else {
                throw ConvertError(.request, key: "request.resize", message: "A resize box needs a positive width and height.")
            }
            // Each side first, so the product cannot overflow.
            guard resize.width <= request.maxPixels, resize.height <= request.maxPixels,
                resize.width * resize.height <= request.maxPixels
            else {
                throw ConvertError(
                    .request, key: "request.resize-too-large",
                    message: "A \(resize.width)x\(resize.height) box is over the limit of \(request.maxPixels) pixels.")
            }
        }
        guard request.format != .gif else {
            throw ConvertError(.unsupported, key: "output.unsupported", message: "offconvert does not write GIF photos.")
        }
        if request.format == .heic || request.format == .avif {
            let format: HeifEncoding.Format = request.format == .heic ? .heic : .avif
            // Check before decoding: a missing encoder should fail fast, not after a full decode.
            guard HeifEncoding.isAvailable(format) else {
                throw ConvertError(
                    .unsupported, key: "output.encoder-missing",
                    message: format == .heic
                        ? "HEIC output needs libheif's x265 (HEVC) encoder plugin, which this system lacks."
                        : "AVIF output needs an AV1 encoder plugin for libheif (aom, rav1e or SVT-AV1), which this system lacks.")
            }
        }
        if request.bitDepth == .ten, request.format == .avif, !HeifEncoding.supportsTenBit(.avif) {
            throw ConvertError(
                .unsupported, key: "output.depth-unsupported",
                message: "10-bit AVIF cannot be written on this system (libheif's AV1 encoder fails on 10-bit input); write 8-bit AVIF or 10-bit HEIC.")
        }
        if let result = try directHeicToJPEG(request, reporter: reporter, cancellation: cancellation) { return result }
        reporter.report(.decoding, 0)
        var photo = try ImageDecoder.decode(path: input, options: decodeOptions(for: request), cancellation: cancellation)
        reporter.report(.encoding, 0.6)
        var notes = photo.notes
        func note(_ text: String) { if !notes.contains(text) { notes.append(text) } }
        // The frames move out of `photo` so that each slot is the only reference to its bitmap
        // (the target-size search releases it before decoding a smaller one).
        var frames: [DecodedFrame?] = photo.frames
        photo.frames = []
        var outputs: [OutputFile] = []
        let names = try outputPaths(for: request, count: frames.count)
        for index in frames.indices {
            try cancellation.check()
            let metadata = OutputMetadata(exif: frames[index]?.exif, xmp: frames[index]?.xmp, policy: request.metadata)
            metadata.notes.forEach(note)
            let output: OutputFile
            if let target = request.targetByteCount {
                let result = try encodeToTarget(
                    request, frameIndex: index, frame: &frames[index], target: target, metadata: metadata,
                    cancellation: cancellation)
                frames[index] = nil
                result.notes.forEach(note)
                note("quality \(result.quality)")
                if let edge = result.longEdge { note("resized to \(edge) px long edge") }
                output = try write(to: names[index], overwrite: request.overwrite, renumber: request.outputPath == nil || request.outputMayBeRenumbered) {
                    (temporary, display) throws(ConvertError) in
                    try ImageEncoder.writeFile(result.bytes, to: temporary, displayPath: display)
                } cancellation: { cancellation }
            } else {
                guard let frame = frames[index] else { continue }
                frames[index] = nil
                let bitmap = try prepare(frame.bitmap, for: request, path: input)
                let depth = heifBitDepth(for: request, bitmap: bitmap)
                depth.note.map(note)
                output = try write(to: names[index], overwrite: request.overwrite, renumber: request.outputPath == nil || request.outputMayBeRenumbered) {
                    (temporary, display) throws(ConvertError) in
                    let written = try ImageEncoder.write(
                        bitmap, format: request.format, quality: request.quality, lossless: request.lossless,
                        heifBitDepth: depth.bits, exif: metadata.exif, xmp: metadata.xmp, to: temporary, displayPath: display)
                    written.notes.forEach(note)
                } cancellation: { cancellation }
            }
            outputs.append(output)
            reporter.report(.writing, 0.6 + 0.4 * Double(index + 1) / Double(frames.count))
        }
        return JobResult(inputPath: input, outputs: outputs, notes: notes)
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
    /// resize, no colour conversion, 8 bits with JPEG's matrix and range) libheif's planes go to
    /// the JPEG encoder in the layout libheif produced them: YCbCr 4:2:0 straight to
    /// `tjCompressFromYUVPlanes`, or, for a grid photo (which libheif 1.15 assembles in planar
    /// RGB), interleaved RGB to `tjCompress2`. Returns nil when the photo does not qualify; the
    /// caller then takes the general path.
    package static func directHeicToJPEG(
        _ request: PhotoRequest, reporter: ProgressReporter, cancellation: CancellationFlag
    ) throws(ConvertError) -> JobResult? {
        guard request.format == .jpeg, !request.allImages, request.maxLongEdge == nil, request.resize == nil, request.color == .keep,
            request.targetByteCount == nil
        else { return nil }
        let input = request.inputPath
        guard try ImageDecoder.sniff(path: input) == .heic,
            let (handle, nclx) = try directJPEGSource(
                path: input, decodingThreads: request.decodingThreads ?? ProcessInfo.processInfo.activeProcessorCount,
                maxPixels: request.maxPixels)
        else { return nil }
        reporter.report(.decoding, 0)
        let picture = try directPicture(
            path: input, handle: handle, nclx: nclx,
            decodingThreads: request.decodingThreads ?? ProcessInfo.processInfo.activeProcessorCount,
            maxPixels: request.maxPixels, cancellation: cancellation)
        try cancellation.check()
        reporter.report(.encoding, 0.6)
        let encoder = try TurboJPEGHandle.compressor()
        let encoded: [UInt8]?
        switch picture {
        case .ycbcr(let image):
            encoded = try image.withPlanes { (planes, strides) throws(ConvertError) in
                try encoder.encodeYUV420(planes: planes, strides: strides, width: image.width, height: image.height, quality: request.quality)
            }
        case .heif(let image):
            let viaYCbCr = try image.withYCbCr420Planes { (planes, strides, width, height) throws(ConvertError) in
                try encoder.encodeYUV420(planes: planes, strides: strides, width: width, height: height, quality: request.quality)
            }
            if let viaYCbCr {
                encoded = viaYCbCr
            } else {
                encoded = try image.withRGBPlanes { (planes, strides, width, height) throws(ConvertError) in
                    try encoder.encodeRGBPlanes(planes: planes, strides: strides, width: width, height: height, quality: request.quality)
                }
            }
        }
        guard let stream = encoded else { return nil }
        var notes: [String] = []
        var icc = handle.iccProfile
        if icc == nil, let nclx, let generated = ColorProfiles.icc(for: nclx) {
            icc = generated.icc
            if let note = generated.note { notes.append(note) }
        }
        let metadata = OutputMetadata(exif: handle.exif, xmp: handle.xmp, policy: request.metadata)
        notes += metadata.notes
        let segments = ImageEncoder.jpegSegments(exif: metadata.exif, xmp: metadata.xmp, icc: icc)
        notes += segments.notes
        let bytes = JPEGMarkers.inserting(segments.bytes, into: stream)
        let names = try outputPaths(for: request, count: 1)
        let output = try write(to: names[0], overwrite: request.overwrite, renumber: request.outputPath == nil || request.outputMayBeRenumbered) {
            (temporary, display) throws(ConvertError) in
            try ImageEncoder.writeFile(bytes, to: temporary, displayPath: display)
        } cancellation: { cancellation }
        reporter.report(.writing, 1)
        return JobResult(inputPath: input, outputs: [output], notes: notes)
    }

    /// Opens a HEIC's primary image for ``directHeicToJPEG(_:reporter:cancellation:)``, or
    /// returns nil when its planes cannot go to the JPEG encoder as they are. Shared with the
    /// decode-only benchmark (``DecodeFloor``) so that both decode with the same settings.
    package static func directJPEGSource(
        path: String, decodingThreads: Int, maxPixels: Int
    ) throws(ConvertError) -> (handle: HeifImageHandle, nclx: NCLX?)? {
        let context = try HeifContext(reading: path, decodingThreads: decodingThreads)
        let handle = try context.primaryImage()
        try PixelLimit.check(width: handle.width, height: handle.height, limit: maxPixels, path: path)
        // JPEG's YCbCr is BT.601 full range; other matrices or video range need the RGB path.
        let nclx = handle.nclx
        let jpegMatrix = nclx.map { [2, 5, 6].contains($0.matrix) && $0.fullRange } ?? true
        guard !handle.hasAlpha, handle.bitDepth == 8, jpegMatrix else { return nil }
        return (handle, nclx)
    }

    /// The pixels of a direct-path photo, in a layout the JPEG encoder takes as it is.
    package enum DirectPicture {
        /// YCbCr 4:2:0 decoded from the HEVC tiles by ``HeifYCbCrDecoder`` (no colour conversion).
        case ycbcr(YCbCr420Image)
        /// libheif's own planes (see ``directPlanes(_:cancellation:)``).
        case heif(HeifDecodedImage)
    }

    /// Decodes a direct-path photo: its HEVC tiles straight to YCbCr when ``HeifYCbCrDecoder``
    /// takes the file and the stream codes in JPEG's matrix and range, otherwise with libheif.
    /// Shared with the decode-only benchmark (``DecodeFloor``).
    package static func directPicture(
        path: String, handle: HeifImageHandle, nclx: NCLX?, decodingThreads: Int, maxPixels: Int,
        cancellation: CancellationFlag
    ) throws(ConvertError) -> DirectPicture {
        if let decoded = try HeifYCbCrDecoder.decodePrimary(
            path: path, threads: decodingThreads, maxPixels: maxPixels, cancellation: cancellation),
            decoded.image.width == handle.width, decoded.image.height == handle.height,
            nclx != nil || (decoded.fullRange && [2, 5, 6].contains(decoded.matrix))
        {
            return .ycbcr(decoded.image)
        }
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
