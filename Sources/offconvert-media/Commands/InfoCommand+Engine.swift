import ConvertCore
import ConvertMedia
import Foundation
import OffconvertCLI

extension InfoCommand {
    static func runWithEngine(_ arguments: ParsedArguments, console: Console) async throws -> Int32 {
        let json = arguments.has(Self.json)
        var failed = false
        var printed = 0
        for path in arguments.positionals {
            var info: MediaInfo
            do throws(ConvertError) {
                info = try await MediaProbe.probe(path: path)
                info.livePhoto = LivePhotos.info(for: path)
            } catch {
                if error.category == .cancelled { return ExitCode.interrupted }
                failed = true
                var message = error.message
                if !message.contains(path) { message = "\(path): \(message)" }
                console.err("Error: \(message.terminalSafe)")
                continue
            }
            if json {
                console.out(try jsonLine(info))
            } else {
                // A blank line between blocks; none before the first or after the last.
                console.out((printed > 0 ? "\n" : "") + InfoFormatter.block(info))
            }
            printed += 1
        }
        return failed ? ExitCode.failure : ExitCode.success
    }

    static func jsonLine(_ info: MediaInfo) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(info), as: UTF8.self)
    }
}
