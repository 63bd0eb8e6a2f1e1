import ConvertCore
import ConvertMedia
import Foundation
import OffconvertCLI

/// The batch both size commands run.
enum CompressBatch {
    /// Peak memory of compressing `input`: a re-encode at x264's `medium`, at most at the size that
    /// plays everywhere (a copy, when the source fits, takes less).
    static func cost(of input: String, maxHeight: Int?) async -> Int64 {
        await VideoWork.cost(of: input) { _, video in
            let (width, height) = video.displaySize
            return .encode(height: VideoSizePlanner.candidateHeights(sourceWidth: width, sourceHeight: height, maxHeight: maxHeight)[0],
                           slowPreset: true)
        }
    }

    /// Compresses every input as `template` says (its target, unit, cut, `--fps`, `--max-height`,
    /// location choice); each item gets its input, output and the batch's pixel limit.
    static func run(command: String, template: VideoCompressRequest, options: BatchOptions, console: Console) async -> Int32 {
        if options.dryRun { return await dryRun(template: template, options: options, console: console) }
        let cut = (template.start, template.duration)
        var work = BatchWork(
            command: command,
            identity: ["target=\(template.targetBytes)", template.keepLocation ? "keep-location" : "", "start=\(cut.0)",
                       "duration=\(cut.1 ?? -1)", "fps=\(template.rawFrameRate ?? 0)", "max-height=\(template.maxHeight ?? 0)"],
            outputExtension: { _ in "mp4" }, cost: { input in await cost(of: input, maxHeight: template.maxHeight) },
            estimatedOutputBytes: { _, inputBytes in min(inputBytes, template.targetBytes) },
            convert: { item, progress throws(ConvertError) in
                var request = template
                request.input = item.input
                request.output = OutputLocation(path: item.destination, overwrite: item.overwrite, mayRenumber: item.mayRenumber)
                request.maxPixels = options.maxPixels
                return try await VideoConverter.compress(request).result(onProgress: progress)
            })
        work.accepts = .videos
        work.check = { input in await VideoWork.mediaProblem(input) }
        return await BatchRunner.run(work, options: options, console: console)
    }

    /// `--dry-run`: each input's planned output (as every batch command prints it), then what
    /// would be done to reach the target, or why it cannot be. Exits 1 when some target cannot
    /// be reached or some input cannot be read, so a script can tell before spending the time.
    static func dryRun(template: VideoCompressRequest, options: BatchOptions, console: Console) async -> Int32 {
        let (targetBytes, unit) = (template.targetBytes, template.unit)
        let started = Date()
        let printer = BatchPrinter(console: console, options: options, board: nil)
        var options = options
        var tally = BatchTally()
        tally.isDryRun = true
        options.inputs = BatchRunner.setAside(options.inputs, accepts: .videos, printer: printer, tally: &tally)
        let namer: OutputNamer
        do {
            namer = try OutputNamer(outputDirectory: options.outputDirectory, overwrite: options.overwrite, inputs: options.inputs)
        } catch {
            printer.commandFailed(error)
            return ExitCode.failure
        }
        var allReachable = true
        for (index, input) in options.inputs.enumerated() {
            do throws(ConvertError) {
                printer.planned(index: index, input: input, output: try namer.destination(for: input, pathExtension: "mp4"),
                                memory: await cost(of: input, maxHeight: template.maxHeight))
                var request = template
                request.input = input
                request.maxPixels = options.maxPixels
                let preview = try await VideoConverter.previewCompression(request)
                allReachable = allReachable && preview.isReachable
                let plan = CompressPlanLine(index: index, input: input, targetBytes: targetBytes, preview: preview,
                                            cutStart: template.start > 0 || template.duration != nil ? template.start : nil,
                                            maxHeight: template.maxHeight)
                console.out(options.json ? plan.jsonLine() : "  plan: " + plan.text(unit: unit).terminalSafe)
                // A target it cannot reach would fail: counted so, not as "would be converted".
                if preview.isReachable {
                    tally.planned += 1
                } else {
                    tally.failures.append((input, ConvertError(code: .requestTargetUnreachable,
                                                               message: "\(input): \(plan.text(unit: unit))", path: input)))
                }
            } catch {
                allReachable = false
                tally.failures.append((input, error))
                printer.failed(BatchItem(index: index, input: input, destination: "", cost: 0, overwrite: false), error)
            }
        }
        printer.summary(tally, seconds: Date().timeIntervalSince(started))
        return allReachable ? ExitCode.success : ExitCode.failure
    }
}
