import ConvertCore
internal import FFmpegLayer

/// The encode, in the time of one. With an ample target (the picture kept whole) the normal
/// quality (CRF 23) is encoded into the output while a ``QualityFitWatch`` projects its size:
/// when it fits, it is the output; once its packets show it cannot fit, it stops there and one
/// encode at x264's average bitrate spends the target instead. With a tight target that encode
/// runs at once, a ``PictureSizeWatch`` looking at its first frames for a picture easy enough to
/// code larger. The output is measured; only one that came out over is encoded again, at a
/// corrected bitrate.
extension VideoCompressor {
    /// Encodes at the target's bitrate allowed before giving up (the first plus two corrections).
    static let maximumTargetEncodes = 3

    static func encode(
        _ request: VideoCompressRequest, probe: VideoCompressProbe, plan: VideoSizePlanner.EncodePlan,
        cancellation: CancellationFlag, reporter: ProgressReporter
    ) throws(ConvertError) -> JobResult {
        let job = try VideoCompressEncode(request, probe: probe, plan: plan)
        var progress = PassProgress(stage: .encoding, to: 0.95)
        var quality: QualityMiss?
        if job.keepsPicture || request.alwaysTriesQuality {
            switch try qualityEncode(job, progress: progress, cancellation: cancellation, reporter: reporter) {
            case .kept(let result): return result
            case .missed(let miss, let reached):
                quality = miss
                progress.from = reached
            }
        }
        return try targetEncode(
            job, progress: progress, afterQuality: quality, cancellation: cancellation, reporter: reporter)
    }

    /// How the normal-quality encode ended.
    enum QualityOutcome {
        /// It fitted and is the output.
        case kept(JobResult)
        /// It did not fit; the job's progress got this far.
        case missed(QualityMiss, reached: Double)
    }

    /// Why the normal quality was not kept: its size, measured or projected.
    struct QualityMiss {
        var bytes: Int64
        /// The share of its frames it was projected from; nil when it ran to the end.
        var projectedFrom: Double?
    }

    /// The normal quality, encoded into the output under a ``QualityFitWatch``, at x264's
    /// `preset`; a kept one's notes say `reasons` after what it is.
    static func qualityEncode(
        _ job: VideoCompressEncode, preset: String = VideoCompressEncode.qualityPreset, reasons: [String] = [],
        progress: PassProgress,
        cancellation: CancellationFlag, reporter: ProgressReporter
    ) throws(ConvertError) -> QualityOutcome {
        let request = job.request
        let ceiling = job.plan.ceilingBytes
        let watch = QualityFitWatch(
            videoBudget: ceiling - job.plan.audioBytes - job.plan.overheadBytes,
            expectedFrames: job.expectedFrames, rateFactor: Double(qualityCRF), projects: !request.alwaysTriesQuality)
        let pass: VideoPass
        do {
            pass = try run(
                job.qualityPlan(preset: preset), job: job, watch: watch, progress: progress, cancellation: cancellation,
                reporter: reporter)
        } catch {
            // A stop of the watch's own, not the user's: the target encode takes over from here. So
            // it does when the disk filled: the normal quality may have been on its way over the
            // target, which the target encode never is, and it says device.full if that fails too.
            let watchStopped = watch.stopped && error.code == .cancelled
            guard watchStopped || error.code == .deviceFull, !cancellation.isCancelled else { throw error }
            let projected = Int64(watch.projectedBytes.rounded(.up)) + job.plan.audioBytes + job.plan.overheadBytes
            return .missed(
                QualityMiss(bytes: projected, projectedFrom: watch.fraction),
                reached: progress.from + watch.fraction * (progress.to - progress.from))
        }
        let achieved = try pass.byteCount()
        guard achieved <= ceiling else {
            pass.discard()
            return .missed(QualityMiss(bytes: achieved, projectedFrom: nil), reached: 0.5)
        }
        let notes =
            [JobNote(fact: qualityNote(job, watch: watch))] + reasons.map { JobNote(fact: $0) }
            + job.closingNotes(damaged: pass.damagedNote)
            + (job.largerThanSourceNote(achieved).map { [$0] } ?? [])
        return .kept(try commit(pass, request: request, probe: job.probe, notes: notes, reporter: reporter))
    }

    /// What the kept normal-quality encode was: CRF 23 throughout, or steered above it to fit.
    static func qualityNote(_ job: VideoCompressEncode, watch: QualityFitWatch) -> String {
        let quality = "H.264 at the normal quality (CRF \(qualityCRF)), \(job.pictureDescription)"
        guard let raisedAt = watch.firstRaisedAt else {
            return quality + ": it fits the target without spending all of it"
        }
        let highest = String(format: "%g", watch.highestSteered)
        return quality + ", eased to CRF \(highest) at most after the first \(Int((raisedAt * 100).rounded())) % "
            + "to fit the target"
    }

