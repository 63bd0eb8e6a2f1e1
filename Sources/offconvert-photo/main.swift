import FoundationEssentials
import Glibc
import OffconvertCLI

// `offconvert-photo`: the whole command line, with the photo engine only. The `offconvert`
// launcher starts it for every command but the video ones. It links no FFmpeg, which saves
// loading about 130 shared libraries (some 60 ms) on every photo command; a command that turns
// out to need the video engine (convert --to mp4) becomes `offconvert-media` (see MediaRunners).
SignalHandling.exitsWithoutWaiting.store(true, ordering: .relaxed)
exit(await CLI.run(CLI.processArguments, commands: Commands.all, console: .current()))
