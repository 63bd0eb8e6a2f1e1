import ConvertCore
import Foundation

/// Runs one job per input file and reports results in input order: shared by the photo commands.
enum PhotoBatch {
    /// The outcome of one file, as printed and as one `--json` line.
    struct Report: Encodable, Sendable {
        /// Why a file failed.
        struct Failure: Encodable, Sendable {
            var category: String
            var key: String
            var message: String
        }

        var input: String
        var output: String?
        var outputs: [String]
        var bytes: Int64
        var status: String
        var notes: [String]
        var error: Failure?
    }

    /// Runs `job` for every input, at most `limit` at once, and hands each report to `emit` in
    /// input order as soon as it and every earlier one are done. This is the one place that
    /// decides concurrency, so a smarter scheduler can replace it without touching the commands.
    static func run(
        _ inputs: [String], limit: Int, job: @escaping @Sendable (String) async -> Report, emit: (Report) -> Void
    ) async -> [Report] {
        var reports = [Report?](repeating: nil, count: inputs.count)
        var nextToEmit = 0
        await withTaskGroup(of: (Int, Report).self) { group in
            var started = 0
            func startNext() {
                let index = started
                let input = inputs[index]
                group.addTask { (index, await job(input)) }
                started += 1
            }
            while started < min(limit, inputs.count) { startNext() }
            for await (index, report) in group {
                reports[index] = report
                while nextToEmit < reports.count, let ready = reports[nextToEmit] {
                    emit(ready)
                    nextToEmit += 1
                }
                if started < inputs.count { startNext() }
            }
        }
        return reports.compactMap { $0 }
    }

    /// How many files to convert at once, and how many decoding threads each gets, so that the
    /// cores are busy without oversubscription: one file uses every core, a batch one file per core.
    static func plan(fileCount: Int) -> (jobs: Int, threadsPerJob: Int) {
        let cores = max(1, ProcessInfo.processInfo.activeProcessorCount)
        let jobs = max(1, min(cores, fileCount))
        return (jobs, max(1, cores / jobs))
    }

    /// Runs a conversion job and turns its result or error into a report.
    static func report(input: String, _ job: ConversionJob) async -> Report {
        do {
            let result = try await job.result()
            return Report(
                input: input, output: result.outputs.first?.path, outputs: result.outputs.map(\.path),
                bytes: result.outputs.reduce(0) { $0 + $1.byteCount }, status: "ok", notes: result.notes, error: nil)
        } catch {
            return Report(
                input: input, output: nil, outputs: [], bytes: 0, status: error.category == .cancelled ? "cancelled" : "failed",
                notes: [],
                error: Report.Failure(category: error.category.identifier, key: error.key, message: error.message))
        }
    }

    /// Prints one report: a JSON line on stdout, or `input → output (size, notes)` / an error on stderr.
    static func print(_ report: Report, json: Bool, console: Console) {
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            if let data = try? encoder.encode(report) { console.out(String(decoding: data, as: UTF8.self)) }
            return
        }
        if let error = report.error {
            console.err("\(console.red("Error:")) \(error.message.terminalSafe)")
            return
        }
        let size = ByteCountFormatter.string(fromByteCount: report.bytes, countStyle: .file)
        let notes = report.notes.isEmpty ? "" : ", " + report.notes.joined(separator: ", ")
        for output in report.outputs {
            console.out("\(report.input.terminalSafe) → \(output.terminalSafe) (\(size)\(notes.terminalSafe))")
        }
    }

    /// Reads the options every photo command shares into a request template.
    static func request(from arguments: ParsedArguments, format: PhotoFormat) throws(UsageError) -> PhotoRequest {
        if arguments.flag("keep-metadata") && arguments.flag("strip-metadata") {
            throw UsageError(message: "'--keep-metadata' and '--strip-metadata' cannot be used together.")
        }
        var request = PhotoRequest(inputPath: "", format: format)
        request.quality = try arguments.integer("quality", in: 1...100, default: 85)
        request.outputDirectory = arguments.value("output-dir")
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
        request.overwrite = arguments.flag("overwrite")
        request.maxPixels = try BatchOptions.maxPixels(arguments)
        if arguments.value("max-size") != nil {
            request.maxLongEdge = try arguments.integer("max-size", in: 16...65535, default: 0)
        }
        return request
    }

    /// The options every photo conversion command accepts.
    static let commonOptions: [OptionSpec] = [
        .option("quality", short: "q", value: "n", help: "Encoder quality, 1 to 100.", default: "85"),
        .option("output-dir", short: "o", value: "dir", help: "Folder for the outputs (default: next to each input)."),
        .option("max-size", value: "px", help: "Shrink so the long edge is at most this many pixels."),
        .flag("keep-location", help: "Keep GPS and other location metadata (removed by default)."),
        .flag("keep-metadata", help: "Keep all metadata: location, serial numbers, owner, thumbnails."),
        .flag("strip-metadata", help: "Remove all EXIF and XMP metadata."),
        .option("color", value: "keep|srgb", help: "Keep the colour profile, or convert the pixels to sRGB.", default: "keep"),
        .option("background", value: "colour", help: "Colour transparency is flattened onto (white, black, #RRGGBB).", default: "white"),
        .flag("all-images", help: "Write every image of a multi-image HEIC (name-1, name-2, ...)."),
        .flag("overwrite", help: "Replace existing outputs instead of choosing a free name."),
        .flag("json", help: "Print one JSON object per file on stdout."),
        BatchOptions.maxPixelsSpec,
    ]

    /// Converts `inputs` with `template` (its input path replaced per file); returns the exit code.
    static func convert(_ inputs: [String], template: PhotoRequest, json: Bool, console: Console) async -> Int32 {
        if let directory = template.outputDirectory {
            do {
                try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            } catch {
                console.err("Error: Cannot create the output folder \(directory.terminalSafe).")
                return ExitCode.failure
            }
        }
        let plan = plan(fileCount: inputs.count)
        let reports = await run(inputs, limit: plan.jobs, job: { input in
            var request = template
            request.inputPath = input
            request.decodingThreads = plan.threadsPerJob
            return await report(input: input, PhotoConverter.convert(request))
        }, emit: { print($0, json: json, console: console) })
        let failed = reports.filter { $0.status != "ok" }.count
        if !json && inputs.count > 1 {
            let summary = "\(inputs.count - failed) of \(inputs.count) converted" + (failed > 0 ? ", \(failed) failed" : "")
            console.err(failed > 0 ? console.red(summary) : summary)
        }
        return failed > 0 ? ExitCode.failure : ExitCode.success
    }
}
