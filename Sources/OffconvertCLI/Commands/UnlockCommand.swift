import ConvertAllowance
import ConvertCore

/// `offconvert unlock LICENSE-FILE`: removes the daily limit with an offline licence.
package enum UnlockCommand: Command {
    package static let spec = CommandSpec(
        name: "unlock",
        abstract: "Remove the daily limit with a licence file.",
        discussion: """
            Checks the licence's signature offline (nothing is sent anywhere) and keeps a copy in \
            offconvert's state folder, so the file can be deleted afterwards.
            """,
        arguments: [ArgumentSpec(name: "LICENSE-FILE", help: "The licence file you received.")],
        examples: ["unlock ~/Downloads/offconvert.license"])

    package static func run(_ arguments: ParsedArguments, console: Console) async throws -> Int32 {
        guard arguments.positionals.count == 1 else {
            throw UsageError(message: "Expected exactly one licence file.")
        }
        let license = try AllowanceStore().unlock(licenseFile: arguments.positionals[0])
        var line = "Unlocked: licensed to \(license.licensee.terminalSafe)"
        if let expires = license.expires { line += " until \(AllowanceCommand.local(expires))" }
        console.out(line + ". There is no daily limit.")
        return ExitCode.success
    }
}
