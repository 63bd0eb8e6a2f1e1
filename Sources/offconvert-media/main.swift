import ConvertMedia
import Foundation
import OffconvertCLI

// `offconvert-media`: the whole command line with both engines. The `offconvert` launcher starts it
// for the video commands, and `offconvert-photo` becomes it (exec) for `convert` to a video
// format; run directly, it does everything `offconvert` does. The commands' descriptions (specs,
// options, help) live in OffconvertCLI with the rest of the command line; their work with the
// video engine is here, one `<Command>+Engine.swift` each, installed below.
MediaRunners.install { work, arguments, console in
    switch work {
    case .sendToWindows: try await SendToWindowsCommand.runWithEngine(arguments, console: console)
    case .compress: try await CompressCommand.runWithEngine(arguments, console: console)
    case .email: try await EmailCommand.runWithEngine(arguments, console: console)
    case .gif: try await GIFCommand.runWithEngine(arguments, console: console)
    case .extractAudio: try await ExtractAudioCommand.runWithEngine(arguments, console: console)
    case .stripLocation: try await StripLocationCommand.runWithEngine(arguments, console: console)
    case .info: try await InfoCommand.runWithEngine(arguments, console: console)
    case .capabilities: try await CapabilitiesCommand.runWithEngine(arguments, console: console)
    case .livePhoto: try await LivePhotoCommand.runWithEngine(arguments, console: console)
    case .heicToJpgLive: try await HeicToJpgCommand.runWithEngine(arguments, console: console)
    case .convertVideo: try await ConvertCommand.runWithEngine(arguments, console: console)
    }
}
EncoderLogging.quietThroughEnvironment()
SignalHandling.exitsWithoutWaiting.store(true, ordering: .relaxed)
exit(await CLI.run(CLI.processArguments, commands: Commands.all, console: .current()))
