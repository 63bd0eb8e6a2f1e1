import ConvertBatch
import ConvertCore
import FoundationEssentials

/// What the photo commands share: their options, the request they build, the memory an item
/// costs, and the ``BatchWork`` that runs it through ``BatchRunner``.
package enum PhotoWork {
    /// Reads the options every photo command shares into a request template (its input and
    /// destination are filled in per item).
    package static func request(from arguments: ParsedArguments, format: PhotoFormat) throws(UsageError) -> PhotoRequest
    {
        if arguments.has(keepMetadata) && arguments.has(stripMetadata) {
            throw UsageError(message: "'--keep-metadata' and '--strip-metadata' cannot be used together.")
        }
        var request = PhotoRequest(inputPath: "", format: format)
        request.quality = try arguments.value(quality, default: format.defaultQuality)
        if arguments.has(stripMetadata) {
            request.metadata = .strip
        } else if arguments.has(keepMetadata) {
            request.metadata = .keep
        } else if arguments.has(keepLocation) {
            request.metadata = .keepLocation
        }
        request.color = try arguments.value(color, default: .keep)
        request.hdr = try arguments.value(hdr, default: .keep)
        if let color = try arguments.value(background) { request.background = color }
        request.allImages = arguments.has(allImages)
        request.strict = arguments.has(strict)
        request.frame = try arguments.value(frame)
        request.maxPixels = try BatchOptions.maxPixels(arguments)
        if let edge = try arguments.value(maxSize) { request.maxLongEdge = edge }
        request.resize = try resize(from: arguments)
        return request
    }

    /// `--resize WxH` with `--fit`; nil when `--resize` is not given.
    package static func resize(from arguments: ParsedArguments) throws(UsageError) -> PhotoResize? {
        guard let text = try arguments.value(resizeBox) else {
            if arguments.has(fit) { throw UsageError(message: "'--fit' needs '--resize WxH'.") }
            return nil
        }
        if arguments.has(maxSize) {
            throw UsageError(
                message: "'--resize' and '--max-size' cannot be used together: give the box with '--resize' alone.")
        }
        let fit = try arguments.value(Self.fit, default: .fit)
        guard var resize = PhotoResize(parsing: text, fit: fit), resize.width <= 65535, resize.height <= 65535 else {
            throw UsageError(
                message:
                    "The value '\(text.terminalSafe)' is invalid for '--resize': expected WIDTHxHEIGHT, two whole numbers from 1 to 65535 (e.g. 1920x1080)."
            )
        }
        // An explicit --background colours pad's bars; by default they are transparent where
        // the output has alpha.
        if fit == .pad, let color = try arguments.value(background) { resize.padding = color }
        return resize
    }

    /// How a resize is named in the batch journal's identity (a changed box is another run).
    static func resizeIdentity(_ resize: PhotoResize?) -> String {
        guard let resize else { return "-" }
        return "\(resize.width)x\(resize.height) \(resize.fit.rawValue) \(resize.padding.map { "\($0)" } ?? "-")"
    }

    /// What the photo commands' discussions say about resizing.
    static let resizeDiscussion = """
        --max-size N shrinks so the long edge is at most N pixels. --resize WxH sizes the upright \
        picture (orientation applied first) to a W by H box; --fit says how: 'fit' (default) \
        gives the largest size inside the box with the aspect ratio kept, never enlarged; 'fill' \
        gives exactly WxH, scaled up or down to cover the box and cut evenly on both sides; \
        'crop' cuts the centre of the picture to the box's shape and shrinks it to WxH, never \
        enlarging (a smaller picture is only cut, so the output is then smaller than the box); \
        'pad' fits the picture inside (never enlarged) and centres it on exactly WxH, the bars \
        transparent where the format has alpha (PNG, WebP, HEIC, AVIF, JPEG XL) and --background \
        otherwise or when given. Shrinking uses a Lanczos filter; JPEGs shrunk by half or more \
        are decoded at a reduced size directly.
        """

    /// `--quality` (no short form: `-q` is `--quiet`, as in most tools).
    package static let quality = Option.integer(
        "quality", in: 1...100,
        help:
            "Encoder quality, 1 to 100: libjpeg's scale for JPEG, libwebp's for WebP, x265's and aom's through libheif "
            + "for HEIC and AVIF (which run higher: HEIC 55 is about an iPhone's own size); for JPEG XL, cjxl's mapping to "
            + "a Butteraugli distance (90 = distance 1.0, 0.09 per step). Not for PNG.",
        default: "85; 55 for HEIC; 90 for JPEG XL")
    /// `--max-size`.
    static let maxSize = Option.integer(
        "max-size", value: "px", in: 16...65535,
        help: "Shrink so the long edge is at most this many pixels (never enlarged).")
    /// `--resize`.
    static let resizeBox = Option.text(
        "resize", value: "WxH", help: "Resize the upright picture to a W by H box, as --fit says. Not with --max-size.")
    /// `--fit`.
    package static let fit = Option<PhotoResize.Fit>.choice(
        "fit",
        help: "How --resize meets the box: fit = inside it, aspect kept, never enlarged; fill = exactly WxH, "
            + "scaled to cover, centre cut (may enlarge); crop = centre cut to the box's shape, shrunk to WxH, "
            + "never enlarged; pad = fitted inside, never enlarged, centred on exactly WxH with bars in "
            + "--background (transparent where the format has alpha unless --background is given).",
        default: .fit)
    /// `--keep-location`.
    package static let keepLocation = Flag(
        "keep-location", help: "Keep GPS and other location metadata (removed by default).")
    /// `--keep-metadata`.
    package static let keepMetadata = Flag(
        "keep-metadata", help: "Keep all metadata: location, serial numbers, owner, thumbnails.")
    /// `--strip-metadata`.
    static let stripMetadata = Flag("strip-metadata", help: "Remove all EXIF and XMP metadata.")
    /// `--color`.
    package static let color = Option<ColorPolicy>.choice(
        "color", help: "Keep the colour profile, or convert the pixels to sRGB.", default: .keep)
    /// `--hdr`.
    package static let hdr = Option<HDRPolicy>.choice(
        "hdr",
        help:
            "Keep HDR where the output can carry it (JPEG: Ultra HDR; HEIC, AVIF: the gain map; JPEG XL: the HDR picture "
            + "as 16-bit PQ, or a PQ/HLG photo's own values), or write SDR only.", default: .keep)
    /// `--background`.
    package static let background = Option<RGBColor>(
        spec: .option(
            "background", value: "colour", help: "Colour transparency is flattened onto (white, black, #RRGGBB).",
            default: "white")
    ) { text throws(UsageError) in
        guard let color = RGBColor(parsing: text) else {
            throw UsageError(
                message:
                    "The value '\(text.terminalSafe)' is invalid for '--background': expected white, black or #RRGGBB.")
        }
        return color
    }
    /// `--strict`.
    package static let strict = Flag(
        "strict",
        help:
            "Refuse a damaged photo instead of converting what decodes (a photo cut short is converted with a note by default)."
    )
    /// `--all-images`.
    package static let allImages = Flag(
        "all-images",
        help: "Write every image of a multi-image HEIC, a stereo MPO or a multi-page TIFF (name-1, name-2, ...).")

    /// `--frame`.
    package static let frame = Option.integer(
        "frame", value: "N", in: 1...1_000_000,
        help: "For an animated GIF or WebP: write frame N (from 1) as the still. By default a still output keeps "
            + "the first frame, and a WebP output keeps the whole animation.")

    /// The options every photo conversion command accepts (the batch options are added by
    /// ``options(_:)``).
    static let commonOptions: [OptionSpec] = [
        quality.spec, maxSize.spec, resizeBox.spec, fit.spec, keepLocation.spec, keepMetadata.spec, stripMetadata.spec,
        color.spec, hdr.spec, background.spec, allImages.spec, strict.spec, frame.spec,
    ]

    /// A photo command's own options followed by the batch options.
    package static func options(_ own: [OptionSpec]) -> [OptionSpec] { own + BatchOptions.specs }

    /// Peak memory of converting `input` with `request`, from its header
    /// (``PhotoMemoryEstimate``). A file whose header cannot be read costs nothing: it fails at once.
    package static func cost(of input: String, request: PhotoRequest) -> Int64 {
        estimate(of: input, request: request).cost
    }

    /// ``cost(of:request:)`` and the input as it was read for it (detached from its file), which
    /// the conversion takes over instead of reading the file again.
    package static func estimate(of input: String, request: PhotoRequest) -> (cost: Int64, photo: PhotoInput?) {
        let estimate = PhotoMemoryEstimate.estimate(path: input, request: request)
        return (estimate.cost, estimate.photo)
    }

    /// Runs `template` over the command's inputs through ``BatchRunner``.
    /// `outputSuffix` goes before the extension (`photo (small).jpg`); with `shrinking`, an
    /// output larger than its source says so in its notes (a command whose point is a smaller
    /// file must not quietly make a bigger one).
    package static func run(
        command: String, template: PhotoRequest, arguments: ParsedArguments, console: Console,
        outputSuffix: String = "",
        shrinking: Bool = false, alreadyIn: InputTriage.AlreadyInFormat? = nil
    ) async throws(UsageError) -> Int32 {
        try await run(
            command: command, template: template, options: BatchOptions.parse(arguments), console: console,
            outputSuffix: outputSuffix,
            shrinking: shrinking, alreadyIn: alreadyIn)
    }

    /// ``run(command:template:arguments:console:outputSuffix:shrinking:alreadyIn:)`` with the batch
    /// options parsed already (a command that reads them itself parses them once).
    package static func run(
        command: String, template: PhotoRequest, options: BatchOptions, console: Console, outputSuffix: String = "",
        shrinking: Bool = false, alreadyIn: InputTriage.AlreadyInFormat? = nil
    ) async throws(UsageError) -> Int32 {
        try Catalogue.requireInputs(options.inputs, kind: .photo, target: template.format.fileExtension)
        var work = batchWork(
            command: command, template: template, options: options, outputSuffix: outputSuffix, shrinking: shrinking)
        work.alreadyIn = alreadyIn
        return await BatchRunner.run(work, options: options, console: console)
    }

    /// The ``BatchWork`` of a photo command: each input probed once for its cost, and that probe
    /// handed to its conversion.
    package static func batchWork(
        command: String, template: PhotoRequest, options: BatchOptions, outputSuffix: String = "",
        shrinking: Bool = false
    ) -> BatchWork {
        var conversion = PhotoConversion(jobs: options.jobs, total: options.inputs.count) { item in
            var request = template
            request.inputPath = item.input
            request.outputPath = item.destination
            request.overwrite = item.overwrite
            request.outputMayBeRenumbered = item.mayRenumber
            request.probed = item.photo
            request.placementGate = item.placementGate
            return request
        }
        if shrinking { conversion.report = { result, item in noteIfLarger(result, than: item.inputBytes) } }
        var work = BatchWork(
            command: command,
            identity: [
                "format=\(template.format.rawValue)", "quality=\(template.quality)", "lossless=\(template.lossless)",
                "metadata=\(template.metadata.rawValue)", "color=\(template.color.rawValue)",
                "background=\(template.background)",
                "all=\(template.allImages)", "max=\(template.maxLongEdge ?? 0)",
                "target=\(template.targetByteCount ?? 0)", "resize=\(resizeIdentity(template.resize))",
                "depth=\(template.bitDepth.map { "\($0.rawValue)" } ?? "-")", "hdr=\(template.hdr.rawValue)",
                "strict=\(template.strict)",
                "frame=\(template.frame ?? 0)",
            ],
            outputExtension: { _ in template.format.fileExtension }, outputSuffix: outputSuffix,
            cost: { input in (try? await runBlocking(on: .short) { _ in cost(of: input, request: template) }) ?? 0 },
            estimatedOutputBytes: { _, bytes in template.targetByteCount ?? bytes }, conversion: .photos(conversion))
        work.accepts = .photos
        // The header read opens the file through libheif or a codec: off the cooperative pool.
        work.probe = { input in
            (try? await runBlocking(on: .short) { _ in estimate(of: input, request: template) }) ?? (0, nil)
        }
        work.check = { input in photoProblem(input, maxPixels: template.maxPixels) }
        return work
    }

    /// `result` with a note when its outputs are larger than the source's `inputBytes`.
    static func noteIfLarger(_ result: JobResult, than inputBytes: Int64) -> JobResult {
        let written = result.outputs.reduce(Int64(0)) { $0 + $1.byteCount }
        guard inputBytes > 0, written > inputBytes else { return result }
        var noted = result
        // The CLI's own note, so its options may be named.
        noted.notes.append(
            "larger than the original (\(UnitText.bytes(inputBytes)) → \(UnitText.bytes(written))): it was already "
                + "compressed more; use a lower --quality or --target-size")
        return noted
    }

    /// Why `input` would not convert as a photo, from its header (what `--dry-run` checks), or nil.
    static func photoProblem(_ input: String, maxPixels: Int) -> ConvertError? {
        if let problem = BatchPlan.fileProblem(input) { return problem }
        do {
            let info = try ImageProbe.probeBlocking(path: input)
            guard info.width * info.height <= maxPixels else {
                return ConvertError(
                    code: .inputTooManyPixels,
                    message: "\(input) has \(info.width)×\(info.height) pixels, more than --max-pixels \(maxPixels).",
                    path: input)
            }
            return nil
        } catch {
            return error
        }
    }
}
