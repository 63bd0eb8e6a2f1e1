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
            let (width, height) = (video.width, video.height)
            return .encode(
                height: VideoSizePlanner.candidateHeights(
                    sourceWidth: width, sourceHeight: height, maxHeight: maxHeight)[0],
                slowPreset: true)
        }
    }

    /// Compresses every input as `template` says (its target, unit, cut, `--fps`, `--max-height`,
    /// slow motion, location choice); each item gets its input, output and the batch's pixel limit.
    static func run(command: String, template: VideoCompressRequest, options: BatchOptions, console: Console) async
        -> Int32
    {
        let cut = (template.start, template.duration)
        var work = BatchWork(
            command: command,
            identity: [
                "target=\(template.targetBytes)", template.keepLocation ? "keep-location" : "", "start=\(cut.0)",
                "duration=\(cut.1 ?? -1)", "fps=\(template.rawFrameRate ?? 0)", "max-height=\(template.maxHeight ?? 0)",
                "slow-motion=\(template.slowMotion.rawValue)",
            ],
            outputExtension: { _ in "mp4" }, cost: { input in await cost(of: input, maxHeight: template.maxHeight) },
            estimatedOutputBytes: { _, inputBytes in min(inputBytes, template.targetBytes) },
            convert: { item, progress throws(ConvertError) in
                var request = template
                request.input = item.input
                request.output = item.outputLocation
                request.maxPixels = options.maxPixels
                return try await VideoConverter.compress(request).result(onProgress: progress)
            })
        work.accepts = .videos
        work.check = { input in await VideoWork.mediaProblem(input) }
        work.preview = preview(template: template, options: options)
        return await BatchRunner.run(work, options: options, console: console)
    }

    /// What `--dry-run` prints under each input's planned line: what would be done to reach the
    /// target, or why it cannot be (that input then counts as a failure, so a script can tell
    /// before spending the time).
    static func preview(template: VideoCompressRequest, options: BatchOptions)
        -> @Sendable (Int, String) async throws(ConvertError) -> BatchPreview
    {
        { index, input throws(ConvertError) in
            var request = template
            request.input = input
            request.maxPixels = options.maxPixels
            let preview = try await VideoConverter.previewCompression(request)
            let plan = CompressPlanLine(
                index: index, input: input, targetBytes: template.targetBytes, preview: preview,
                cutStart: template.start > 0 || template.duration != nil ? template.start : nil,
                maxHeight: template.maxHeight)
            let line = options.json ? plan.jsonLine() : "  plan: " + plan.text(unit: template.unit).terminalSafe
            guard !preview.isReachable else { return BatchPreview(line: line) }
            let failure = ConvertError(
                code: .requestTargetUnreachable, message: "\(input): \(plan.text(unit: template.unit))", path: input)
            return BatchPreview(line: line, failure: failure)
        }
    }
}
