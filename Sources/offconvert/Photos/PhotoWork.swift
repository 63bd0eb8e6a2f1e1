import ConvertCore
import Foundation

/// What the photo commands share: their options, the request they build, the memory an item
/// costs, and the ``BatchWork`` that runs it through ``BatchRunner``.
enum PhotoWork {
    /// Reads the options every photo command shares into a request template (its input and
    /// destination are filled in per item).
    static func request(from arguments: ParsedArguments, format: PhotoFormat) throws(UsageError) -> PhotoRequest {
        if arguments.flag("keep-metadata") && arguments.flag("strip-metadata") {
            throw UsageError(message: "'--keep-metadata' and '--strip-metadata' cannot be used together.")
        }
        var request = PhotoRequest(inputPath: "", format: format)
        request.quality = try arguments.integer("quality", in: 1...100, default: 85)
        if arguments.flag("strip-metadata") {
            request.metadata = .strip
        } else if arguments.flag("keep-metadata") {
            request.metadata = .keep
        } else if arguments.flag("keep-location") {
            request.metadata = .keepLocation
        }
        request.color = try arguments.choice("color", ["keep", "srgb"], default: "keep") == "srgb" ? .sRGB : .keep
        if let text = arguments.value("background") {
            guard let colour = RGBColor(parsing: text) else {
                throw UsageError(message: "The value '\(text)' is invalid for '--background': expected white, black or #RRGGBB.")
            }
            request.background = colour
        }
        request.allImages = arguments.flag("all-images")
        request.maxPixels = try BatchOptions.maxPixels(arguments)
        if arguments.value("max-size") != nil {
            request.maxLongEdge = try arguments.integer("max-size", in: 16...65535, default: 0)
        }
        return request
    }

    /// The options every photo conversion command accepts (the batch options are added by
    /// ``options(_:)``).
    static let commonOptions: [OptionSpec] = [
        .option("quality", short: "q", value: "n", help: "Encoder quality, 1 to 100.", default: "85"),
        .option("max-size", value: "px", help: "Shrink so the long edge is at most this many pixels."),
        .flag("keep-location", help: "Keep GPS and other location metadata (removed by default)."),
        .flag("keep-metadata", help: "Keep all metadata: location, serial numbers, owner, thumbnails."),
        .flag("strip-metadata", help: "Remove all EXIF and XMP metadata."),
        .option("color", value: "keep|srgb", help: "Keep the colour profile, or convert the pixels to sRGB.", default: "keep"),
        .option("background", value: "colour", help: "Colour transparency is flattened onto (white, black, #RRGGBB).", default: "white"),
        .flag("all-images", help: "Write every image of a multi-image HEIC (name-1, name-2, ...)."),
    ]

    /// A photo command's own options followed by the batch options.
    static func options(_ own: [OptionSpec]) -> [OptionSpec] { own + BatchOptions.specs }

    /// Peak memory of converting `input` with `request`, from its header: the decoded bitmap
    /// (4 bytes a pixel, 8 above 8 bits) times the bitmaps alive at once: the decoded one and
    /// its prepared copy (colour conversion, flattening, resizing), one more for the target-size
    /// search (the smaller decode while the encoded candidate is held), and every image with
    /// `--all-images`. A file whose header cannot be read costs nothing: it fails at once.
    static func cost(of input: String, request: PhotoRequest) -> Int64 {
        guard let info = try? ImageProbe.probe(path: input) else { return 0 }
        let bytesPerPixel = info.bitDepth > 8 ? 8 : 4
        var bitmaps = request.targetByteCount == nil ? 2 : 3
        if request.allImages { bitmaps *= max(1, info.imageCount) }
        return BatchScheduler.bitmapBytes(width: info.width, height: info.height, bytesPerPixel: bytesPerPixel, count: bitmaps)
    }

    /// Runs `template` over the command's inputs through ``BatchRunner``.
    static func run(
        command: String, template: PhotoRequest, arguments: ParsedArguments, console: Console
    ) async throws(UsageError) -> Int32 {
        let options = try BatchOptions.parse(arguments)
        try Catalogue.requireInputs(options.inputs, kind: .photo, target: template.format.fileExtension)
        let work = BatchWork(
            command: command,
            identity: [
                "format=\(template.format.rawValue)", "quality=\(template.quality)", "lossless=\(template.lossless)",
                "metadata=\(template.metadata.rawValue)", "color=\(template.color.rawValue)", "background=\(template.background)",
                "all=\(template.allImages)", "max=\(template.maxLongEdge ?? 0)", "target=\(template.targetByteCount ?? 0)",
            ],
            outputExtension: { _ in template.format.fileExtension },
            cost: { input in cost(of: input, request: template) },
            estimatedOutputBytes: { _, bytes in template.targetByteCount ?? bytes },
            convert: { item, progress throws(ConvertError) in
                var request = template
                request.inputPath = item.input
                request.outputPath = item.destination
                request.overwrite = item.overwrite
                // One photo uses every core for decoding; a batch balances jobs against tile
                // threads, and its last photos, with cores left idle, get them back.
                request.decodingThreads = DecodingThreads.perPhoto(jobs: options.jobs, items: options.inputs.count - item.index)
                return try await PhotoConverter.convert(request).result(onProgress: progress)
            })
        return await BatchRunner.run(work, options: options, console: console)
    }
}
