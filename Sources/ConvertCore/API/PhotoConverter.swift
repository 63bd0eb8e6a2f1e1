import FoundationEssentials

/// Converts photos between formats: decode (orientation applied), colour, alpha, metadata policy,
/// encode, and a staged write that never leaves a partial file or replaces the input.
public enum PhotoConverter {
    /// Starts converting one photo. The job's result lists the file(s) written and notes such as
    /// "location removed". The job runs on the threads of `limits` and waits for its admission.
    public static func convert(_ request: PhotoRequest, limits: ConversionLimits = .shared) -> ConversionJob {
        ConversionJob.start(path: request.inputPath, admission: limits.admission) { reporter in
            try await runBlocking(on: limits.codec) { flag in
                try convertBlocking(request, reporter: reporter, cancellation: flag)
            }
        }
    }

    /// Whether this system can write `format`: HEIC and AVIF need libheif encoder plugins
    /// (x265, an AV1 encoder) that a system may lack; GIF, BMP and TIFF are read only.
    public static func canEncode(_ format: PhotoFormat) -> Bool {
        switch format {
        case .heic: HeifEncoding.isAvailable(.heic)
        case .avif: HeifEncoding.isAvailable(.avif)
        case .gif, .bmp, .tiff, .tga, .pnm, .ico, .psd, .jp2: false
        default: true
        }
    }

    /// Converts one photo on the calling thread: the direct HEIC → JPEG path, the streamed JPEG →
    /// JPEG path or a lossless JPEG recompression when the request qualifies, otherwise decode, gain map, then each frame
    /// encoded with its metadata and written.
    static func convertBlocking(
        _ request: PhotoRequest, reporter: ProgressReporter, cancellation: CancellationFlag
    ) throws(ConvertError) -> JobResult {
        try check(request)
        // The input is read once: every reader below takes its format, item model and libheif
        // context from here.
        let opened = try open(request)
        var result = try convertOpened(request, opened: opened, reporter: reporter, cancellation: cancellation)
        // Only the still is decoded; a motion photo's video would silently vanish otherwise.
        if opened.isMotionPhoto() { result.notes.append(MotionPhotoEditor.motionNotKeptNote) }
        return result
    }

    /// ``convertBlocking(_:reporter:cancellation:)`` on the input `opened`: each path in turn.
    private static func convertOpened(
        _ request: PhotoRequest, opened: OpenedPhoto, reporter: ProgressReporter, cancellation: CancellationFlag
    ) throws(ConvertError) -> JobResult {
        if let result = try directHeicToJPEG(request, opened: opened, reporter: reporter, cancellation: cancellation) {
            return result
        }
        if let streamed = try streamedJPEG(request, opened: opened, reporter: reporter, cancellation: cancellation) {
            return streamed
        }
        if let kept = try jpegWithinTarget(request, opened: opened, cancellation: cancellation) { return kept }
        if let animated = try animatedWebP(request, opened: opened, reporter: reporter, cancellation: cancellation) {
            return animated
        }
        let recompression = try recompressedJPEG(request, opened: opened, cancellation: cancellation)
        if case .done(let result) = recompression { return result }
        reporter.report(.decoding, 0)
        var options = decodeOptions(for: request)
        // The decode is the job's first 60 % (the encode and write the rest).
        options.progress = DecodeProgress { reporter.report(.decoding, 0.6 * $0) }
        var photo = try ImageDecoder.decode(
            path: request.inputPath, options: options, cancellation: cancellation, opened: opened)
        reporter.report(.encoding, 0.6)
        var notes = photo.notes
        if case .refused = recompression { notes.append(refusedRecompressionNote) }
        let gainMap = try outputGainMap(
            request, photo: photo, opened: opened, notes: &notes, cancellation: cancellation)
        // The frames move out of `photo` so that each slot is the only reference to its bitmap
        // (the target-size search releases it before decoding a smaller one).
        var frames: [DecodedFrame?] = photo.frames
        photo.frames = []
        return try writeFrames(
            &frames, request: request, opened: opened, gainMap: gainMap, notes: notes, reporter: reporter,
            cancellation: cancellation)
    }

