import ConvertCore
import FoundationEssentials
import Glibc

/// `offconvert watch DIR [--to jpg] [-o OUT] [--recursive] [--json]`: converts each photo (or
/// video) that arrives in a folder, once it is complete.
package enum WatchCommand: Command {
    /// `--to`.
    package static let target = Option.text(
        "to", value: "format", help: "What to convert to: any 'offconvert convert --to' value.",
        default: "jpg")
    /// `-o`.
    package static let output = Option.text(
        "output-dir", short: "o", value: "dir",
        help: "Write the outputs here (created if missing) instead of next to each file.")
    /// `-r`.
    static let recursive = Flag(
        "recursive", short: "r", help: "Also watch the subfolders (and the ones created later).")
    /// `--settle`.
    package static let settle = Option.integer(
        "settle", value: "ms", in: 0...600_000, help: "How long a file must stay unchanged before it is converted.",
        default: "1500")
    /// `--once`.
    package static let once = Flag("once", help: "Convert the files that are there, then exit instead of watching.")
    /// `--json`.
    package static let json = Flag(
        "json", help: "Print one JSON object per line per event (the conversions' lines, and watching/stopped).")

    package static let spec = CommandSpec(
        name: "watch",
        abstract: "Convert each new photo or video that arrives in a folder, once it is complete.",
        discussion: """
            Converts the files already in DIR that were not converted before, then each file that \
            arrives (written and closed, or moved in), as 'offconvert convert --to TARGET FILE' \
            would: next to it, or in --output-dir keeping the subfolders. A file written in pieces \
            is converted once its size and time have not changed for --settle milliseconds. \
            Nothing is converted twice: the batch journal remembers what every run converted and \
            wrote, so after a restart (or a crash) the watcher skips those and converts what \
            arrived while it was stopped. Its own outputs, and an output folder inside DIR, are \
            never taken as new files. With --to a photo format only photos are converted, with a \
            video container only videos. Ctrl-C stops it cleanly (a conversion in progress removes \
            its partial file); --once converts what is there and exits.
            Allowance: each file the watcher converts counts as one of the free conversions of the \
            day, as if you had converted it by hand; files it finds already converted cost nothing. \
            When the free conversions are used up it says so and stops (exit 77); what arrives \
            later is converted when it is started again.
            """,
        arguments: [ArgumentSpec(name: "DIR", help: "The folder to watch.")],
        options: [
            target.spec, output.spec, recursive.spec, settle.spec, once.spec, json.spec,
        ],
        examples: ["watch Inbox --once", "watch Inbox --to jpg -o Inbox/converted --once"])

    package static func run(_ arguments: ParsedArguments, console: Console) async throws -> Int32 {
        let settings = try parse(arguments)
        let (result, _) = await SignalHandling.run { () async -> Result<(FolderWatcher.Ending, Int), ConvertError> in
            do throws(ConvertError) {
                let watcher = try FolderWatcher(settings, console: console)
                let ending = await watcher.run()
                watcher.finish(ending)
                return .success((ending, watcher.failed))
            } catch {
                return .failure(error)
            }
        }
        switch result {
        case .failure(let error):
            console.err("\(Messages.text(.errorPrefix)) \(Messages.error(error).terminalSafe)")
            return ExitCode.failure
        case .success((.interrupted, _)): return ExitCode.interrupted
        case .success((.allowance, _)): return ExitCode.allowanceExhausted
        case .success((.finished, let failed)): return failed > 0 ? ExitCode.failure : ExitCode.success
        }
    }

    /// The settings, with DIR and the output folder made absolute and resolved.
    static func parse(_ arguments: ParsedArguments) throws(UsageError) -> FolderWatcher.Settings {
        let folderArgument = arguments.positionals.first ?? ""
        guard let folder = resolved(folderArgument), isFolder(folder) else {
            throw UsageError(message: "'\(folderArgument.terminalSafe)' is not a folder: give the folder to watch.")
        }
        let output = try Catalogue.convertOutput(try arguments.value(target, default: "jpg").lowercased())
        var outputDirectory: String?
        if let given = try arguments.value(Self.output) {
            do throws(ConvertError) {
                try OutputNamer.createFolders(given)
            } catch {
                throw UsageError(
                    message: "Cannot create the output folder '\(given.terminalSafe)': \(Messages.error(error))")
            }
            outputDirectory = resolved(given)
        }
        return FolderWatcher.Settings(
            folder: folder, target: output.target, outputDirectory: outputDirectory,
            recursive: arguments.has(recursive),
            json: arguments.has(json), settleMilliseconds: try arguments.value(settle, default: 1500),
            once: arguments.has(once), isPhotoTarget: output.inputKind == .photo)
    }

    private static func resolved(_ path: String) -> String? {
        realpath(path)
    }

    private static func isFolder(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFDIR
    }
}
