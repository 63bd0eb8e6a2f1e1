import ConvertCore
import Foundation

/// `offconvert images-to-pdf FILES... -o album.pdf`: photos into one PDF, one per page.
enum ImagesToPdfCommand: Command {
    static let spec = CommandSpec(
        name: "images-to-pdf",
        abstract: "Put photos into one PDF, one per page, in the order given.",
        discussion: """
            JPEGs that need no rotation are embedded as they are, without re-encoding; other \
            images are encoded to JPEG once. Orientation is applied, colour profiles are kept, \
            and no metadata (so no location) goes into the PDF.
            """,
        arguments: [ArgumentSpec(name: "FILES", help: "Images, in page order.", repeating: true)],
        options: [
            .option("output", short: "o", value: "file", help: "The PDF to write (required)."),
            .option("page", value: "fit|a4|letter", help: "Page size.", default: "fit"),
            .option("margin", value: "size", help: "Margin around each image: 10mm, 0.5in or 36 (points). Default: none for fit, 10mm otherwise."),
            .option("quality", short: "q", value: "n", help: "JPEG quality for images that must be re-encoded.", default: "90"),
            .flag("overwrite", help: "Replace the PDF if it exists."),
            .flag("json", help: "Print the result as one JSON object on stdout."),
        ],
        examples: ["images-to-pdf scan1.jpg scan2.heic -o album.pdf --page a4"])

    static func run(_ arguments: ParsedArguments, console: Console) async throws -> Int32 {
        guard let output = arguments.value("output") else { throw UsageError(message: "Missing '-o <file>': where to write the PDF.") }
        let page = PDFPageSize(rawValue: try arguments.choice("page", ["fit", "a4", "letter"], default: "fit")) ?? .fit
        var margin: Double?
        if let text = arguments.value("margin") {
            guard let points = parseMargin(text) else {
                throw UsageError(message: "The value '\(text)' is invalid for '--margin': expected e.g. 10mm, 0.5in or 36.")
            }
            margin = points
        }
        let request = PDFRequest(
            inputPaths: arguments.positionals, outputPath: output, page: page, margin: margin,
            overwrite: arguments.flag("overwrite"), quality: try arguments.integer("quality", in: 1...100, default: 90))
        let report = await PhotoBatch.report(input: arguments.positionals.first ?? output, PDFAlbum.make(request))
        PhotoBatch.print(report, json: arguments.flag("json"), console: console)
        return report.status == "ok" ? ExitCode.success : ExitCode.failure
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
