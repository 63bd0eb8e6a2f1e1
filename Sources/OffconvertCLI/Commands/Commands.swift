/// Every subcommand, in the order the overview lists them: situations first, then tools.
package enum Commands {
    package static let all: [any Command.Type] = [
        HeicToJpgCommand.self,
        HeicToPngCommand.self,
        SendToWindowsCommand.self,
        CompressCommand.self,
        EmailCommand.self,
        CompressPhotosCommand.self,
        GIFCommand.self,
        LivePhotoCommand.self,
        ExtractAudioCommand.self,
        ImagesToPdfCommand.self,
        ConvertCommand.self,
        InfoCommand.self,
        StripLocationCommand.self,
        ExtractMotionCommand.self,
        StripMotionCommand.self,
        WatchCommand.self,
        DesktopCommand.self,
        FormatsCommand.self,
        CapabilitiesCommand.self,
        AllowanceCommand.self,
        UnlockCommand.self,
    ]
}
