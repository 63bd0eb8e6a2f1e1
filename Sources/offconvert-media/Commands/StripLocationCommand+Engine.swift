import ConvertCore
import ConvertMedia
import Foundation
import OffconvertCLI

extension StripLocationCommand {
    static func runWithEngine(_ arguments: ParsedArguments, console: Console) async throws -> Int32 {
        let options = try BatchOptions.parse(arguments)
        let inPlace = arguments.has(Self.inPlace)
        if inPlace && options.outputDirectory != nil {
            throw UsageError(message: "'--in-place' and '--output-dir' cannot be used together.")
        }
        guard !options.inputs.isEmpty else { throw UsageError(message: "Missing expected argument 'FILES'.") }
        let cost: @Sendable (String) -> Int64 = { input in
            // Photos are read whole; movies only their movie box.
            var info = stat()
            return stat(input, &info) == 0 ? min(Int64(info.st_size), 256 << 20) + (8 << 20) : 8 << 20
        }
        if inPlace && options.dryRun {
            // The batch front end plans fresh names; in place, each file is its own output.
            let printer = BatchPrinter(console: console, options: options, board: nil)
            for (index, input) in options.inputs.enumerated() {
                printer.planned(index: index, input: input, output: input, memory: cost(input))
            }
            return ExitCode.success
        }
        var work = BatchWork(
            command: "strip-location", identity: [inPlace ? "in-place" : "copy"],
            outputExtension: { PathText.fileExtension($0).isEmpty ? "bin" : PathText.fileExtension($0) },
            outputSuffix: inPlace ? "" : outputSuffix,
            cost: cost,
            convert: { item, progress throws(ConvertError) in
                var request = StripLocationRequest(
                    input: item.input, destination: inPlace ? item.input : item.destination, overwrite: item.overwrite)
                request.placementGate = item.placementGate
                return try await LocationStripper.strip(request).result(onProgress: progress)
            })
        work.accepts = .media
        work.unchangedSummary = .summaryNoLocation
        return await BatchRunner.run(work, options: options, console: console)
    }
}
