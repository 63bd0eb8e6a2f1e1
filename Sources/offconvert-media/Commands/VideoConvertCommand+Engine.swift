import ConvertCore
import ConvertMedia
import Foundation
import OffconvertCLI

extension VideoConvertCommand {
    static func runWithEngine(_ arguments: ParsedArguments, container: VideoContainer, console: Console) async throws
        -> Int32
    {
        let codec = try arguments.value(VideoOptions.codec(for: container))
        let codecName = codec?.rawValue
        let crf = try arguments.value(VideoOptions.crf)
        let maxHeight = try arguments.value(VideoOptions.maxHeight)
        let keepLocation = arguments.has(VideoOptions.keepLocation)
        let maxPixels = try BatchOptions.maxPixels(arguments)
        let (start, duration) = try VideoWork.cut(arguments)
        let audioTracks = try VideoWork.audioTracks(arguments)
        let rawFrameRate = try arguments.value(VideoOptions.rawFrameRate)
        let preset = try arguments.value(Self.preset)
        let subtitles = try arguments.value(VideoOptions.subtitles) ?? .keep
        let slowMotion = try arguments.value(VideoOptions.slowMotion) ?? .flatten
        return try await VideoWork.run(
            command: "convert",
            identity: [
                "to=\(container.rawValue)", "codec=\(codecName ?? "")", "crf=\(crf ?? -1)",
                "max-height=\(maxHeight ?? 0)",
                "preset=\(preset?.rawValue ?? "")",
                "keep-location=\(keepLocation)", "start=\(start)", "duration=\(duration ?? -1)", "audio=\(audioTracks)",
                "fps=\(rawFrameRate ?? 0)", "subtitles=\(subtitles.rawValue)",
                "slow-motion=\(slowMotion.rawValue)",
            ],
            outputExtension: container.rawValue, arguments: arguments, console: console
        ) { input, output in
            var request = VideoRequest(
                input: input, container: container, codec: codec, crf: crf, maxHeight: maxHeight,
                keepLocation: keepLocation, output: output, maxPixels: maxPixels)
            (request.start, request.duration) = (start, duration)
            request.audioTracks = audioTracks
            request.rawFrameRate = rawFrameRate
            request.preset = preset
            request.subtitles = subtitles
            request.slowMotion = slowMotion
            return VideoConverter.convert(request)
        }
    }
}
