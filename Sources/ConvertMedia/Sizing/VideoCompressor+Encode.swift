import ConvertCore

/// The encode: pass 1, the normal quality when it may fit, else pass 2 up to the target. Each
/// pass is a ``VideoPlan`` from ``VideoCompressEncode`` run by ``VideoJob``; here it is measured
/// and kept or discarded.
extension VideoCompressor {
    static func encode(_ request: VideoCompressRequest, probe: VideoCompressProbe, plan: VideoSizePlanner.EncodePlan,
                       cancellation: CancellationFlag, reporter: ProgressReporter) throws(ConvertError) -> JobResult {
        let job = try VideoCompressEncode(request, probe: probe, plan: plan)
        defer { job.stats.remove() }
        let firstShare = 0.3
        let (firstBytes, budget) = try firstPass(job, cancellation: cancellation,
                                                 progress: PassProgress(stage: .pass(1, of: 2), to: firstShare).callback(reporter))
        var progress = PassProgress(stage: .pass(2, of: 2), from: firstShare, to: 0.95)
        var qualityOvershoot: Int64?
        // The target is a ceiling: when the normal quality fits, that is the output. The first
        // pass only estimates its size, so it is tried whenever it might fit.
        let fixed = budget.audioBytes + budget.overheadBytes
        let mightFit = job.keepsPicture && Double(fixed) + Double(max(firstBytes - fixed, 0)) * qualityMargin <= Double(request.targetBytes)
        if mightFit || request.alwaysTriesQuality {
            let pass = try VideoJob.pass(job.qualityPlan, input: request.input, destination: job.destination,
                                         cancellation: cancellation, progress: progress.callback(reporter))
            let achieved = try pass.byteCount()
            if achieved <= request.targetBytes {
                let notes = ["H.264 at the normal quality (CRF \(qualityCRF)), \(job.pictureDescription): "
                             + "it fits the target without spending all of it"] + job.closingNotes(damaged: pass.damagedNote)
                return try commit(pass, request: request, probe: probe, notes: notes, reporter: reporter)
            }
            pass.discard()
            qualityOvershoot = achieved
            progress = progress.next
        }
        return try secondPasses(job, budget: budget, afterQualityOf: qualityOvershoot, progress: progress,
                                cancellation: cancellation, reporter: reporter)
    }

    /// Runs pass 1 (normal quality, statistics) into an MP4 with the output's audio; returns its
    /// size and the plan with the encoded audio's measured size in place of its estimate
    /// (FFmpeg's AAC encoder misses low bitrates by up to 45 %, and it is deterministic, so the
    /// later passes produce the very same packets).
    static func firstPass(_ job: VideoCompressEncode, cancellation: CancellationFlag,
                          progress: @escaping (Double) -> Void) throws(ConvertError) -> (Int64, VideoSizePlanner.EncodePlan) {
        let pass = try VideoJob.pass(job.firstPassPlan, input: job.request.input, destination: job.destination,
                                     cancellation: cancellation, progress: progress)
        defer { pass.discard() }
        let bytes = try pass.byteCount()
        guard job.audioLanes.contains(where: { !$0.isCopy }) else { return (bytes, job.plan) }
        let demuxer = try Demuxer(path: pass.temporaryPath, cancellation: cancellation)
        let audio = try StreamPayload.measure(1, in: demuxer, cancellation: cancellation)
        return (bytes, VideoSizePlanner.rebudget(job.plan, measuredAudioBytes: audio.bytes, duration: job.probe.source.duration))
    }

    /// Pass 2 at the budget's bitrate, measured, repeated at a corrected bitrate while over.
    static func secondPasses(_ job: VideoCompressEncode, budget: VideoSizePlanner.EncodePlan, afterQualityOf qualityBytes: Int64?,
                             progress first: PassProgress, cancellation: CancellationFlag,
                             reporter: ProgressReporter) throws(ConvertError) -> JobResult {
        let request = job.request
        var bitrate = max(Int(Double(budget.videoBitrate) * request.firstBitrateFactor), 1)
        var progress = first
        for attempt in 1...maximumSecondPasses {
            progress.stage = attempt == 1 && qualityBytes == nil ? .pass(2, of: 2) : JobStage("retry")
            let pass = try VideoJob.pass(job.secondPassPlan(bitrate: bitrate), input: request.input, destination: job.destination,
                                         cancellation: cancellation, progress: progress.callback(reporter))
            let achieved = try pass.byteCount()
            if achieved <= request.targetBytes {
                let notes = secondPassNotes(job, bitrate: bitrate, attempt: attempt, afterQualityOf: qualityBytes,
                                            damaged: pass.damagedNote)
                return try commit(pass, request: request, probe: job.probe, notes: notes, reporter: reporter)
            }
            pass.discard()
            bitrate = VideoSizePlanner.correctedBitrate(previous: bitrate, achievedBytes: achieved, targetBytes: request.targetBytes,
                                                        fixedBytes: budget.audioBytes + budget.overheadBytes)
            progress = progress.next
        }
        throw ConvertError(.internal, code: .internalTargetOvershoot,
                           message: "\(request.input) came out over the target \(maximumSecondPasses) times; nothing was written.",
                           path: request.input)
    }

    /// The notes of a kept pass 2: its bitrate and picture, why the normal quality was not kept,
    /// and how many times it was repeated.
    static func secondPassNotes(_ job: VideoCompressEncode, bitrate: Int, attempt: Int, afterQualityOf qualityBytes: Int64?,
                                damaged: String?) -> [String] {
        var notes = ["2-pass H.264 at \(bitrate / 1000) kb/s, \(job.pictureDescription)"]
        if let qualityBytes {
            notes.append("the normal quality (CRF \(qualityCRF)) came out at \(job.request.unit.format(qualityBytes, rounding: .up)), "
                         + "over the target")
        }
        notes += job.closingNotes(damaged: damaged)
        if attempt > 1 { notes.append("pass 2 repeated \(attempt - 1) time\(attempt == 2 ? "" : "s") at a lower bitrate") }
        return notes
    }
}

extension PassProgress {
    /// The span after this one: from its end, four fifths of the way to 0.98, so a run of
    /// retries never reaches the commit's 0.99.
    var next: PassProgress {
        PassProgress(stage: stage, from: to, to: to + (0.98 - to) * 0.8)
    }
}
