import Foundation

/// Converts photos between formats: decode (orientation applied), colour, alpha, metadata policy,
/// encode, and a staged write that never leaves a partial file or replaces the input.
public enum PhotoConverter {
    /// Starts converting one photo. The job's result lists the file(s) written and notes such as
    /// "location removed".
    public static func convert(_ request: PhotoRequest) -> ConversionJob {
        ConversionJob.start(path: request.inputPath) { reporter in
            try await runBlocking { flag in
                try convertBlocking(request, reporter: reporter, cancellation: flag)
            }
        }
    }

    static func convertBlocking(
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
        if let result = try directHeicToJPEG(request, reporter: reporter, cancellation: cancellation) { return result }
        reporter.report(.decoding, 0)
        var options = DecodeOptions()
        options.allImages = request.allImages
        options.maxLongEdge = request.maxLongEdge
        options.maxPixels = request.maxPixels
        if let threads = request.decodingThreads { options.decodingThreads = threads }
        var photo = try ImageDecoder.decode(path: input, options: options, cancellation: cancellation)
        reporter.report(.encoding, 0.6)
        var notes = photo.notes
        func note(_ text: String) { if !notes.contains(text) { notes.append(text) } }
        // The frames move out of `photo` so that each slot is the only reference to its bitmap
        // (the target-size search releases it before decoding a smaller one).
        var frames: [DecodedFrame?] = photo.frames
        photo.frames = []
        var outputs: [OutputFile] = []
        let names = try PhotoOutputNaming.candidates(for: request, count: frames.count)
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
                output = try write(names: names[index], overwrite: request.overwrite, input: input) {
                    (temporary, display) throws(ConvertError) in
                    try ImageEncoder.writeFile(result.bytes, to: temporary, displayPath: display)
                } cancellation: { cancellation }
            } else {
                guard let frame = frames[index] else { continue }
                frames[index] = nil
                let bitmap = try prepare(frame.bitmap, for: request, path: input)
                output = try write(names: names[index], overwrite: request.overwrite, input: input) {
                    (temporary, display) throws(ConvertError) in
                    let written = try ImageEncoder.write(
                        bitmap, format: request.format, quality: request.quality, lossless: request.lossless,
                        exif: metadata.exif, xmp: metadata.xmp, to: temporary, displayPath: display)
                    written.notes.forEach(note)
                } cancellation: { cancellation }
            }
            outputs.append(output)
            reporter.report(.writing, 0.6 + 0.4 * Double(index + 1) / Double(frames.count))
        }
        return JobResult(inputPath: input, outputs: outputs, notes: notes)
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

    /// 0666 minus the process umask, read once: `umask` can only be read by setting it, so this
    /// happens a single time, before any output is written.
    static let outputMode: mode_t = {
        let mask = umask(0o022)
        umask(mask)
        return 0o666 & ~mask
    }()

    /// Encodes through a staged temporary file into the first free name of `names` (or the one
    /// name when overwriting). When another job takes a name between the choice and the commit,
    /// the finished file moves on to the next candidate instead of failing.
    static func write(
        names: [String], overwrite: Bool, input: String,
        encode: (_ temporaryPath: String, _ displayPath: String) throws(ConvertError) -> Void,
        cancellation: () -> CancellationFlag
    ) throws(ConvertError) -> OutputFile {
        precondition(!names.isEmpty, "at least one candidate name")
        var stage = try StagedOutput(destination: names[0])
        try encode(stage.temporaryPath, names[0])
        try cancellation().check()
        // The staged file is created 0600 (mkstemps); a finished photo gets the usual permissions.
        chmod(stage.temporaryPath, outputMode)
        var index = 0
        while true {
            do {
                return try stage.commit(overwrite: overwrite)
            } catch let error where error.key == "output.exists" && index + 1 < names.count {
                index += 1
                let next = try StagedOutput(destination: names[index])
                guard rename(stage.temporaryPath, next.temporaryPath) == 0 else {
                    throw .fileSystem(errno, action: "move the output into place at", path: names[index])
                }
                stage.discard()
                stage = next
            }
        }
    }
}

