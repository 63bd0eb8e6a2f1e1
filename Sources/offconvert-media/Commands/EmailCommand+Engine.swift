import ConvertCore
import ConvertMedia
import Foundation
import OffconvertCLI

extension EmailCommand {
    static func runWithEngine(_ arguments: ParsedArguments, console: Console) async throws -> Int32 {
        await CompressBatch.run(
            command: spec.name, targetBytes: VideoCompressRequest.emailTargetBytes, unit: .megabyte,
            keepLocation: arguments.has(VideoOptions.keepLocation), cut: try VideoWork.cut(arguments),
            rawFrameRate: try arguments.value(VideoOptions.rawFrameRate), options: try BatchOptions.parse(arguments), console: console)
    }
}
