/// Every subcommand, in the order the overview lists them.
enum Commands {
    static let all: [any Command.Type] = [
        InfoCommand.self,
        AllowanceCommand.self,
        UnlockCommand.self,
    ]
}
