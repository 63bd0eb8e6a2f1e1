import ConvertCore
import ConvertMedia
import Foundation
import OffconvertCLI

extension CompressCommand {
    static func runWithEngine(_ arguments: ParsedArguments, console: Console) async throws -> Int32 {
        let (target, unit) = try targetSize(arguments)
        let template = try Self.template(arguments, targetBytes: target, unit: unit)
        return await CompressBatch.run(
            command: spec.name, template: template, options: try BatchOptions.parse(arguments), console: console)
    }

    /// The request every input of a size command starts from: `targetBytes` in `unit`, and the
    /// options both size commands take (`--keep-location`, `--start`, `--duration`, `--fps`,
    /// `--max-height`, `--slow-motion`).
    static func template(_ arguments: ParsedArguments, targetBytes: Int64, unit: SizeUnit) throws(UsageError)
        -> VideoCompressRequest
    {
        var request = VideoCompressRequest(
            input: "", targetBytes: targetBytes, keepLocation: arguments.has(VideoOptions.keepLocation),
            unit: unit)
        (request.start, request.duration) = try VideoWork.cut(arguments)
        request.rawFrameRate = try arguments.value(VideoOptions.rawFrameRate)
        request.maxHeight = try arguments.value(VideoOptions.maxHeight)
        request.slowMotion = try arguments.value(VideoOptions.slowMotion) ?? .flatten
        return request
    }

    /// `--target` in bytes and the unit it was written in. A bare number is refused: "25" read
    /// as 25 bytes (or as 25 MB) would surprise someone either way.
    static func targetSize(_ arguments: ParsedArguments) throws(UsageError) -> (Int64, SizeUnit) {
        guard let text = arguments.text(Self.target) else {
            throw UsageError(message: "Missing '--target': say how large the outputs may be, e.g. --target 25MB.")
        }
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        let number = Double(trimmed.prefix { $0.isNumber || $0 == "." })
        if trimmed.hasPrefix("-") || number.map({ $0 <= 0 }) == true {
            throw UsageError(
                message: "The value '\(text)' is invalid for '--target': the largest an output may be "
                    + "must be more than 0, e.g. 25MB.")
        }
        if Double(trimmed) != nil {
            throw UsageError(
                message: "The value '\(text)' for '--target' has no unit: write e.g. \(trimmed)MB "
                    + "(megabytes, 10^6 bytes), \(trimmed)MiB (2^20 bytes) or \(trimmed)KB.")
        }
        guard let bytes = try arguments.value(Self.target), let unit = SizeUnit(ofSize: trimmed) else {
            throw UsageError(message: "The value '\(text)' is invalid for '--target': expected a size such as 25MB.")
        }
        return (bytes, unit)
    }
}