/// How outputs are named: `photo.heic` → `photo.jpg` next to the input or in the output folder;
/// `photo (2).jpg`, `photo (3).jpg`, ... when a name is taken; `photo-1.jpg`, `photo-2.jpg`, ...
/// for the images of a multi-image file.
enum PhotoOutputNaming {
    /// The base path (folder + stem, no extension) and extension of image `index` of `count`.
    static func base(for request: PhotoRequest, index: Int, count: Int) -> (stem: String, ext: String) {
        let stem: String
        let ext: String
        if let explicit = request.outputPath {
            let ns = explicit as NSString
            stem = ns.deletingPathExtension
            ext = ns.pathExtension.isEmpty ? request.format.fileExtension : ns.pathExtension
        } else {
            let input = request.inputPath as NSString
            let directory = request.outputDirectory ?? input.deletingLastPathComponent
            let name = (input.lastPathComponent as NSString).deletingPathExtension
            stem = (directory.isEmpty ? name : (directory as NSString).appendingPathComponent(name))
            ext = request.format.fileExtension
        }
        return (count > 1 ? "\(stem)-\(index + 1)" : stem, ext)
    }

    /// Candidate output paths for each image, in order of preference. The input itself is never
    /// a candidate; with `overwrite` only the plain name is offered.
    static func candidates(for request: PhotoRequest, count: Int) throws(ConvertError) -> [[String]] {
        let inputReal = realPath(request.inputPath)
        var all: [[String]] = []
        for index in 0..<count {
            let (stem, ext) = base(for: request, index: index, count: count)
            let plain = "\(stem).\(ext)"
            let isInput = realPath(plain) == inputReal
            if request.overwrite && !isInput {
                all.append([plain])
                continue
            }
            if request.outputPath != nil && !isInput {
                all.append([plain])
                continue
            }
            var names: [String] = []
            if !isInput && !FileManager.default.fileExists(atPath: plain) { names.append(plain) }
            var number = 2
            while names.count < 50 && number < 10_000 {
                let candidate = "\(stem) (\(number)).\(ext)"
                if !FileManager.default.fileExists(atPath: candidate) && realPath(candidate) != inputReal {
                    names.append(candidate)
                }
                number += 1
            }
            guard !names.isEmpty else {
                throw ConvertError(.request, key: "output.exists", message: "No free output name for \(plain).", path: plain)
            }
            all.append(names)
        }
        return all
    }

    /// The canonical path of `path` (or of its folder joined with its name when it does not exist).
    static func realPath(_ path: String) -> String {
        let url = URL(fileURLWithPath: path)
        if FileManager.default.fileExists(atPath: path) { return url.resolvingSymlinksInPath().path }
        return url.deletingLastPathComponent().resolvingSymlinksInPath().appendingPathComponent(url.lastPathComponent).path
    }
}

extension PhotoConverter {
    /// HEIC → JPEG without an RGB round trip: both are YCbCr, so when nothing needs the RGB
    /// pixels (no alpha, no resize, no colour conversion, 8-bit 4:2:0 with JPEG's matrix and
    /// range) libheif's planes go straight to the JPEG encoder. Returns nil when the photo does
    /// not qualify; the caller then takes the general path.
    static func directHeicToJPEG(
        _ request: PhotoRequest, reporter: ProgressReporter, cancellation: CancellationFlag
    ) throws(ConvertError) -> JobResult? {
        guard request.format == .jpeg, !request.allImages, request.maxLongEdge == nil, request.color == .keep,
            request.targetByteCount == nil
        else { return nil }
        let input = request.inputPath
        guard try ImageDecoder.sniff(path: input) == .heic else { return nil }
        let context = try HeifContext(reading: input, decodingThreads: request.decodingThreads ?? ProcessInfo.processInfo.activeProcessorCount)
        let handle = try context.primaryImage()
        try PixelLimit.check(width: handle.width, height: handle.height, limit: request.maxPixels, path: input)
        // JPEG's YCbCr is BT.601 full range; other matrices or video range need the RGB path.
        let nclx = handle.nclx
        let jpegMatrix = nclx.map { [2, 5, 6].contains($0.matrix) && $0.fullRange } ?? true
        guard !handle.hasAlpha, handle.bitDepth == 8, jpegMatrix else { return nil }
        reporter.report(.decoding, 0)
        let image = try handle.decodeYCbCr420(cancellation: cancellation)
        try cancellation.check()
        reporter.report(.encoding, 0.6)
        let encoder = try TurboJPEGHandle.compressor()
        guard
            let stream = try image.withYCbCr420Planes({ (planes, strides, width, height) throws(ConvertError) in
                try encoder.encodeYUV420(planes: planes, strides: strides, width: width, height: height, quality: request.quality)
            })
        else { return nil }
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
        let names = try PhotoOutputNaming.candidates(for: request, count: 1)
        let output = try write(names: names[0], overwrite: request.overwrite, input: input) {
            (temporary, display) throws(ConvertError) in
            try ImageEncoder.writeFile(bytes, to: temporary, displayPath: display)
        } cancellation: { cancellation }
        reporter.report(.writing, 1)
        return JobResult(inputPath: input, outputs: [output], notes: notes)
    }
}
