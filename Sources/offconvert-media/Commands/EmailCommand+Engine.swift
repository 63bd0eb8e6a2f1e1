import ConvertCore
import ConvertMedia
import Foundation
import OffconvertCLI

extension EmailCommand {
    static func runWithEngine(_ arguments: ParsedArguments, console: Console) async throws -> Int32 {
        let template = try CompressCommand.template(
            arguments, targetBytes: VideoCompressRequest.emailTargetBytes, unit: .megabyte)
        return await CompressBatch.run(
            command: spec.name, template: template, options: try BatchOptions.parse(arguments), console: console)
    }
}
