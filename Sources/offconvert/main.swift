import Foundation
import OffconvertCLI

// `offconvert`: the whole command line, with the photo engine only. It links no FFmpeg, which
// saves loading about 130 shared libraries (some 60 ms) on every photo command; a command that
// needs the video engine becomes `offconvert-media` (see MediaRunners).
exit(await CLI.run(Array(CommandLine.arguments.dropFirst()), commands: Commands.all, console: .current()))