    /// One encode at the target's average bitrate, measured, repeated at a corrected bitrate
    /// while over (or once, raised, when a short clip came out far under: see
    /// ``filled(_:first:bitrate:progress:cancellation:reporter:)``). A tight plan whose first
    /// frames show an easy picture starts again larger; one so easy that the average bitrate
    /// leaves its bits unspent starts again at the normal quality (``PictureSizeWatch/easy``),
    /// falling back to the average bitrate when that is found not to fit.
    static func targetEncode(
        _ job: VideoCompressEncode, progress first: PassProgress, afterQuality ampleMiss: QualityMiss?,
        cancellation: CancellationFlag, reporter: ProgressReporter
    ) throws(ConvertError) -> JobResult {
        let started: TargetStart
        switch try startTarget(
            job, progress: first, afterQuality: ampleMiss, cancellation: cancellation, reporter: reporter)
        {
        case .kept(let result): return result
        case .encoded(let encoded): started = encoded
        }
        let (job, pass, bitrate, progress) = (started.job, started.pass, started.bitrate, started.progress)
        guard try pass.byteCount() > job.plan.ceilingBytes else {
            let filled = try filled(
                job, first: pass, bitrate: bitrate, progress: progress.next, cancellation: cancellation,
                reporter: reporter)
            var reasons = started.reason.map { [$0] } ?? []
            if let share = filled.firstShare {
                reasons.append(
                    "encoded again at a higher bitrate: the first encode used \(Int((share * 100).rounded())) % of the "
                        + "target (x264's average bitrate does not settle within a clip this short)")
            }
            return try keep(
                filled.pass, job: job, bitrate: filled.bitrate, attempt: 1, afterQuality: started.quality,
                reasons: reasons, reporter: reporter)
        }
        return try corrections(
            job, after: (pass, bitrate), progress: progress.next, afterQuality: started.quality,
            reason: started.reason, cancellation: cancellation, reporter: reporter)
    }

    /// The first encode at the target's bitrate, not yet measured: the encode it ran, at which
    /// size and bitrate, how far the job's progress got, the note on its size, and the normal
    /// quality's miss when one was tried.
    struct TargetStart {
        var job: VideoCompressEncode
        var pass: VideoPass
        var bitrate: Int
        var progress: PassProgress
        var reason: String?
        var quality: QualityMiss?
    }

    /// How the start of a target encode ended: a normal-quality encode that fitted (an easy
    /// picture), or an encode at the target's bitrate still to be measured.
    enum TargetStartOutcome {
        case kept(JobResult)
        case encoded(TargetStart)
    }

    /// Starts the target encode: a tight plan one height up under a ``PictureSizeWatch``, which
    /// may stop it for another size or for the normal quality (see
    /// ``restart(_:watch:progress:floorHeight:cancellation:reporter:)``).
    static func startTarget(
        _ job: VideoCompressEncode, progress: PassProgress, afterQuality quality: QualityMiss?,
        cancellation: CancellationFlag, reporter: ProgressReporter
    ) throws(ConvertError) -> TargetStartOutcome {
        let floorHeight = job.plan.height
        // A tight plan starts one height up, its first frames watched (see PictureSizeWatch); not
        // a clip too short for the watch to sample it well.
        let watched = quality == nil && job.expectedFrames >= 4 * PictureSizeWatch.minimumSample
        let job = watched ? job.oneHeightLarger ?? job : job
        let bitrate = max(Int(Double(job.plan.videoBitrate) * job.request.firstBitrateFactor), 1)
        let watch = quality == nil ? PictureSizeWatch(job, floorHeight: floorHeight) : nil
        do {
            let pass = try run(
                job.targetPlan(bitrate: bitrate), job: job, watch: watch, progress: progress,
                cancellation: cancellation, reporter: reporter)
            let reason = watch?.sampled.flatMap { sampled in
                job.plan.height > floorHeight ? keptReason(job, floorHeight: floorHeight, sampled: sampled) : nil
            }
            return .encoded(
                TargetStart(
                    job: job, pass: pass, bitrate: bitrate, progress: progress, reason: reason, quality: quality))
        } catch {
            guard let watch, watch.stopped, !cancellation.isCancelled, error.code == .cancelled else { throw error }
            return try restart(
                job, watch: watch, progress: progress, floorHeight: floorHeight, cancellation: cancellation,
                reporter: reporter)
        }
    }

