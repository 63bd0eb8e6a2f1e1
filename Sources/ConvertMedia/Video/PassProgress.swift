import ConvertCore

/// Where a pass's progress goes: a stage and the part of the job's 0...1 it fills.
struct PassProgress {
    var stage: JobStage
    var from: Double = 0
    var to: Double

    /// The callback ``FramePump`` reports its 0...1 fraction to.
    func callback(_ reporter: ProgressReporter) -> (Double) -> Void {
        let (stage, from, to) = (stage, from, to)
        return { fraction in reporter.report(stage, from + fraction * (to - from)) }
    }
}
