import ConvertCore
internal import FFmpegLayer

/// The blocking body of ``VideoConverter/compress(_:limits:)``: what is specific to a size target.
///
/// It probes the input (``VideoCompressProbe``), lets ``VideoSizePlanner`` choose (copy, copy the
/// picture with new sound, or encode), turns that choice into ``VideoPlan``s and runs each
/// through ``VideoJob``'s pipeline, the one convert uses. What stays here is watching and
/// measuring each encode and deciding the next: a copy over the target becomes an encode; an
/// encode is the normal quality when the target is ample, stopped as soon as its projected size
/// shows it cannot fit, else one encode at the budget's average bitrate, retried while over.
enum VideoCompressor {
    /// The normal quality: `send-to-windows`'s x264 CRF (``VideoPlanner``'s H.264 default).
    static let qualityCRF = 23
    static func run(_ request: VideoCompressRequest, cancellation: CancellationFlag, reporter: ProgressReporter)
        throws(ConvertError) -> JobResult
    {
        FFmpegLogging.configure()
        try checkTarget(request)
        reporter.report(.probing, 0)
        let probe = try VideoCompressProbe(request, cancellation: cancellation)
        try cancellation.check()
        var source = probe.source
        while true {
            switch VideoSizePlanner.plan(source: source, targetBytes: request.targetBytes, maxHeight: request.maxHeight)
            {
            case .failure(let impossible):
                throw unreachable(request, smallestReachableBytes: impossible.smallestReachableBytes)
            case .success(.remux):
                if let result = try copy(
                    request, probe: probe, audio: probe.audio, cancellation: cancellation, reporter: reporter)
                {
                    return result
                }
                // The remuxed file came out over the target (a bigger index than the source's):
                // plan an encode instead.
                source.isCopyCompatible = false
                source.isVideoCopyCompatible = false
            case .success(.copyVideo(let audio)):
                let lane = probe.audio.flatMap { encodedAudioLane($0, plan: audio) }
                if let result = try copy(
                    request, probe: probe, audio: lane, cancellation: cancellation, reporter: reporter)
                {
                    return result
                }
                // The new sound made it too big: encode the picture too.
                source.isVideoCopyCompatible = false
            case .success(.encode(let plan)):
                try probe.checkPixels(path: request.input)
                return try encode(request, probe: probe, plan: plan, cancellation: cancellation, reporter: reporter)
            }
        }
    }

    /// Refuses a target of no bytes.
    static func checkTarget(_ request: VideoCompressRequest) throws(ConvertError) {
        guard request.targetBytes > 0 else {
            throw ConvertError(code: .requestTarget, message: "The target size must be more than 0 bytes.")
        }
    }

    /// The error for a target below the smallest reachable size, both in the target's unit
    /// (rounded the safe way: the target down, the smallest size up).
    static func unreachable(_ request: VideoCompressRequest, smallestReachableBytes: Int64) -> ConvertError {
        ConvertError(
            code: .requestTargetTooSmall,
            message:
                "\(request.input) cannot be compressed to \(request.unit.format(request.targetBytes, rounding: .down)): "
                + "the smallest it can reach is \(request.unit.format(smallestReachableBytes, rounding: .up)).",
            path: request.input)
    }

    /// ``VideoConverter/previewCompression(_:limits:)``: the probe and the plan, nothing written.
    static func preview(_ request: VideoCompressRequest, cancellation: CancellationFlag) throws(ConvertError)
        -> VideoCompressPreview
    {
        FFmpegLogging.configure()
        try checkTarget(request)
        let probe = try VideoCompressProbe(request, cancellation: cancellation)
        let source = probe.source
        let action: VideoCompressPreview.Action
        switch VideoSizePlanner.plan(source: source, targetBytes: request.targetBytes, maxHeight: request.maxHeight) {
        case .success(.remux): action = .copy
        case .success(.copyVideo(let audio)): action = .copyVideo(audio: audio)
        case .success(.encode(let plan)):
            try probe.checkPixels(path: request.input)
            action = .encode(plan)
        case .failure(let impossible): action = .unreachable(smallestReachableBytes: impossible.smallestReachableBytes)
        }
        return VideoCompressPreview(
            action: action, sourceBytes: source.fileBytes, duration: source.duration,
            sourceFrameRate: source.frameRate, sourceWidth: source.width, sourceHeight: source.height,
            slowMotion: probe.flattening?.info)
    }

