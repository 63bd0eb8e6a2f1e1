import ConvertBatch
import ConvertCore

/// What a command tells ``BatchRunner`` about its conversion.
package struct BatchWork: Sendable {
    /// The command's name, e.g. `heic-to-jpg`.
    package var command: String
    /// The command's options that shape its outputs (e.g. `["quality=85"]`), so the resume
    /// journal only resumes a run of the very same command.
    package var identity: [String]
    /// The output file extension for an input, without the dot (`"jpg"`).
    package var outputExtension: @Sendable (_ input: String) -> String
    /// Added to each output's name before the extension (`" (no location)"`); empty by default.
    package var outputSuffix = ""
    /// The input's declared peak memory in bytes (see `BatchScheduler.bitmapBytes`); read the
    /// header only, this runs for every input before any work.
    package var cost: @Sendable (_ input: String) async -> Int64
    /// Used instead of ``cost`` when set (the photo commands): reads an input's header once for
    /// its cost and keeps what it read in ``BatchItem/photo`` for the conversion.
    package var probe: (@Sendable (_ input: String) async -> (cost: Int64, photo: PhotoInput?))? = nil
    /// The expected output size, for the free-space check; the input's size by default.
    package var estimatedOutputBytes: @Sendable (_ input: String, _ inputBytes: Int64) -> Int64 = { _, bytes in bytes }
    /// Set when every input goes into one output at this path (`images-to-pdf`): the batch is
    /// then one item (reported under the first input) whose conversion reads all the inputs.
    /// An existing file there is replaced only with `--overwrite`, and never when it is an input.
    var singleOutput: String? = nil
    /// What the batch converts; other inputs are set aside (see ``InputTriage``). Every input
    /// by default; each command says what it reads.
    package var accepts: InputTriage.Accepts = .anything
    /// Photos already in the target format, set aside unless asked for (`heic-to-jpg`).
    package var alreadyIn: InputTriage.AlreadyInFormat? = nil
    /// How the summary counts items that succeeded without writing anything.
    package var unchangedSummary = Messages.Key.summaryUnchanged
    /// Set when this batch finishes a conversion already charged to the allowance: the motion
    /// half of `heic-to-jpg --live`, whose photo batch counted the Live Photos as one conversion.
    package var alreadyCharged = false
    /// Why `input` would fail, checked by `--dry-run` the way the conversion opens it; nil when
    /// it would be read. By default: it exists, is a readable, non-empty regular file.
    package var check: @Sendable (_ input: String) async -> ConvertError? = { BatchPlan.fileProblem($0) }
    /// What `--dry-run` adds under an item's planned line (a size target's plan: the passes, or
    /// why it cannot be reached), and the failure that item would end with, if any; nil adds nothing.
    package var preview: (@Sendable (_ index: Int, _ input: String) async throws(ConvertError) -> BatchPreview)? = nil
    /// How the items are converted: through a ``PhotoBatch`` (the photo commands), or one call
    /// each (``convert``).
    package var conversion: Conversion

    /// Converts one item: typically `try await Engine.convert(request(item)).result(onProgress: progress)`.
    /// Setting it makes the work convert each item with it; a photo command's work gives its
    /// photo conversion here, so a command can wrap it (`convert --to webp` hands animated AVIFs
    /// to the video engine).
    package var convert: Conversion.Each {
        get {
            switch conversion {
            case .photos(let photos): photos.convertOne
            case .each(let convert): convert
            }
        }
        set { conversion = .each(newValue) }
    }

    /// Work converting each item with `convert`.
    package init(
        command: String, identity: [String], outputExtension: @escaping @Sendable (_ input: String) -> String,
        outputSuffix: String = "", cost: @escaping @Sendable (_ input: String) async -> Int64,
        estimatedOutputBytes: @escaping @Sendable (_ input: String, _ inputBytes: Int64) -> Int64 = { _, bytes in bytes
        },
        singleOutput: String? = nil, convert: @escaping Conversion.Each
    ) {
        self.init(
            command: command, identity: identity, outputExtension: outputExtension, outputSuffix: outputSuffix,
            cost: cost, estimatedOutputBytes: estimatedOutputBytes, singleOutput: singleOutput,
            conversion: .each(convert))
    }

    /// Work converting its items as `conversion` says.
    package init(
        command: String, identity: [String], outputExtension: @escaping @Sendable (_ input: String) -> String,
        outputSuffix: String = "", cost: @escaping @Sendable (_ input: String) async -> Int64,
        estimatedOutputBytes: @escaping @Sendable (_ input: String, _ inputBytes: Int64) -> Int64,
        singleOutput: String? = nil, conversion: Conversion
    ) {
        self.command = command
        self.identity = identity
        self.outputExtension = outputExtension
        self.outputSuffix = outputSuffix
        self.cost = cost
        self.estimatedOutputBytes = estimatedOutputBytes
        self.singleOutput = singleOutput
        self.conversion = conversion
    }
}

/// What ``BatchWork/preview`` says of one item in a dry run.
package struct BatchPreview: Sendable {
    /// The line printed under the item's planned line (a `--json` line, or text).
    package var line: String
    /// The error the item would fail with (a target it cannot reach); nil when it would convert.
    package var failure: ConvertError?

    /// A preview line, and the failure it foretells.
    package init(line: String, failure: ConvertError? = nil) {
        self.line = line
        self.failure = failure
    }
}

extension BatchWork {
    /// How a batch's items are converted.
    package enum Conversion: Sendable {
        /// One item's conversion, given its progress callback.
        package typealias Each =
            @Sendable (_ item: BatchItem, _ progress: @escaping @Sendable (JobProgress) -> Void)
            async throws(ConvertError) -> JobResult

        /// Every item a photo, the batch run by ``PhotoBatch``: the library's batch runtime,
        /// which the CLI's photo commands use as any app does.
        case photos(PhotoConversion)
        /// Each item converted by one call.
        case each(Each)
    }
}
