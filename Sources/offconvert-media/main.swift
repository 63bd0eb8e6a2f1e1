import ConvertMedia
import Foundation
import OffconvertCLI

// `offconvert-media`: the whole command line with both engines. The `offconvert` launcher starts it
// for the video commands, and `offconvert-photo` becomes it (exec) for `convert` to a video
// format; run directly, it does everything `offconvert` does.
MediaRunners.install([
    SendToWindowsCommand.spec.name: SendToWindowsCommand.runWithEngine,
    CompressCommand.spec.name: CompressCommand.runWithEngine,
    EmailCommand.spec.name: EmailCommand.runWithEngine,
    GIFCommand.spec.name: GIFCommand.runWithEngine,
    ExtractAudioCommand.spec.name: ExtractAudioCommand.runWithEngine,
    StripLocationCommand.spec.name: StripLocationCommand.runWithEngine,
    InfoCommand.spec.name: InfoCommand.runWithEngine,
    CapabilitiesCommand.spec.name: CapabilitiesCommand.runWithEngine,
    HeicToJpgCommand.spec.name: HeicToJpgCommand.runWithEngine,
    LivePhotoCommand.spec.name: LivePhotoCommand.runWithEngine,
    ConvertCommand.spec.name: { arguments, console in
        // Only the video half of `convert` comes here (ConvertCommand runs photos itself).
        let container = VideoContainer(rawValue: arguments.value("to")?.lowercased() ?? "") ?? .mp4
        return try await VideoConvertCommand.runWithEngine(arguments, container: container, console: console)
    },
])
FFmpegLogging.quietEncodersEnvironment()
SignalHandling.exitsWithoutWaiting.store(true, ordering: .relaxed)
exit(await CLI.run(Array(CommandLine.arguments.dropFirst()), commands: Commands.all, console: .current()))
