/// Every subcommand, in the order the overview lists them.
enum Commands {
    static let all: [any Command.Type] = [
        HeicToJpgCommand.self,
        HeicToPngCommand.self,
        ConvertCommand.self,
        CompressPhotosCommand.self,
        ImagesToPdfCommand.self,
        InfoCommand.self,
        AllowanceCommand.self,
        UnlockCommand.self,
    ]
}
