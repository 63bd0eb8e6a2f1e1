import ConvertCore
import FoundationEssentials

#if canImport(Glibc)
    import Glibc
#endif

/// What a batch will do with each input, decided before any work: the items, their
/// destinations, and the checks a dry run and the real run share.
package struct BatchPlan: Sendable {
    let work: BatchWork
    let options: BatchOptions
    let namer: OutputNamer

    /// The inputs that become items: every input, or only the first when all of them go into
    /// one output (`images-to-pdf`: one item, reported under the first input).
    var itemInputs: [String] { work.singleOutput == nil ? options.inputs : Array(options.inputs.prefix(1)) }

    /// The item for `input`, with a destination reserved for it.
    func item(index: Int, input: String) throws(ConvertError) -> BatchItem {
        let sources = work.singleOutput == nil ? [input] : options.inputs
        var item = BatchItem(
            index: index, input: input, destination: try destination(for: input), cost: 0, overwrite: options.overwrite)
        item.inputBytes = sources.reduce(Int64(0)) { $0 + Self.fileSize($1) }
        // One output from many inputs (a PDF) is a new file of its own: no one source's time or mode.
        item.inputStamp = work.singleOutput == nil ? FileStamp.of(input) : nil
        item.sources = sources
        item.mayRenumber = (work.singleOutput ?? options.outputFile) == nil
        return item
    }

    /// Where `input`'s output goes: the one named output (`images-to-pdf -o`, `-o photo.png`) or
    /// a fresh name from the namer, in the input's subfolder under `--output-dir`.
    func destination(for input: String) throws(ConvertError) -> String {
        if let named = work.singleOutput ?? options.outputFile {
            try checkNamedOutput(named)
            try OutputNamer.createFolders(PathText.parent(named))
            return named
        }
        return try namer.destination(
            for: input, pathExtension: work.outputExtension(input), suffix: work.outputSuffix,
            subfolder: options.subfolders[input] ?? "")
    }

    /// Fails the item with `device.full` when its folder has less free space than its estimated
    /// output: only the items that do not fit fail, the others are still converted.
    func checkSpace(for item: BatchItem) throws(ConvertError) {
        let needed = work.estimatedOutputBytes(item.input, item.inputBytes)
        try FreeSpace.check(needed: needed, in: PathText.parent(item.destination))
    }

    /// A named output: never one of the inputs, and an existing file only with `--overwrite`
    /// (the user chose the name, so it is not numbered).
    private func checkNamedOutput(_ path: String) throws(ConvertError) {
        guard FileStamp.of(path) != nil else { return }
        for input in options.inputs where OutputNamer.isSameFile(input, path) {
            throw ConvertError(
                code: .outputIsInput, message: "The output \(path) is one of the inputs; nothing was overwritten.",
                path: path)
        }
        if !options.overwrite {
            throw ConvertError(
                code: .outputExists, message: "\(path) already exists; nothing was overwritten (use --overwrite).",
                path: path)
        }
    }

    /// Why `item` is not run under an explicit `--memory-budget` it needs more than on its own, or nil.
    func overBudget(_ item: BatchItem) -> ConvertError? {
        guard options.memoryBudgetIsExplicit, item.cost > options.memoryBudget else { return nil }
        return ConvertError(
            code: .requestMemoryBudget,
            message: "\(item.input) needs about \(UnitText.bytes(item.cost)) of memory, more than the budget of "
                + "\(UnitText.bytes(options.memoryBudget)) (--memory-budget).",
            path: item.input)
    }

    /// Why `path` cannot be read as an input (missing, a folder, unreadable, empty), or nil:
    /// the library's own check, so a batch fails an item with the code a single conversion
    /// would give.
    package static func fileProblem(_ path: String) -> ConvertError? { ConvertError.inputProblem(path) }

    private static func fileSize(_ path: String) -> Int64 {
        var info = stat()
        return stat(path, &info) == 0 ? Int64(info.st_size) : 0
    }
}
