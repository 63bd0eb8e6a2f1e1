import ConvertCore
import ConvertMedia
import Foundation
import OffconvertCLI

extension SendToWindowsCommand {
    static func runWithEngine(_ arguments: ParsedArguments, console: Console) async throws -> Int32 {
        let keepLocation = arguments.has(VideoOptions.keepLocation)
        let maxPixels = try BatchOptions.maxPixels(arguments)
        let (start, duration) = try VideoWork.cut(arguments)
        let rawFrameRate = try arguments.value(VideoOptions.rawFrameRate)
        let preset = try arguments.value(Self.preset)
        let subtitles = try arguments.value(VideoOptions.subtitles) ?? .keep
        let slowMotion = try arguments.value(VideoOptions.slowMotion) ?? .flatten
        return try await VideoWork.run(
            command: spec.name,
            identity: [
                "keep-location=\(keepLocation)", "start=\(start)", "duration=\(duration ?? -1)",
                "fps=\(rawFrameRate ?? 0)",
                "preset=\(preset?.rawValue ?? "")", "subtitles=\(subtitles.rawValue)",
                "slow-motion=\(slowMotion.rawValue)",
            ],
            outputExtension: VideoContainer.mp4.rawValue, arguments: arguments, console: console,
            cost: { input in await VideoWork.windowsCost(of: input, preset: preset) }
        ) { input, output in
            var request = VideoRequest.sendToWindows(input, output: output)
            request.keepLocation = keepLocation
            request.maxPixels = maxPixels
            request.preset = preset
            (request.start, request.duration) = (start, duration)
            request.rawFrameRate = rawFrameRate
            request.subtitles = subtitles
            request.slowMotion = slowMotion
            return VideoConverter.convert(request)
        }
    }
}
