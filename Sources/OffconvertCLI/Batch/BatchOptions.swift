import ConvertCore
import Foundation

/// The options every command over many files shares, parsed once.
///
/// A command adds ``specs`` to its `CommandSpec.options` and calls ``parse(_:standardInput:)``;
/// ``BatchRunner`` does the rest.
package struct BatchOptions: Sendable {
    /// The inputs, in order, after `--from-file`, `-` and `--shard`.
    package var inputs: [String]
    /// `--output-dir`; nil to write next to each input.
    package var outputDirectory: String?
    /// `--overwrite`.
    package var overwrite = false
    /// `--jobs`.
    package var jobs: Int
    /// `--memory-budget` in bytes.
    package var memoryBudget: Int64
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
    /// `--max-pixels`: the decompression-bomb limit handed to every request.
    package var maxPixels = PixelLimit.defaultMaxPixels

    /// `--max-pixels`, shared by every converting command (batch or not) so the limit is spelled
    /// and checked in one place.
    package static let maxPixelsSpec = OptionSpec.option(
        "max-pixels", value: "n",
        help: "Refuse images and video frames with more pixels than this (protects against decompression bombs).",
        default: String(PixelLimit.defaultMaxPixels))

    /// The value of `--max-pixels`, or the library default.
    package static func maxPixels(_ arguments: ParsedArguments) throws(UsageError) -> Int {
        try arguments.integer("max-pixels", in: 1...Int(Int32.max) * 16, default: PixelLimit.defaultMaxPixels)
    }

    /// The input files argument of a command over many files: optional on the command line
    /// because `--from-file` and `-` can supply them (``parse(_:standardInput:)`` requires some).
    package static func files(_ help: String) -> ArgumentSpec {
        ArgumentSpec(name: "FILES", help: help + " '-' reads paths from stdin.", repeating: true, required: false)
    }

    /// The shared options, in the order `--help` lists them.
    package static let specs: [OptionSpec] = [
        .option("output-dir", short: "o", value: "dir", help: "Write the outputs to this folder instead of next to each input."),
        .flag("overwrite", help: "Replace existing files instead of naming outputs 'photo (2).jpg'. An input is never replaced."),
        .option("jobs", short: "j", value: "n", help: "Convert up to n files at once.", default: "number of cores"),
        .option(
            "memory-budget", value: "size",
            help: "Keep the decoded images in flight under this size, e.g. 1GB.", default: "half the available memory"),
        .option("from-file", value: "list", help: "Also read input paths from this file, one per line ('-' reads stdin)."),
        .option(
            "shard", value: "i/n",
            help: "Only convert this machine's share of the inputs: part i of n (1-based), picked by path."),
        .flag("dry-run", help: "Print what would be written where and the memory estimate; write nothing."),
        .flag("no-resume", help: "Start over instead of finishing an interrupted run of the same command."),
        .flag("json", help: "Print one JSON object per line per event (see the README); nothing else on stdout."),
        maxPixelsSpec,
    ] + outputStyleSpecs

    /// `--quiet` and `--verbose`: every converting command has them.
    package static let outputStyleSpecs: [OptionSpec] = [
        .flag("quiet", help: "Print only errors: no progress, notes or summary."),
        .flag("verbose", help: "Also print the low-level cause of each error."),
    ]

    /// Reads the shared options. `standardInput` supplies stdin's text for `-`.
    package static func parse(_ arguments: ParsedArguments, standardInput: () -> String = readStandardInput) throws(UsageError) -> BatchOptions {
        var inputs: [String] = []
        var stdinUsed = false
        func lines(_ text: String) -> [String] {
            text.split(whereSeparator: { $0 == "\n" || $0 == "\r\n" }).map(String.init).filter { !$0.isEmpty }
        }
        for positional in arguments.positionals {
            if positional == "-" {
                guard !stdinUsed else { throw UsageError(message: "Standard input ('-') can be read only once.") }
                stdinUsed = true
                inputs += lines(standardInput())
            } else {
                inputs.append(positional)
            }
        }
        if let list = arguments.value("from-file") {
            if list == "-" {
                guard !stdinUsed else { throw UsageError(message: "Standard input ('-') can be read only once.") }
                inputs += lines(standardInput())
            } else {
                guard let text = try? String(contentsOfFile: list, encoding: .utf8) else {
                    throw UsageError(message: "Cannot read the list '\(list)' given to '--from-file'.")
                }
                inputs += lines(text)
            }
        }
        guard !inputs.isEmpty else {
            throw UsageError(message: "Missing expected argument '<files>': give files, '--from-file <list>' or '-' to read paths from stdin.")
        }
        var shard: (Int, Int)?
        if let text = arguments.value("shard") {
            let parts = text.split(separator: "/").map { Int($0) }
            guard parts.count == 2, let index = parts[0], let count = parts[1], count >= 1, (1...count).contains(index) else {
                throw UsageError(message: "The value '\(text)' is invalid for '--shard': expected i/n with 1 <= i <= n, e.g. 2/8.")
            }
            shard = (index, count)
            inputs = inputs.filter { Self.shard(of: $0, count: count) == index }
        }
        if arguments.flag("quiet") && arguments.flag("verbose") {
            throw UsageError(message: "'--quiet' and '--verbose' cannot be used together.")
        }
        let budget = try arguments.byteCount("memory-budget") ?? BatchScheduler.defaultBudget()
        guard budget > 0 else { throw UsageError(message: "'--memory-budget' must be more than 0 bytes.") }
        return BatchOptions(
            inputs: inputs, outputDirectory: arguments.value("output-dir"), overwrite: arguments.flag("overwrite"),
            jobs: try arguments.integer("jobs", in: 1...256, default: ProcessInfo.processInfo.activeProcessorCount),
            memoryBudget: budget, dryRun: arguments.flag("dry-run"), resume: !arguments.flag("no-resume"),
            json: arguments.flag("json"), quiet: arguments.flag("quiet"), verbose: arguments.flag("verbose"), shard: shard,
            maxPixels: try maxPixels(arguments))
    }

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

    package static func readStandardInput() -> String {
        String(decoding: FileHandle.standardInput.readDataToEndOfFile(), as: UTF8.self)
    }
}
