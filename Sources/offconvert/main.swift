import Foundation

let code = await CLI.run(Array(CommandLine.arguments.dropFirst()), console: .current())
exit(code)
