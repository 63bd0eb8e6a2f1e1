import ConvertBatch
import ConvertCore
import FoundationEssentials
import Glibc

/// The options every command over many files shares, parsed once.
///
/// A command adds ``specs`` to its `CommandSpec.options` and calls ``parse(_:standardInput:)``;
/// ``BatchRunner`` does the rest.
package struct BatchOptions: Sendable {
    /// The inputs, in order, after `--from-file`, `-`, folders opened, duplicates dropped and
    /// `--shard`.
    package var inputs: [String]
    /// For inputs found inside a folder argument, the folders between it and the file, so the
    /// outputs keep that layout under `--output-dir` (see ``InputCollector/File/subfolder``).
    var subfolders: [String: String] = [:]
    /// Folders inside folder arguments that were not opened (no `--recursive`).
    var skippedFolders: [String] = []
    /// Folder arguments that held nothing to convert, each named in a note.
    var emptyFolders: [String] = []
    /// `--output-dir`; nil to write next to each input (or to ``outputFile``).
    package var outputDirectory: String?
    /// `-o NAME.EXT` for a single input: the output file itself rather than a folder (a name with
    /// a media file extension that is not an existing folder).
    var outputFile: String?
    /// `--overwrite`.
    package var overwrite = false
    /// `--jobs`.
    package var jobs: Int
    /// `--memory-budget` in bytes.
    var memoryBudget: Int64
    /// Whether `--memory-budget` was given: then a file that alone needs more is refused, not run
    /// (the default budget, half of the memory available, may be exceeded by one file alone).
    var memoryBudgetIsExplicit = false
    /// `--dry-run`.
    package var dryRun = false
    /// Not `--no-resume`.
    package var resume = true
    /// `--json`.
    package var json = false
    /// `--quiet`: only errors on stderr, no progress, notes or summary.
    package var quiet = false
    /// `--verbose`: errors also name their low-level cause.
    package var verbose = false
    /// `--shard I/N` as (I, N), 1-based.
    package var shard: (index: Int, count: Int)?
    /// Not `--no-keep-times`: outputs take their source's modification time.
    var keepTimes = true
    /// `--max-pixels`: the decompression-bomb limit handed to every request.
    package var maxPixels = PixelLimit.defaultMaxPixels

    /// `--max-pixels`, shared by every converting command (batch or not) so the limit is spelled
    /// and checked in one place.
    static let maxPixelsOption = Option.integer(
        "max-pixels", in: 1...Int(Int32.max) * 16,
        help: "Refuse images and video frames with more pixels than this (protects against decompression bombs).",
        default: String(PixelLimit.defaultMaxPixels))

    /// The value of `--max-pixels`, or the library default.
    package static func maxPixels(_ arguments: ParsedArguments) throws(UsageError) -> Int {
        try arguments.value(maxPixelsOption, default: PixelLimit.defaultMaxPixels)
    }

    /// `-o`.
    package static let output = Option.text(
        "output-dir", short: "o", value: "dir",
        help: "Write the outputs to this folder (created if missing) instead of next to each input. "
            + "For one input, a name with the output's extension (-o small.jpg) is the output file itself.")
    /// `-r`.
    static let recursive = Flag(
        "recursive", short: "r",
        help:
            "With folders as inputs, also convert what is in their subfolders (the layout is kept under --output-dir).")
    /// `--overwrite`.
    static let overwriteFlag = Flag(
        "overwrite",
        help: "Replace existing files instead of naming outputs 'photo (2).jpg'. An input is never replaced.")
    /// `-j`.
    static let jobsOption = Option.integer(
        "jobs", short: "j", in: 1...256, help: "Convert up to n files at once.", default: "number of cores")
    /// `--memory-budget`.
    static let memoryBudgetOption = Option.byteCount(
        "memory-budget",
        help: "Keep the estimated memory of the conversions in flight under this size, e.g. 1GB; a file that needs "
            + "more on its own is refused.",
        default: "half the available memory")
    /// `--from-file`.
    static let fromFile = Option.text(
        "from-file", value: "list",
        help:
            "Also read input paths from this file, one per line ('-' reads stdin); blank lines and lines starting with # are skipped."
    )
    /// `--shard`.
    static let shardOption = Option.text(
        "shard", value: "i/n",
        help: "Only convert this machine's share of the inputs: part i of n (1-based), picked by path.")
    /// `--dry-run`.
    static let dryRunFlag = Flag(
        "dry-run", help: "Print what would be written where and the memory estimate; write nothing.")
    /// `--keep-times`.
    static let keepTimesFlag = Flag("keep-times", help: "Outputs keep the source's modification time (the default).")
    /// `--no-keep-times`.
    static let noKeepTimes = Flag(
        "no-keep-times",
        help: "Give outputs the time of the conversion. By default they keep the source's modification time "
            + "(--keep-times), so galleries and 'ls -t' keep their order; permissions always follow the source.")
    /// `--no-resume`.
    static let noResume = Flag(
        "no-resume", help: "Start over instead of finishing an interrupted run of the same command.")
    /// `--json`.
    static let jsonFlag = Flag(
        "json", help: "Print one JSON object per line per event (see the README); nothing else on stdout.")
    /// `--quiet`.
    static let quietFlag = Flag("quiet", short: "q", help: "Print only errors: no progress, notes or summary.")
    /// `--verbose`.
    static let verboseFlag = Flag("verbose", help: "Also print the low-level cause of each error.")

    /// The input files argument of a command over many files: optional on the command line
    /// because `--from-file` and `-` can supply them (``parse(_:standardInput:)`` requires some).
    package static func files(_ help: String) -> ArgumentSpec {
        ArgumentSpec(
            name: "FILES",
            help: help + " '-' reads paths from stdin. A folder means the files in it (and in its subfolders with "
                + "--recursive). Files of another kind (a video given to a photo command, a .txt) are skipped with a line "
                + "saying so and do not fail the run; sidecars (.AAE, .XMP, .THM, .json) and hidden files are skipped "
                + "silently; a file that cannot be read, or is damaged, fails (exit 1) while the others are converted.",
            repeating: true, required: false)
    }

    /// The shared options, in the order `--help` lists them.
    package static let specs: [OptionSpec] =
        [
            output.spec, recursive.spec, overwriteFlag.spec, jobsOption.spec, memoryBudgetOption.spec, fromFile.spec,
            shardOption.spec, dryRunFlag.spec, keepTimesFlag.spec, noKeepTimes.spec, noResume.spec, jsonFlag.spec,
            maxPixelsOption.spec,
        ] + outputStyleSpecs

    /// `--quiet` and `--verbose`: every converting command has them.
    static let outputStyleSpecs: [OptionSpec] = [quietFlag.spec, verboseFlag.spec]

    /// Reads the shared options. `standardInput` is the file descriptor `-` reads paths from.
    package static func parse(_ arguments: ParsedArguments, standardInput: Int32 = STDIN_FILENO)
        throws(UsageError) -> BatchOptions
    {
        var collector = InputCollector(recursive: arguments.has(recursive))
        for path in try typedPaths(arguments, standardInput: standardInput) { collector.add(path) }
        guard !collector.files.isEmpty else {
            if let folder = collector.emptyFolders.first {
                throw UsageError(message: Messages.text(.emptyFolder, folder.terminalSafe))
            }
            throw UsageError(
                message:
                    "Missing expected argument '<files>': give files, '--from-file <list>' or '-' to read paths from stdin."
            )
        }
        var files = collector.files
        var shard: (Int, Int)?
        if let text = try arguments.value(shardOption) {
            let parts = text.split(separator: "/").map { Int($0) }
            guard parts.count == 2, let index = parts[0], let count = parts[1], count >= 1, (1...count).contains(index)
            else {
                throw UsageError(
                    message: "The value '\(text)' is invalid for '--shard': expected i/n with 1 <= i <= n, e.g. 2/8.")
            }
            shard = (index, count)
            files = files.filter { Self.shard(of: $0.path, count: count) == index }
        }
        if arguments.has(quietFlag) && arguments.has(verboseFlag) {
            throw UsageError(message: "'--quiet' and '--verbose' cannot be used together.")
        }
        let budget = try arguments.value(memoryBudgetOption) ?? BatchScheduler.defaultBudget()
        guard budget > 0 else { throw UsageError(message: "'--memory-budget' must be more than 0 bytes.") }
        var options = BatchOptions(
            inputs: files.map(\.path), overwrite: arguments.has(overwriteFlag),
            jobs: try arguments.value(jobsOption, default: ProcessInfo.processInfo.activeProcessorCount),
            memoryBudget: budget, dryRun: arguments.has(dryRunFlag), resume: !arguments.has(noResume),
            json: arguments.has(jsonFlag), quiet: arguments.has(quietFlag), verbose: arguments.has(verboseFlag),
            shard: shard,
            maxPixels: try maxPixels(arguments))
        options.memoryBudgetIsExplicit = arguments.has(memoryBudgetOption)
        options.subfolders = Dictionary(files.filter { !$0.subfolder.isEmpty }.map { ($0.path, $0.subfolder) }) {
            first, _ in first
        }
        options.skippedFolders = collector.skippedFolders
        options.emptyFolders = collector.emptyFolders
        if arguments.has(keepTimesFlag) && arguments.has(noKeepTimes) {
            throw UsageError(message: "'--keep-times' and '--no-keep-times' cannot be used together.")
        }
        options.keepTimes = !arguments.has(noKeepTimes)
        if let output = try arguments.value(Self.output) {
            try options.setOutput(output, folderArguments: collector.hadFolders)
        }
        return options
    }

    /// The paths typed: positionals, `-` (stdin) and `--from-file`, in that order.
    private static func typedPaths(_ arguments: ParsedArguments, standardInput: Int32) throws(UsageError)
        -> [String]
    {
        var paths: [String] = []
        var stdinUsed = false
        func readStandardInput() throws(UsageError) -> [String] {
            guard !stdinUsed else { throw UsageError(message: "Standard input ('-') can be read only once.") }
            stdinUsed = true
            return try PathList.read(standardInput: standardInput)
        }
        for positional in arguments.positionals {
            paths += positional == "-" ? try readStandardInput() : [positional]
        }
        if let list = try arguments.value(fromFile) {
            if list == "-" {
                paths += try readStandardInput()
            } else {
                paths += try PathList.read(file: list)
            }
        }
        return paths
    }

    /// Reads `-o`: an existing folder, or a name with a media extension naming the one output
    /// file, or a folder to create.
    private mutating func setOutput(_ output: String, folderArguments: Bool) throws(UsageError) {
        var info = stat()
        let isFolder = stat(output, &info) == 0 && info.st_mode & S_IFMT == S_IFDIR
        let ext = PathText.fileExtension(output).lowercased()
        guard !isFolder, Self.outputFileExtensions.contains(ext) else {
            outputDirectory = output
            return
        }
        guard inputs.count == 1, !folderArguments else {
            throw UsageError(
                message:
                    "'-o \(output.terminalSafe)' names one file, but there are \(inputs.count) inputs: give a folder for their outputs."
            )
        }
        outputFile = output
    }

    /// Extensions that make `-o NAME` a file name rather than a folder.
    static let outputFileExtensions: Set<String> = [
        "jpg", "jpeg", "png", "webp", "heic", "heif", "avif", "gif", "jxl", "mp4", "mov", "mkv", "webm", "m4a", "mp3",
        "wav", "flac", "opus", "ogg",
    ]

    /// The 1-based shard `path` belongs to among `count`: FNV-1a of the path's bytes, so every
    /// machine given the same list (in any order) picks disjoint shares that cover it.
    package static func shard(of path: String, count: Int) -> Int {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        for byte in path.utf8 {
            hash ^= UInt64(byte)
            hash &*= 0x0000_0100_0000_01B3
        }
        return Int(hash % UInt64(count)) + 1
    }
}