    /// What follows a target encode `watch` stopped after its first frames: the normal quality
    /// for a picture found easy (kept when it fits), else one encode at the target's bitrate, at
    /// the size the watch found.
    static func restart(
        _ stopped: VideoCompressEncode, watch: PictureSizeWatch, progress first: PassProgress, floorHeight: Int,
        cancellation: CancellationFlag, reporter: ProgressReporter
    ) throws(ConvertError) -> TargetStartOutcome {
        var (job, progress, reason, quality) = (stopped, first, String?.none, QualityMiss?.none)
        progress.from += watch.fraction * (progress.to - progress.from)
        if let resized = watch.resized {
            reason = resizedReason(resized, from: job)
            job = resized.job
        } else if let sampled = watch.sampled, job.plan.height > floorHeight {
            reason = keptReason(job, floorHeight: floorHeight, sampled: sampled)
        }
        if watch.easy, let sampled = watch.sampled {
            let reasons = (reason.map { [$0] } ?? []) + [easyReason(spentShare: sampled.spentShare)]
            switch try qualityEncode(
                job, preset: VideoCompressEncode.easyPreset, reasons: reasons, progress: progress,
                cancellation: cancellation, reporter: reporter)
            {
            case .kept(let result): return .kept(result)
            case .missed(let miss, let reached):
                quality = miss
                progress.from = reached
            }
        }
        let bitrate = max(Int(Double(job.plan.videoBitrate) * job.request.firstBitrateFactor), 1)
        let pass = try run(
            job.targetPlan(bitrate: bitrate), job: job, progress: progress, cancellation: cancellation,
            reporter: reporter)
        return .encoded(
            TargetStart(job: job, pass: pass, bitrate: bitrate, progress: progress, reason: reason, quality: quality))
    }

    /// How x264 coded the sampled first frames, for a note: "quantizer 38 on its 0-51 scale, lower
    /// is finer", with the share of their bits when they left over half unspent.
    static func codedAt(quantizer: Double, spentShare: Double) -> String {
        "quantizer \(min(Int(quantizer.rounded()), 51)) on its 0-51 scale, lower is finer"
            + (spentShare <= underspentShare ? ", spending \(Int((spentShare * 100).rounded())) % of their bits" : "")
    }

    /// The note of an encode started again at another size: larger for an easy picture, smaller
    /// for a hard one.
    static func resizedReason(_ resized: PictureSizeWatch.Resized, from job: VideoCompressEncode) -> String {
        let coded = codedAt(quantizer: resized.quantizer, spentShare: resized.spentShare)
        let size =
            "made \(resized.job.plan.width)x\(resized.job.plan.height) rather than \(job.plan.width)x\(job.plan.height)"
        let expected = Int(resized.predicted.rounded())
        guard resized.grows else {
            return size + ": its first frames show the picture is hard to code at the larger size (x264 coded them at "
                + coded + "; the smaller size is expected at \(expected)"
                + (resized.predicted > easiestQuantizer ? ", the smallest the bits per pixel allow)" : ")")
        }
        return size + ": its first frames show the picture is easy to code (x264 coded them at " + coded
            + "; the larger size is expected at \(expected), still under the \(Int(easiestQuantizer)) where a larger "
            + "picture stops looking better)"
    }

    /// The note of a tight target's encode made at the normal quality because its first frames
    /// showed the picture easy.
    static func easyReason(spentShare: Double) -> String {
        "made at the normal quality (x264 \(VideoCompressEncode.easyPreset)) rather than at the target's average "
            + "bitrate: its first frames show a picture so easy that the average bitrate codes it coarser and leaves "
            + "bits unspent (they took \(Int((spentShare * 100).rounded())) % of theirs)"
    }

    /// The note of a tight encode kept at the size one height up it started at.
    static func keptReason(
        _ job: VideoCompressEncode, floorHeight: Int, sampled: (quantizer: Double, spentShare: Double)
    ) -> String {
        "made \(job.plan.width)x\(job.plan.height), one size above what its bits per pixel chose (\(floorHeight) "
            + "lines): its first frames show the picture is easy enough to code there (x264 coded them at "
            + codedAt(quantizer: sampled.quantizer, spentShare: sampled.spentShare) + ", at most "
            + "\(Int(easiestQuantizer)))"
    }