    /// The request's input, opened once: a batch item's probe of it when the request carries one.
    private static func open(_ request: PhotoRequest) throws(ConvertError) -> OpenedPhoto {
        let input: PhotoInput
        if let probed = request.probed, probed.path == request.inputPath {
            input = probed
        } else {
            input = try PhotoInput.open(path: request.inputPath, for: .converting)
        }
        return try OpenedPhoto(
            input, decodingThreads: request.decodingThreads ?? ProcessInfo.processInfo.activeProcessorCount)
    }

    /// The gain map the general path's output carries: the input's (``generalGainMap(_:format:heif:cancellation:)``),
    /// or the one computed from a PQ/HLG still's HDR picture; why HDR was not kept goes to `notes`.
    private static func outputGainMap(
        _ request: PhotoRequest, photo: DecodedPhoto, opened: OpenedPhoto, notes: inout [JobNote],
        cancellation: CancellationFlag
    ) throws(ConvertError) -> CarriedGainMap? {
        var gainMap = try generalGainMap(request, format: opened.format, heif: opened.heif, cancellation: cancellation)
        if let computed = photo.hdrGainMap {
            gainMap = (computed, nil)
        } else if photo.toneMapped != nil, request.hdr == .keep, request.format != .jpeg {
            add(notKeptNote(request.format), to: &notes)
        }
        if let note = gainMap.note { add(note, to: &notes) }
        return gainMap.carried
    }

    /// Encodes each decoded frame with its metadata and writes it, in order, releasing each
    /// frame's bitmap as it goes; the result lists the files and every note once.
    private static func writeFrames(
        _ frames: inout [DecodedFrame?], request: PhotoRequest, opened: OpenedPhoto, gainMap: CarriedGainMap?,
        notes: [JobNote],
        reporter: ProgressReporter, cancellation: CancellationFlag
    ) throws(ConvertError) -> JobResult {
        var notes = notes
        func note(_ text: String) { add(text, to: &notes) }
        var outputs: [OutputFile] = []
        var location = LocationOutcome.noneFound
        let names = try outputPaths(for: request, count: frames.count)
        for index in frames.indices {
            try cancellation.check()
            let metadata = OutputMetadata(
                exif: frames[index]?.exif, xmp: frames[index]?.xmp, iptc: frames[index]?.iptc,
                pngText: frames[index]?.pngText ?? [], policy: request.metadata)
            metadata.notes.forEach(note)
            if metadata.location != .noneFound { location = metadata.location }
            let carried = gainMap.flatMap { $0.frameIndex == index ? $0 : nil }
            if let target = request.targetByteCount {
                outputs.append(
                    try writeToTarget(
                        &frames[index], index: index, request: request, opened: opened, target: target,
                        metadata: metadata,
                        gainMap: carried, to: names[index], note: note, cancellation: cancellation))
            } else {
                guard let frame = frames[index] else { continue }
                frames[index] = nil
                outputs.append(
                    try writeFrame(
                        frame, request: request, metadata: metadata, gainMap: carried, to: names[index], note: note,
                        cancellation: cancellation))
            }
            reporter.report(.writing, 0.6 + 0.4 * Double(index + 1) / Double(frames.count))
        }
        return JobResult(inputPath: request.inputPath, outputs: outputs, notes: notes, location: location)
    }

