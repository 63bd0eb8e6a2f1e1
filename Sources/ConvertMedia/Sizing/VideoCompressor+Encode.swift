import ConvertCore
internal import FFmpegLayer

/// The encode. With an ample target (the picture kept whole), the normal quality is encoded
/// first, writing x264's pass-1 statistics as it goes: when it fits, it is the output after one
/// encode; otherwise pass 2 follows at the target's bitrate. With a tight target, a fast pass 1
/// at the planned bitrate, then pass 2. Each pass is a ``VideoPlan`` from ``VideoCompressEncode``
/// run by ``VideoJob``; here it is measured and kept or discarded.
extension VideoCompressor {
    static func encode(
        _ request: VideoCompressRequest, probe: VideoCompressProbe, plan: VideoSizePlanner.EncodePlan,
        cancellation: CancellationFlag, reporter: ProgressReporter
    ) throws(ConvertError) -> JobResult {
        let job = try VideoCompressEncode(request, probe: probe, plan: plan)
        defer { job.stats.remove() }
        let qualityFirst = job.keepsPicture || request.alwaysTriesQuality
        // The quality encode is a whole encode at x264's medium; the fast pass 1 a fraction of one.
        let firstShare = qualityFirst ? 0.5 : 0.3
        let firstProgress = PassProgress(stage: .pass(1, of: 2), to: firstShare).callback(reporter)
        let second = PassProgress(stage: .pass(2, of: 2), from: firstShare, to: 0.95)
        guard qualityFirst else {
            return try tightEncode(
                job, firstShare: firstShare, second: second, cancellation: cancellation, reporter: reporter)
        }
        // The target is a ceiling: when the normal quality fits, that is the output.
        let pass = try VideoJob.pass(
            job.qualityPlan, input: request.input, destination: job.destination,
            cancellation: cancellation, progress: firstProgress)
        let achieved = try pass.byteCount()
        if achieved <= request.targetBytes {
            let notes =
                [
                    JobNote(
                        fact: "H.264 at the normal quality (CRF \(qualityCRF)), \(job.pictureDescription): "
                            + "it fits the target without spending all of it")
                ] + job.closingNotes(damaged: pass.damagedNote)
            return try commit(pass, request: request, probe: probe, notes: notes, reporter: reporter)
        }
        let budget: VideoSizePlanner.EncodePlan
        do { budget = try measuredBudget(job, encoded: pass.temporaryPath, cancellation: cancellation) } catch {
            pass.discard()
            throw error
        }
        pass.discard()
        return try secondPasses(
            job, budget: budget, afterQualityOf: achieved, progress: second,
            cancellation: cancellation, reporter: reporter)
    }

    /// Runs the fast pass 1 (statistics, at the planned bitrate) into an MP4 with the output's
    /// audio; returns the plan with that audio's measured size (see ``measuredBudget(_:encoded:cancellation:)``).
    static func firstPass(
        _ job: VideoCompressEncode, cancellation: CancellationFlag,
        progress: @escaping (Double) -> Void
    ) throws(ConvertError) -> VideoSizePlanner.EncodePlan {
        try measuredPass(job, plan: job.firstPassPlan, cancellation: cancellation, progress: progress).budget
    }

    /// Runs `plan` (a pass that is never kept) and returns its size and the budget with its
    /// audio's measured size.
    static func measuredPass(
        _ job: VideoCompressEncode, plan: VideoPlan, cancellation: CancellationFlag,
        progress: @escaping (Double) -> Void
    ) throws(ConvertError) -> (bytes: Int64, budget: VideoSizePlanner.EncodePlan) {
        let pass = try VideoJob.pass(
            plan, input: job.request.input, destination: job.destination,
            cancellation: cancellation, progress: progress)
        defer { pass.discard() }
        return (try pass.byteCount(), try measuredBudget(job, encoded: pass.temporaryPath, cancellation: cancellation))
    }

    /// The plan with the encoded audio's measured size in place of its estimate, read from the
    /// pass at `path` (FFmpeg's AAC encoder misses low bitrates by up to 45 %, and it is
    /// deterministic, so the later passes produce the very same packets).
    static func measuredBudget(
        _ job: VideoCompressEncode, encoded path: String,
        cancellation: CancellationFlag
    ) throws(ConvertError) -> VideoSizePlanner.EncodePlan {
        guard job.audioLanes.contains(where: { !$0.isCopy }) else { return job.plan }
        let demuxer = try Demuxer(path: path, cancellation: cancellation)
        let audio = try StreamPayload.measure(1, in: demuxer, cancellation: cancellation)
        return VideoSizePlanner.rebudget(job.plan, measuredAudioBytes: audio.bytes, duration: job.probe.source.duration)
    }

    /// Pass 2 at the budget's bitrate, measured, repeated at a corrected bitrate while over.
    static func secondPasses(
        _ job: VideoCompressEncode, budget: VideoSizePlanner.EncodePlan, afterQualityOf qualityBytes: Int64?,
        progress first: PassProgress, cancellation: CancellationFlag,
        reporter: ProgressReporter, reason: String? = nil
    ) throws(ConvertError) -> JobResult {
        let request = job.request
        var bitrate = max(Int(Double(budget.videoBitrate) * request.firstBitrateFactor), 1)
        var progress = first
        for attempt in 1...maximumSecondPasses {
            progress.stage = attempt == 1 ? .pass(2, of: 2) : JobStage("retry")
            let pass = try VideoJob.pass(
                job.secondPassPlan(bitrate: bitrate), input: request.input, destination: job.destination,
                cancellation: cancellation, progress: progress.callback(reporter))
            let achieved = try pass.byteCount()
            if achieved <= request.targetBytes {
                var notes = secondPassNotes(
                    job, bitrate: bitrate, attempt: attempt, afterQualityOf: qualityBytes,
                    damaged: pass.damagedNote)
                if let reason { notes.insert(JobNote(fact: reason), at: 1) }
                return try commit(pass, request: request, probe: job.probe, notes: notes, reporter: reporter)
            }
            pass.discard()
            bitrate = VideoSizePlanner.correctedBitrate(
                previous: bitrate, achievedBytes: achieved, targetBytes: request.targetBytes,
                fixedBytes: budget.audioBytes + budget.overheadBytes)
            progress = progress.next
        }
        throw ConvertError(
            code: .internalTargetOvershoot,
            message: "\(request.input) came out over the target \(maximumSecondPasses) times; nothing was written.",
            path: request.input)
    }

    /// The notes of a kept pass 2: its bitrate and picture, why the normal quality was not kept,
    /// and how many times it was repeated.
    static func secondPassNotes(
        _ job: VideoCompressEncode, bitrate: Int, attempt: Int, afterQualityOf qualityBytes: Int64?,
        damaged: String?
    ) -> [JobNote] {
        var notes = [JobNote(fact: "2-pass H.264 at \(bitrate / 1000) kb/s, \(job.pictureDescription)")]
        if let qualityBytes {
            notes.append(
                "the normal quality (CRF \(qualityCRF)) came out at \(job.request.unit.format(qualityBytes, rounding: .up)), "
                    + "over the target")
        }
        notes += job.closingNotes(damaged: damaged)
        if attempt > 1 {
            notes.append("pass 2 repeated \(attempt - 1) time\(attempt == 2 ? "" : "s") at a lower bitrate")
        }
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
