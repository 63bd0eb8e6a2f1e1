/// Every subcommand, in the order the overview lists them.
enum Commands {
    static let all: [any Command.Type] = [
        SendToWindowsCommand.self,
        VideoConvertCommand.self,
        GIFCommand.self,
        ExtractAudioCommand.self,
    ]
}