    /// Encodes frame `index` within the request's target size (``encodeToTarget(_:opened:frameIndex:frame:target:metadata:gainMap:cancellation:)``,
    /// which empties `frame`) and writes it to `destination`, noting the quality and size chosen.
    private static func writeToTarget(
        _ frame: inout DecodedFrame?, index: Int, request: PhotoRequest, opened: OpenedPhoto, target: Int64,
        metadata: OutputMetadata, gainMap: CarriedGainMap?, to destination: String, note: (String) -> Void,
        cancellation: CancellationFlag
    ) throws(ConvertError) -> OutputFile {
        // A smaller decode of the same input reuses what was read of it.
        let result = try encodeToTarget(
            request, opened: opened, frameIndex: index, frame: &frame, target: target, metadata: metadata,
            gainMap: gainMap,
            cancellation: cancellation)
        frame = nil
        result.notes.forEach(note)
        let range = TargetSizeSolver.qualities
        note(
            result.quality.map { "quality \($0)" }
                ?? "quality chosen by libwebp's size search (\(range.lowerBound)–\(range.upperBound))")
        if let edge = result.longEdge { note("resized to \(edge) px long edge") }
        return try writeBytes(result.bytes, to: destination, for: request, cancellation: cancellation)
    }

    /// Prepares `frame` for the output (colour, alpha) and writes it to `destination`: with its
    /// gain map as Ultra HDR JPEG, HEIC or AVIF, or as the HDR picture it describes in JPEG XL,
    /// when it carries one; else as the requested format.
    private static func writeFrame(
        _ frame: DecodedFrame, request: PhotoRequest, metadata: OutputMetadata, gainMap: CarriedGainMap?,
        to destination: String,
        note: (String) -> Void, cancellation: CancellationFlag
    ) throws(ConvertError) -> OutputFile {
        let bitmap = try prepare(frame.bitmap, for: request, path: request.inputPath)
        let sized = metadata.withPixelSize(width: bitmap.width, height: bitmap.height).carried(by: request.format)
        let depth = heifBitDepth(for: request, bitmap: bitmap)
        depth.note.map(note)
        if let carried = gainMap {
            let plane = carried.plane(
                resize: request.resize, maxLongEdge: request.maxLongEdge, bitmapWidth: bitmap.width,
                bitmapHeight: bitmap.height)
            try cancellation.check()
            switch request.format {
            case .heic:
                return try writeHEIC(
                    bitmap, plane: plane, map: carried.map, request: request, bitDepth: depth.bits, metadata: sized,
                    to: destination, note: note, cancellation: cancellation)
            case .avif:
                return try writeAVIF(
                    bitmap, plane: plane, map: carried.map, request: request, metadata: sized, to: destination,
                    note: note,
                    cancellation: cancellation)
            case .jxl:
                return try writeHDRJXL(
                    bitmap, plane: plane, map: carried.map, request: request, metadata: sized, to: destination,
                    note: note,
                    cancellation: cancellation)
            default:
                return try writeUltraHDR(
                    bitmap, plane: plane, map: carried.map, request: request, metadata: sized, to: destination,
                    note: note,
                    cancellation: cancellation)
            }
        }
        if request.format == .jxl, let coding = frame.hdrCoding {
            return try writeHDRJXL(
                bitmap, coding: coding, request: request, metadata: sized, to: destination, note: note,
                cancellation: cancellation)
        }
        return try write(to: destination, for: request) {
            (temporary, display) throws(ConvertError) in
            let written = try ImageEncoder.write(
                bitmap, format: request.format, quality: request.quality, lossless: request.lossless,
                heifBitDepth: depth.bits, exif: sized.exif, xmp: sized.xmp, iptc: sized.iptc, pngText: sized.pngText,
                to: temporary, displayPath: display)
            written.notes.forEach(note)
        } cancellation: {
            cancellation
        }
    }

    /// Appends `note` to `notes` unless it is there already: a note said by every frame is shown once.
    private static func add(_ note: JobNote, to notes: inout [JobNote]) {
        if !notes.contains(note) { notes.append(note) }
    }

    /// Appends a fact saying `note` unless one says it already.
    private static func add(_ note: String, to notes: inout [JobNote]) {
        add(JobNote(fact: note), to: &notes)
    }

