import ConvertCore
internal import FFmpegLayer

#if canImport(Glibc)
    import Glibc
#endif

/// The blocking body shared by every video job: the one place that opens the input, names the
/// output, stages it, pumps a ``VideoPlan`` into it and commits it.
///
/// ``run(input:output:maxPixels:rawFrameRate:plan:cancellation:reporter:)`` is a whole job of
/// one plan (convert, send-to-windows, GIF, audio). A job of several passes calls
/// ``pass(_:input:destination:cancellation:progress:)`` per plan, measures each, and commits
/// the one it keeps with ``commit(_:output:reporter:)``.
enum VideoJob {
    static func run(
        input: String, output: OutputLocation, maxPixels: Int, rawFrameRate: Double? = nil,
        plan makePlan: (MediaSnapshot) throws(ConvertError) -> VideoPlan,
        cancellation: CancellationFlag, reporter: ProgressReporter
    ) throws(ConvertError) -> JobResult {
        FFmpegLogging.configure()
        reporter.report(.probing, 0)
        let demuxer = try Demuxer(
            path: input, cancellation: cancellation, maxPixels: maxPixels, rawFrameRate: rawFrameRate)
        let media = MediaSnapshot(demuxer)
        let plan = try makePlan(media)
        try cancellation.check()
        let destination = try self.destination(input: input, output: output, format: plan.format)
        let progress = PassProgress(stage: plan.isPassthrough ? .remuxing : .encoding, to: 0.98)
        let pass = try self.pass(
            plan, demuxer: demuxer, destination: destination, cancellation: cancellation,
            progress: progress.callback(reporter), flushWhileWriting: true)
        let file = try commit(pass, output: output, reporter: reporter)
        return result(input: input, file: file, pass: pass, plan: plan, media: media)
    }

    /// The path `input`'s output in `format` goes to, numbered around names already taken.
    static func destination(input: String, output: OutputLocation, format: OutputFormat) throws(ConvertError) -> String
    {
        try OutputNamer.destination(
            input: input, explicitPath: output.path, directory: output.directory, overwrite: output.overwrite,
            pathExtension: format.fileExtension)[0]
    }

    /// Runs `plan` from a freshly opened `input` into a staged output next to `destination`.
    static func pass(
        _ plan: VideoPlan, input: String, destination: String, cancellation: CancellationFlag,
        watch: (any EncodeWatch)? = nil, progress: @escaping (Double) -> Void
    ) throws(ConvertError) -> VideoPass {
        let demuxer = try Demuxer(
            path: input, cancellation: cancellation, maxPixels: plan.maxPixels,
            rawFrameRate: plan.rawFrameRate)
        return try pass(
            plan, demuxer: demuxer, destination: destination, cancellation: cancellation, watch: watch,
            progress: progress)
    }

    /// Runs `plan` from `demuxer` (unread) into a staged output next to `destination`; the stage
    /// is removed if the pump fails or is cancelled. With `flushWhileWriting` (a pass that is the
    /// output, not a measuring pass that may be thrown away), the staged file is flushed to the
    /// disk as it grows (``WriteBehind``), so the commit's sync has little left to wait for.
    static func pass(
        _ plan: VideoPlan, demuxer: Demuxer, destination: String, cancellation: CancellationFlag,
        watch: (any EncodeWatch)? = nil, progress: @escaping (Double) -> Void, flushWhileWriting: Bool = false
    ) throws(ConvertError) -> VideoPass {
        let staged = try StagedOutput(destination: destination)
        let muxer = try Muxer(format: plan.format.muxer, temporaryPath: staged.temporaryPath, path: destination)
        let writeBehind = flushWhileWriting ? WriteBehind(path: staged.temporaryPath) : nil
        defer { writeBehind?.finish() }
        let pump = try FramePump(
            demuxer: demuxer, muxer: muxer, plan: plan, cancellation: cancellation, watch: watch,
            progress: progress, writeBehind: writeBehind)
        try pump.run()
        if let trailer = plan.trailer { try append(trailer, to: staged.temporaryPath, destination: destination) }
        return VideoPass(
            staged: staged, removedLocationTags: pump.removedLocationTags, damagedPackets: pump.damagedPackets,
            laneNotes: pump.notes)
    }

    /// Appends `bytes` to the finished file at `path` (the staged output of `destination`).
    private static func append(_ bytes: [UInt8], to path: String, destination: String) throws(ConvertError) {
        let descriptor = open(path, O_WRONLY | O_APPEND)
        guard descriptor >= 0 else { throw .fileSystem(errno, action: "write", path: destination) }
        defer { close(descriptor) }
        if let code = RawFile.write(bytes[...], to: descriptor) {
            throw .fileSystem(code, action: "write", path: destination)
        }
    }

    /// Moves the pass's file into place.
    static func commit(_ pass: VideoPass, output: OutputLocation, reporter: ProgressReporter) throws(ConvertError)
        -> OutputFile
    {
        reporter.report(.writing, 0.99)
        // A name chosen before the pass may be taken by a concurrent job by now: number around it.
        return try pass.staged.commit(
            overwrite: output.overwrite, renumber: output.path == nil || output.mayRenumber, gate: output.placementGate)
    }

    /// A one-plan job's result: the plan's and the lanes' notes, then what happened to the tags.
    static func result(input: String, file: OutputFile, pass: VideoPass, plan: VideoPlan, media: MediaSnapshot)
        -> JobResult
    {
        var notes = plan.notes + pass.laneNotes
        let tags = tagOutcome(
            pass: pass, keepLocation: plan.keepLocation, keepIdentifiers: plan.keepIdentifiers, media: media)
        if tags.location == .removed { notes.append("location removed") }
        if let damaged = pass.damagedNote { notes.append(damaged) }
        return JobResult(inputPath: input, outputs: [file], notes: notes + tags.notes, location: tags.location)
    }

    /// What a pass did with the source's location and identifying tags, the one rule every video
    /// job (convert, send-to-windows, compress) reports by: the location is removed when the pump
    /// left location tags out, kept when the plan kept tags that the source had.
    /// `notes` holds "location kept" and "serial numbers and owner name removed"; a removed
    /// location's note is the caller's to place.
    static func tagOutcome(
        pass: VideoPass, keepLocation: Bool, keepIdentifiers: Bool, media: MediaSnapshot
    ) -> (notes: [String], location: LocationOutcome) {
        var notes: [String] = []
        let keptLocation = keepLocation && media.tags.contains(where: { Metadata.isLocation($0.key) })
        if keptLocation { notes.append("location kept") }
        if !keepIdentifiers && media.tags.contains(where: { Metadata.isIdentifying($0.key) }) {
            notes.append("serial numbers and owner name removed")
        }
        let location: LocationOutcome = keptLocation ? .kept : pass.removedLocationTags > 0 ? .removed : .noneFound
        return (notes, location)
    }
}
