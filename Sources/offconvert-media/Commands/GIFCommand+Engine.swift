import ConvertCore
import ConvertMedia
import Foundation
import OffconvertCLI

extension GIFCommand {
    static func runWithEngine(_ arguments: ParsedArguments, console: Console) async throws -> Int32 {
        let start = try arguments.value(Self.start) ?? 0
        let duration = try arguments.value(Self.duration)
        if let duration, duration <= 0 || duration > GIFRequest.maximumDuration {
            throw UsageError(message: "The value for '--duration' must be more than 0 and at most 30 seconds.")
        }
        let fps = try arguments.value(Self.fps, default: 12)
        let width = try arguments.value(Self.width, default: 480)
        let maxPixels = try BatchOptions.maxPixels(arguments)
        let slowMotion = try arguments.value(VideoOptions.slowMotion) ?? .flatten
        return try await VideoWork.run(
            command: spec.name,
            identity: [
                "start=\(start)", "duration=\(duration ?? -1)", "fps=\(fps)", "width=\(width)",
                "slow-motion=\(slowMotion.rawValue)",
            ],
            outputExtension: "gif", arguments: arguments, console: console,
            // The palette is built from every frame of the clip, so all of them are held at once.
            cost: { input in
                await VideoWork.gifCost(
                    of: input, seconds: duration ?? GIFRequest.maximumDuration, fps: fps, width: width)
            }
        ) { input, output in
            var request = GIFRequest(
                input: input, start: start, duration: duration, framesPerSecond: fps, width: width,
                output: output, maxPixels: maxPixels)
            request.slowMotion = slowMotion
            return VideoConverter.gif(request)
        }
    }
}