    /// Refuses a request that cannot be carried out, before the input is read: a quality or
    /// target outside its range, a resize box that contradicts itself or is over the pixel
    /// limit, an output format this system cannot write.
    private static func check(_ request: PhotoRequest) throws(ConvertError) {
        if let frame = request.frame, frame < 1 {
            throw ConvertError(code: .requestFrame, message: "Frames are counted from 1.")
        }
        guard (1...100).contains(request.quality) else {
            throw ConvertError(code: .requestQuality, message: "Quality must be between 1 and 100.")
        }
        if let target = request.targetByteCount {
            guard target > 0 else {
                throw ConvertError(code: .requestTargetSize, message: "The target size must be positive.")
            }
            guard request.format == .jpeg || request.format == .webp else {
                throw ConvertError(
                    code: .requestTargetFormat, message: "A target size can be met for JPEG and WebP outputs only.")
            }
        }
        if let resize = request.resize {
            guard request.maxLongEdge == nil else {
                throw ConvertError(
                    code: .requestResize, message: "A resize box and a long-edge limit cannot be used together.")
            }
            guard resize.width > 0, resize.height > 0 else {
                throw ConvertError(code: .requestResize, message: "A resize box needs a positive width and height.")
            }
            // Each side first, so the product cannot overflow.
            guard resize.width <= request.maxPixels, resize.height <= request.maxPixels,
                resize.width * resize.height <= request.maxPixels
            else {
                throw ConvertError(
                    code: .requestResizeTooLarge,
                    message: "A \(resize.width)x\(resize.height) box is over the limit of \(request.maxPixels) pixels.")
            }
        }
        try checkEncoder(for: request)
    }

    /// Refuses an output this system cannot write: GIF, BMP, TIFF, HEIC or AVIF without libheif's encoder
    /// plugin, 10-bit AVIF where the AV1 encoder fails on it.
    private static func checkEncoder(for request: PhotoRequest) throws(ConvertError) {
        guard !request.format.isReadOnly else {
            throw ConvertError(
                code: .outputUnsupported,
                message: "\(request.format.rawValue.uppercased()) photos cannot be written, only read.")
        }
        if request.format == .heic || request.format == .avif {
            let format: HeifEncoding.Format = request.format == .heic ? .heic : .avif
            // Check before decoding: a missing encoder should fail fast, not after a full decode.
            guard HeifEncoding.isAvailable(format) else {
                throw ConvertError(
                    code: .outputEncoderMissing,
                    message: format == .heic
                        ? "HEIC output needs libheif's x265 (HEVC) encoder plugin, which this system lacks."
                        : "AVIF output needs an AV1 encoder plugin for libheif (aom, rav1e or SVT-AV1), which this system lacks."
                )
            }
        }
        if request.bitDepth == .ten, request.format == .avif, !HeifEncoding.supportsTenBit(.avif) {
            throw ConvertError(
                code: .outputDepthUnsupported,
                message:
                    "10-bit AVIF cannot be written on this system (libheif's AV1 encoder fails on 10-bit input); write 8-bit AVIF or 10-bit HEIC."
            )
        }
    }

    /// The bits per channel a HEIC/AVIF output of `bitmap` gets: the request's, or 10 for HEIC
    /// when the source had more than 8; with a note when a deep source is written at 8 bits
    /// because the format cannot take more here.
    static func heifBitDepth(for request: PhotoRequest, bitmap: Bitmap) -> (bits: Int, note: String?) {
        guard request.format == .heic || request.format == .avif else { return (8, nil) }
        let format: HeifEncoding.Format = request.format == .heic ? .heic : .avif
        if let depth = request.bitDepth { return (depth.rawValue, nil) }
        guard bitmap.sourceBitDepth > 8 else { return (8, nil) }
        guard HeifEncoding.supportsTenBit(format) else { return (8, "\(format.rawValue) written at 8 bits") }
        return (10, nil)
    }