    /// Encodes again at a bitrate corrected by what the over-target `previous` measured, until
    /// one fits or ``maximumTargetEncodes`` have run.
    static func corrections(
        _ job: VideoCompressEncode, after previous: (pass: VideoPass, bitrate: Int), progress first: PassProgress,
        afterQuality quality: QualityMiss?, reason: String?, cancellation: CancellationFlag,
        reporter: ProgressReporter
    ) throws(ConvertError) -> JobResult {
        let request = job.request
        let ceiling = job.plan.ceilingBytes
        var (pass, bitrate) = previous
        var progress = first
        progress.stage = .retrying
        for attempt in 2...maximumTargetEncodes {
            let achieved = try pass.byteCount()
            let budget: VideoSizePlanner.EncodePlan
            do { budget = try measuredBudget(job, encoded: pass.temporaryPath, cancellation: cancellation) } catch {
                pass.discard()
                throw error
            }
            pass.discard()
            bitrate = VideoSizePlanner.correctedBitrate(
                previous: bitrate, achievedBytes: achieved, targetBytes: ceiling,
                fixedBytes: budget.audioBytes + budget.overheadBytes)
            pass = try run(
                job.targetPlan(bitrate: bitrate), job: job, progress: progress, cancellation: cancellation,
                reporter: reporter)
            if try pass.byteCount() <= ceiling {
                return try keep(
                    pass, job: job, bitrate: bitrate, attempt: attempt, afterQuality: quality,
                    reasons: reason.map { [$0] } ?? [], reporter: reporter)
            }
            progress = progress.next
        }
        pass.discard()
        throw ConvertError(
            code: .internalTargetOvershoot,
            message: "\(request.input) came out over the target \(maximumTargetEncodes) times; nothing was written.",
            path: request.input)
    }

    /// Runs one encode of `job` into its staged output, under `watch` when given, its packets
    /// counted in the request's ``EncodeLog`` whether it ends, stops or fails.
    static func run(
        _ plan: VideoPlan, job: VideoCompressEncode, watch: (any EncodeWatch)? = nil, progress: PassProgress,
        cancellation: CancellationFlag, reporter: ProgressReporter
    ) throws(ConvertError) -> VideoPass {
        let counting = CountingWatch(watch)
        defer { job.request.encodeLog?.record(counting.packets) }
        return try VideoJob.pass(
            plan, input: job.request.input, destination: job.destination, cancellation: cancellation,
            watch: counting, progress: progress.callback(reporter))
    }

    /// The plan with the encoded audio's measured size in place of its estimate, read from the
    /// encode at `path` (FFmpeg's AAC encoder misses low bitrates by up to 45 %, and it is
    /// deterministic, so the next encode produces the very same packets).
    static func measuredBudget(
        _ job: VideoCompressEncode, encoded path: String,
        cancellation: CancellationFlag
    ) throws(ConvertError) -> VideoSizePlanner.EncodePlan {
        guard job.audioLanes.contains(where: { !$0.isCopy }) else { return job.plan }
        let demuxer = try Demuxer(path: path, cancellation: cancellation)
        let audio = try StreamPayload.measure(1, in: demuxer, cancellation: cancellation)
        return VideoSizePlanner.rebudget(job.plan, measuredAudioBytes: audio.bytes, duration: job.probe.source.duration)
    }

    /// Commits a target encode that fitted, with its notes.
    static func keep(
        _ pass: VideoPass, job: VideoCompressEncode, bitrate: Int, attempt: Int, afterQuality quality: QualityMiss?,
        reasons: [String], reporter: ProgressReporter
    ) throws(ConvertError) -> JobResult {
        var notes = [JobNote(fact: "H.264 at \(bitrate / 1000) kb/s, \(job.pictureDescription)")]
        notes += reasons.map { JobNote(fact: $0) }
        if let quality {
            let size = job.request.unit.format(quality.bytes, rounding: .up)
            let over = job.plan.ceilingBytes < job.request.targetBytes ? "over the input's own size" : "over the target"
            if let share = quality.projectedFrom {
                notes.append(
                    "the normal quality (CRF \(qualityCRF)) would come out at about \(size) (projected from its first "
                        + "\(Int((share * 100).rounded(.up))) % of frames), \(over)")
            } else {
                notes.append("the normal quality (CRF \(qualityCRF)) came out at \(size), \(over)")
            }
        }
        notes += job.closingNotes(damaged: pass.damagedNote)
        if let larger = job.largerThanSourceNote(try pass.byteCount()) { notes.append(larger) }
        if attempt > 1 {
            notes.append("encoded again \(attempt - 1) time\(attempt == 2 ? "" : "s") at a lower bitrate")
        }
        return try commit(pass, request: job.request, probe: job.probe, notes: notes, reporter: reporter)
    }
}

extension PassProgress {
    /// The span after this one: from its end, four fifths of the way to 0.98, so a run of
    /// retries never reaches the commit's 0.99.
    var next: PassProgress {
        PassProgress(stage: stage, from: to, to: to + (0.98 - to) * 0.8)
    }
}
