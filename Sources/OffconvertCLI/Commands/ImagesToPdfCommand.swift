import ConvertCore
import FoundationEssentials

/// `offconvert images-to-pdf FILES... -o album.pdf`: photos into one PDF, one per page.
package enum ImagesToPdfCommand: Command {
    /// Its own options (a subset of the batch options follows them: one output needs no
    /// naming, sharding or parallelism).
    static let ownOptions: [OptionSpec] = [output.spec, page.spec, margin.spec, quality.spec, maxSize.spec]

    /// `-o`.
    package static let output = Option.text("output", short: "o", value: "file", help: "The PDF to write (required).")
    /// `--page`.
    package static let page = Option<PDFPageSize>.choice("page", help: "Page size.", default: .fit)
    /// `--margin`, in points.
    package static let margin = Option<Double>(
        spec: .option(
            "margin", value: "size",
            help: "Margin around each image: 10mm, 0.5in or 36 (points). Default: none for fit, 10mm otherwise.")
    ) { text throws(UsageError) in
        guard let points = parseMargin(text) else {
            throw UsageError(
                message: "The value '\(text.terminalSafe)' is invalid for '--margin': expected e.g. 10mm, 0.5in or 36.")
        }
        return points
    }
    /// `--quality`.
    package static let quality = Option.integer(
        "quality", in: 1...100, help: "JPEG quality for images that must be re-encoded.", default: "90")
    /// `--max-size`.
    static let maxSize = Option.integer(
        "max-size", value: "px", in: 16...65535,
        help: "Shrink images so the long edge is at most this many pixels (never enlarged); those are re-encoded.")

    /// The batch options that apply to one output from many inputs.
    static let batchOptions: [OptionSpec] =
        [
            BatchOptions.recursive.spec,
            // The PDF's name is the user's choice: it is replaced or refused, never numbered.
            BatchOptions.overwriteFlag.spec.helping("Replace the PDF if it exists (never one of the images)."),
            BatchOptions.memoryBudgetOption.spec, BatchOptions.fromFile.spec, BatchOptions.dryRunFlag.spec,
            BatchOptions.noResume.spec, BatchOptions.jsonFlag.spec,
        ] + BatchOptions.outputStyleSpecs

    package static let spec = CommandSpec(
        name: "images-to-pdf",
        abstract: "Put photos into one PDF, one per page, in the order given.",
        discussion: """
            JPEGs that need no rotation are embedded as they are, without re-encoding; other \
            images are encoded to JPEG once. Orientation is applied, colour profiles are kept, \
            and no metadata (so no location) goes into the PDF. The album counts as one conversion.
            """,
        arguments: [BatchOptions.files("Images, in page order.")],
        options: ownOptions + batchOptions,
        examples: [
            "images-to-pdf scan1.jpg scan2.heic -o album.pdf --page a4",
            "images-to-pdf *.HEIC -o trip.pdf --page a4 --max-size 2000",
        ])

    package static func run(_ arguments: ParsedArguments, console: Console) async throws -> Int32 {
        guard let output = try arguments.value(Self.output) else {
            throw UsageError(message: "Missing '-o <file>': where to write the PDF.")
        }
        let page = try arguments.value(Self.page, default: .fit)
        let pageName = page.rawValue
        let margin = try arguments.value(Self.margin)
        if let margin, margin > PDFAlbum.maximumMargin(for: page) {
            throw UsageError(
                message:
                    "A margin of '\((arguments.text(Self.margin) ?? "").terminalSafe)' leaves no room for the images on a \(pageName) page."
            )
        }
        let quality = try arguments.value(Self.quality, default: 90)
        let maxLongEdge = try arguments.value(maxSize)
        let options = try BatchOptions.parse(arguments)
        try Catalogue.requireInputs(options.inputs, kind: .photo, target: "pdf")
        var work = BatchWork(
            command: spec.name,
            identity: [
                "page=\(pageName)", "margin=\(margin ?? -1)", "quality=\(quality)", "max-size=\(maxLongEdge ?? 0)",
            ],
            outputExtension: { _ in "pdf" },
            // Pages are made one at a time: the largest image decoded, plus its JPEG encode.
            cost: { _ in
                options.inputs.map { PhotoWork.cost(of: $0, request: PhotoRequest(inputPath: $0, format: .jpeg)) }.max()
                    ?? 0
            },
            singleOutput: output,
            convert: { item, progress throws(ConvertError) in
                var request = PDFRequest(
                    inputPaths: item.sources, outputPath: item.destination, page: page, margin: margin,
                    overwrite: item.overwrite,
                    quality: quality, maxLongEdge: maxLongEdge)
                request.placementGate = item.placementGate
                return try await PDFAlbum.make(request).result(onProgress: progress)
            })
        work.accepts = .photos
        work.check = { input in PhotoWork.photoProblem(input, maxPixels: PixelLimit.defaultMaxPixels) }
        return await BatchRunner.run(work, options: options, console: console)
    }

    /// Points from `10mm`, `1cm`, `0.5in`, `36pt` or a bare number of points.
    static func parseMargin(_ text: String) -> Double? {
        let units: [(String, Double)] = [("mm", 72 / 25.4), ("cm", 72 / 2.54), ("in", 72), ("pt", 1)]
        let lowered = text.lowercased()
        for (suffix, factor) in units where lowered.hasSuffix(suffix) {
            return Double(lowered.dropLast(suffix.count)).flatMap { $0 >= 0 ? $0 * factor : nil }
        }
        return Double(lowered).flatMap { $0 >= 0 ? $0 : nil }
    }
}