    // MARK: - Copy

    /// The source's audio lane encoded to AAC as `plan` says; nil when the plan has no encoded audio.
    static func encodedAudioLane(_ lane: LanePlan, plan: VideoSizePlanner.AudioPlan) -> LanePlan? {
        guard case .encode(let bitrate, let channels) = plan else { return nil }
        return .audio(
            lane.stream,
            AudioEncoding(encoder: "aac", sampleRate: nil, channels: Int32(channels), bitRate: Int64(bitrate)))
    }

    /// Copies the video, and the audio lane given (copied or encoded), into an MP4; nil (and
    /// nothing written) when the result is over the target.
    static func copy(
        _ request: VideoCompressRequest, probe: VideoCompressProbe, audio: LanePlan?, cancellation: CancellationFlag,
        reporter: ProgressReporter
    ) throws(ConvertError) -> JobResult? {
        let format = OutputFormat.video(.mp4)
        let plan = probe.plan(
            format, lanes: [.copy(probe.video)] + (audio.map { [$0] } ?? []), keepLocation: request.keepLocation)
        let destination = try VideoJob.destination(input: request.input, output: request.output, format: format)
        let pass = try VideoJob.pass(
            plan, input: request.input, destination: destination, cancellation: cancellation,
            progress: PassProgress(stage: .remuxing, to: 0.95).callback(reporter))
        guard try pass.byteCount() <= request.targetBytes else {
            pass.discard()
            return nil
        }
        var notes: [JobNote]
        switch audio {
        case .audio(_, let encoding)?:
            notes = JobNote.facts([
                "already under the target: video copied without re-encoding",
                "audio re-encoded to AAC at \((encoding.bitRate ?? 0) / 1000) kb/s (MP4 cannot carry the original)",
            ])
        case nil:
            notes = [JobNote(fact: "already under the target: video copied without re-encoding")]
        default:
            notes = [JobNote(fact: "already under the target: video and audio copied without re-encoding")]
        }
        // A copy is never flattened: what it says of slow motion is why it kept the file's timing.
        notes += probe.slowMotionNotes.map { JobNote(fact: $0) }
        if let damaged = pass.damagedNote { notes.append(damaged) }
        return try commit(pass, request: request, probe: probe, notes: notes, reporter: reporter)
    }

    /// Puts the kept pass in place; its notes end with what happened to the tags, by the rule
    /// every video job shares (``VideoJob/tagOutcome(pass:keepLocation:keepIdentifiers:media:)``).
    static func commit(
        _ pass: VideoPass, request: VideoCompressRequest, probe: VideoCompressProbe, notes: [JobNote],
        reporter: ProgressReporter
    ) throws(ConvertError) -> JobResult {
        let file = try VideoJob.commit(pass, output: request.output, reporter: reporter)
        let tags = VideoJob.tagOutcome(
            pass: pass, keepLocation: request.keepLocation, keepIdentifiers: false, media: probe.media)
        let removed = tags.location == .removed ? ["location removed"] : []
        // A compressed copy keeps the picture, one sound track, subtitles and the cover; telemetry
        // is named, as the other video jobs name it, because it records where the video was made.
        let telemetry = VideoPlanner.telemetryNote(probe.media.streams).map { [JobNote(fact: $0)] } ?? []
        return JobResult(
            inputPath: request.input, outputs: [file],
            notes: notes + probe.otherNotes + telemetry + removed + tags.notes,
            location: tags.location)
    }
}
