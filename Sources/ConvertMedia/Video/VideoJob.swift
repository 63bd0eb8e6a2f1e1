import ConvertCore

/// The blocking body shared by every video job.
enum VideoJob {
    static func run(
        input: String, output: OutputLocation, maxPixels: Int, rawFrameRate: Double? = nil,
        plan makePlan: (MediaSnapshot) throws(ConvertError) -> VideoPlan,
        cancellation: CancellationFlag, reporter: ProgressReporter
    ) throws(ConvertError) -> JobResult {
        FFmpegLogging.configure()
        reporter.report(.probing, 0)
        let demuxer = try Demuxer(path: input, cancellation: cancellation, maxPixels: maxPixels, rawFrameRate: rawFrameRate)
        let media = MediaSnapshot(demuxer)
        let plan = try makePlan(media)
        try cancellation.check()
        let destination = try OutputNamer.destination(
            input: input, explicitPath: output.path, directory: output.directory, overwrite: output.overwrite,
            pathExtension: plan.format.fileExtension)[0]
        let staged = try StagedOutput(destination: destination)
        let removedTags: Int
        let damaged: Int
        let laneNotes: [String]
        do {
            let muxer = try Muxer(format: plan.format.muxer, temporaryPath: staged.temporaryPath, path: destination)
            let stage: JobStage = plan.isPassthrough ? .remuxing : .encoding
            let pump = try FramePump(demuxer: demuxer, muxer: muxer, plan: plan, cancellation: cancellation) { fraction in
                reporter.report(stage, fraction * 0.98)
            }
            try pump.run()
            removedTags = pump.removedLocationTags
            laneNotes = pump.notes
            damaged = pump.damagedPackets
        }
        reporter.report(.writing, 0.99)
        // A name chosen here may be taken by a concurrent job before this commit: number around it.
        let file = try staged.commit(overwrite: output.overwrite, renumber: output.path == nil || output.mayRenumber)
        var notes = plan.notes + laneNotes
        if removedTags > 0 { notes.append("location removed") }
        if damaged > 0 { notes.append("\(damaged) damaged packet\(damaged == 1 ? "" : "s") skipped") }
        let keptLocation = plan.keepLocation && media.tags.contains(where: { Metadata.isLocation($0.key) })
        if keptLocation { notes.append("location kept") }
        if !plan.keepIdentifiers && media.tags.contains(where: { Metadata.isIdentifying($0.key) }) {
            notes.append("serial numbers and owner name removed")
        }
        let location: LocationOutcome = keptLocation ? .kept : removedTags > 0 ? .removed : .noneFound
        return JobResult(inputPath: input, outputs: [file], notes: notes, location: location)
    }
}
