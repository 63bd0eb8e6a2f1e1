import ConvertCore
import ConvertMedia
import Foundation
import OffconvertCLI

extension ExtractAudioCommand {
    static func runWithEngine(_ arguments: ParsedArguments, console: Console) async throws -> Int32 {
        let asked = try arguments.value(Self.format)
        let chosen = asked ?? .m4a
        let keepLocation = arguments.has(VideoOptions.keepLocation)
        let track = try VideoWork.audioTracks(arguments)
        let (start, duration) = try VideoWork.cut(arguments)
        let bitRate = try arguments.value(VideoOptions.audioBitrate)
        if let bitRate, let asked, asked == .flac || asked == .wav {
            throw UsageError(
                message: "'--bitrate \(bitRate / 1000)k' applies to mp3, m4a and opus; \(asked.rawValue) is lossless.")
        }
        if track == .all, asked != nil, chosen != .m4a {
            throw UsageError(
                message:
                    "'--all-audio' saves the tracks together in one .m4a; a .\(chosen.fileExtension) file holds one sound track."
            )
        }
        // Without --to, the sound keeps its own format when an audio file can hold it as it is
        // (MP3 stays MP3, not a second lossy AAC); anything else becomes AAC in .m4a, as lossless
        // sound does when a bitrate is asked.
        let format: @Sendable (String) -> AudioFormat = { input in
            guard asked == nil else { return chosen }
            let own = VideoConverter.soundFormat(of: input, track: track) ?? .m4a
            return bitRate != nil && (own == .flac || own == .wav) ? .m4a : own
        }
        return try await VideoWork.run(
            command: spec.name,
            identity: [
                "to=\(asked?.rawValue ?? "auto")", "keep-location=\(keepLocation)", "audio=\(track)", "start=\(start)",
                "duration=\(duration ?? -1)", "bitrate=\(bitRate ?? 0)",
            ],
            outputExtension: chosen.fileExtension, arguments: arguments, console: console, cost: { _ in 16 << 20 },
            extensionFor: { format($0).fileExtension }, accepts: .sound
        ) { input, output in
            var request = AudioExtractionRequest(
                input: input, format: format(input), keepLocation: keepLocation, output: output)
            request.audioTrack = track
            (request.start, request.duration) = (start, duration)
            request.bitRate = bitRate
            return VideoConverter.extractAudio(request)
        }
    }
}