    /// How `request` wants its input decoded (and resized on the way).
    static func decodeOptions(for request: PhotoRequest, maxLongEdge: Int? = nil) -> DecodeOptions {
        var options = DecodeOptions()
        options.allImages = request.allImages
        options.maxLongEdge = maxLongEdge ?? request.maxLongEdge
        options.resize = request.resize
        options.maxPixels = request.maxPixels
        options.strict = request.strict
        options.frame = request.frame.map { $0 - 1 }
        if let threads = request.decodingThreads { options.decodingThreads = threads }
        options.hdrStill = HDRStillPolicy(format: request.format, hdr: request.hdr)
        // `--color srgb` asks for an SDR colour space: the HDR code values cannot be kept in it.
        if options.hdrStill == .keepTransfer, request.color == .sRGB { options.hdrStill = .toneMap }
        // Bars are transparent only where the output keeps alpha; elsewhere the background.
        if let color = request.resize?.padding {
            options.padding = .color(color)
        } else {
            options.padding = ImageEncoder.supportsAlpha(request.format) ? .transparent : .color(request.background)
        }
        return options
    }

    /// Applies the colour policy and flattens alpha where the target cannot hold it.
    static func prepare(_ source: Bitmap, for request: PhotoRequest, path: String) throws(ConvertError) -> Bitmap {
        var bitmap = source
        if bitmap.hasAlpha && (!ImageEncoder.supportsAlpha(request.format) || !bitmap.hasTransparency) {
            bitmap = bitmap.flattened(onto: request.background)
        }
        if request.color == .sRGB { bitmap = try ColorProfiles.convertToSRGB(bitmap, path: path) }
        return bitmap
    }

    /// Encodes through a staged temporary file and moves it to `destination` as `request` says:
    /// replacing an existing file only with ``PhotoRequest/overwrite`` (the destination is never
    /// the input, see ``outputPaths(for:count:)``), numbered around a name taken meanwhile unless
    /// the user typed it, through the request's placement gate.
    package static func write(
        to destination: String, for request: PhotoRequest,
        encode: (_ temporaryPath: String, _ displayPath: String) throws(ConvertError) -> Void,
        cancellation: () -> CancellationFlag
    ) throws(ConvertError) -> OutputFile {
        let stage = try StagedOutput(destination: destination)
        try encode(stage.temporaryPath, destination)
        try cancellation().check()
        return try stage.commit(
            overwrite: request.overwrite, renumber: request.outputPath == nil || request.outputMayBeRenumbered,
            gate: request.placementGate)
    }

    /// Writes `bytes`, a whole output file made without an encoder pass (a JPEG kept as it is, a
    /// recompressed one), to the request's one output path.
    static func writeWhole(_ bytes: [UInt8], for request: PhotoRequest, cancellation: CancellationFlag)
        throws(ConvertError) -> OutputFile
    {
        let destination = try outputPaths(for: request, count: 1)[0]
        return try writeBytes(bytes, to: destination, for: request, cancellation: cancellation)
    }

    /// Writes `bytes`, a whole encoded file, to `destination` as the request says (see
    /// ``write(to:for:encode:cancellation:)``).
    static func writeBytes(
        _ bytes: [UInt8], to destination: String, for request: PhotoRequest, cancellation: CancellationFlag
    ) throws(ConvertError) -> OutputFile {
        try write(to: destination, for: request) { (temporary, display) throws(ConvertError) in
            try ImageEncoder.writeFile(bytes, to: temporary, displayPath: display)
        } cancellation: {
            cancellation
        }
    }

    /// Where each of `count` images goes: ``PhotoRequest/outputPath`` (with `-1`, `-2`, ... for
    /// several images), or fresh names from ``OutputNamer`` in the output folder.
    static func outputPaths(for request: PhotoRequest, count: Int) throws(ConvertError) -> [String] {
        try OutputNamer.destination(
            input: request.inputPath, explicitPath: request.outputPath, directory: request.outputDirectory,
            overwrite: request.overwrite, pathExtension: request.format.fileExtension,
            suffixes: count > 1 ? (1...count).map { "-\($0)" } : [""])
    }
}
