import ConvertCore
import MediaRequests
import OffconvertCLI

extension ConvertCommand {
    /// The video and sound halves of `convert` (photos never come here: ConvertCommand runs
    /// them itself): a video container to ``VideoConvertCommand``, a sound format to the work
    /// of extract-audio, whose `--to` names the format the same way.
    static func runWithEngine(_ arguments: ParsedArguments, console: Console) async throws -> Int32 {
        let target = (try arguments.value(ConvertCommand.target))?.lowercased() ?? ""
        if AudioFormat(rawValue: target) != nil {
            return try await ExtractAudioCommand.runWithEngine(arguments, console: console)
        }
        return try await VideoConvertCommand.runWithEngine(
            arguments, container: VideoContainer(rawValue: target) ?? .mp4, console: console)
    }
}
