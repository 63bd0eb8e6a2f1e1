import Foundation
import ConvertCore

/// The blocking body of ``VideoConverter/compress(_:)``: probe, plan, remux or encode (a first
/// pass at the normal quality, then that quality when it fits or 2-pass up to the target),
/// measure, retry pass 2 when over.
enum VideoCompressor {
    /// Pass-2 runs allowed before giving up (the first plus two corrections).
    static let maximumSecondPasses = 3
    /// The normal quality: `send-to-windows`'s x264 CRF (``VideoPlanner``'s H.264 default).
    static let qualityCRF = 23
    /// How much smaller the real normal-quality encode can come out than x264's fast first pass
    /// at the same CRF: measured −4 % (bikes.mp4; motion.mov and hlg10-color-test.mp4 came out
    /// 16 % and 25 % larger instead). The quality encode is tried when the first pass, less this,
    /// fits: when it then comes out over, the 2-pass follows (one encode more), but a clip whose
    /// normal quality fits is never given more than that.
    static let qualityMargin = 0.95

    /// What the probe learned about the input.
    struct Probe {
        var media: MediaSnapshot
        var video: StreamSnapshot
        /// The audio lane an MP4 output would use (copy AAC, else encode), if any.
        var audio: LanePlan?
        var source: VideoSizePlanner.Source
        /// The part of the input kept (`--start`/`--duration`), nil for all of it.
        var cut: (start: Double, length: Double)?
        /// The input is a raw elementary stream: timed by its frame rate, never copied.
        var isElementaryStream = false
        /// The frame rate asked for a raw stream (`--fps`).
        var rawFrameRate: Double?
        /// The most pixels a decoded frame may have.
        var maxPixels = PixelLimit.defaultMaxPixels

        /// Refuses an encode of frames over ``maxPixels``, before any file is created.
        func checkPixels(path: String) throws(ConvertError) {
            try PixelLimit.check(width: Int(video.width), height: Int(video.height), limit: maxPixels, path: path)
        }

        /// What the output does with the source's location tags.
        func location(keeping keep: Bool) -> LocationOutcome {
            .of(hadLocation: media.tags.contains(where: { Metadata.isLocation($0.key) }), kept: keep)
        }

        /// A plan of `lanes` into an MP4-family `format`, cut and timed as the input needs.
        func plan(_ format: OutputFormat, lanes: [LanePlan], keepLocation: Bool) -> VideoPlan {
            var plan = VideoPlan(format: format, lanes: lanes, keepLocation: keepLocation, notes: [])
            if let cut { (plan.start, plan.end) = (cut.start, cut.start + cut.length) }
            plan.timesByFrameRate = isElementaryStream
            plan.rawFrameRate = rawFrameRate
            plan.maxPixels = maxPixels
            return plan
        }

        /// The filter that keeps only the cut, before `filter`.
        func cutting(_ filter: String) -> String {
            guard let cut else { return filter }
            return "trim=start=\(cut.start):duration=\(cut.length),setpts=PTS-STARTPTS," + filter
        }

        /// `encoding` trimmed to the cut.
        func cutting(_ encoding: AudioEncoding) -> AudioEncoding {
            guard let cut else { return encoding }
            var trimmed = encoding
            trimmed.trim = "atrim=start=\(cut.start):duration=\(cut.length),asetpts=PTS-STARTPTS"
            return trimmed
        }

        /// Notes on the cut and on a raw stream's timing.
        var inputNotes: [String] {
            var notes: [String] = []
            if let cut { notes.append(VideoPlanner.cutNote(cut)) }
            if isElementaryStream { notes.append(VideoPlanner.rawStreamTiming(media)) }
            return notes
        }
    }

    static func run(_ request: VideoCompressRequest, cancellation: CancellationFlag, reporter: ProgressReporter) throws(ConvertError) -> JobResult {
        FFmpegLogging.configure()
        guard request.targetBytes > 0 else {
            throw ConvertError(.request, code: .requestTarget, message: "The target size must be more than 0 bytes.")
        }
        reporter.report(.probing, 0)
        let probe = try self.probe(request, cancellation: cancellation)
        try cancellation.check()
        var source = probe.source
        while true {
            switch VideoSizePlanner.plan(source: source, targetBytes: request.targetBytes) {
            case .failure(let impossible):
                throw unreachable(request, smallestReachableBytes: impossible.smallestReachableBytes)
            case .success(.remux):
                if let result = try remux(request, probe: probe, audio: probe.audio, cancellation: cancellation, reporter: reporter) {
                    return result
                }
                // The remuxed file came out over the target (a bigger index than the source's):
                // plan an encode instead.
                source.isCopyCompatible = false
                source.isVideoCopyCompatible = false
            case .success(.copyVideo(let audio)):
                let lane = probe.audio.flatMap { encodedAudioLane($0, plan: audio) }
                if let result = try remux(request, probe: probe, audio: lane, cancellation: cancellation, reporter: reporter) {
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

    /// The error for a target below the smallest reachable size, both in the target's unit
    /// (rounded the safe way: the target down, the smallest size up).
    static func unreachable(_ request: VideoCompressRequest, smallestReachableBytes: Int64) -> ConvertError {
        ConvertError(
            .request, code: .requestTargetTooSmall,
            message: "\(request.input) cannot be compressed to \(request.unit.format(request.targetBytes, rounding: .down)): "
                + "the smallest it can reach is \(request.unit.format(smallestReachableBytes, rounding: .up)).",
            path: request.input)
    }

    /// ``VideoConverter/previewCompression(_:)``: the probe and the plan, nothing written.
    static func preview(_ request: VideoCompressRequest, cancellation: CancellationFlag) throws(ConvertError) -> VideoCompressPreview {
        FFmpegLogging.configure()
        guard request.targetBytes > 0 else {
            throw ConvertError(.request, code: .requestTarget, message: "The target size must be more than 0 bytes.")
        }
        let probe = try self.probe(request, cancellation: cancellation)
        let source = probe.source
        let action: VideoCompressPreview.Action
        switch VideoSizePlanner.plan(source: source, targetBytes: request.targetBytes) {
        case .success(.remux): action = .copy
        case .success(.copyVideo(let audio)): action = .copyVideo(audio: audio)
        case .success(.encode(let plan)):
            try probe.checkPixels(path: request.input)
            action = .encode(plan)
        case .failure(let impossible): action = .unreachable(smallestReachableBytes: impossible.smallestReachableBytes)
        }
        return VideoCompressPreview(action: action, sourceBytes: source.fileBytes, duration: source.duration,
                                    sourceFrameRate: source.frameRate, sourceWidth: source.width, sourceHeight: source.height)
    }

    // MARK: - Probe

    static func probe(_ request: VideoCompressRequest, cancellation: CancellationFlag) throws(ConvertError) -> Probe {
        let path = request.input
        let demuxer = try Demuxer(path: path, cancellation: cancellation, maxPixels: request.maxPixels,
                                  rawFrameRate: request.rawFrameRate)
        let media = MediaSnapshot(demuxer)
        guard let video = media.video else { throw media.missingVideoError(maxPixels: request.maxPixels) }
        guard video.decodable else {
            throw ConvertError(.unsupported, code: .unsupportedCodec,
                               message: "\(path) uses the \(video.codecTag.isEmpty ? video.codecName : video.codecTag) "
                                   + "video codec, which this build of FFmpeg cannot decode.", path: path)
        }
        // Fails early for Dolby Vision without a usable base layer.
        _ = try ToneMapDecision.decide(for: video, targetCarriesHDR: false, path: path)
        // The tracks' own durations say how long the media that gets encoded is; the movie
        // header's is one field that a damaged file can get wrong by millennia (a flipped `mvhd`
        // version byte reads the following fields as a 64-bit duration), which made the plan
        // demand petabytes. The container's duration is the fallback for tracks without one.
        let trackDurations = media.streams.filter { $0.kind == .video || $0.kind == .audio }.compactMap(\.duration)
        let stream = demuxer.stream(video.index)
        var rate = stream.averageFrameRate.doubleValue
        if !(rate.isFinite && rate > 0) { rate = stream.baseFrameRate.doubleValue }
        if !(rate.isFinite && rate > 0) { rate = 30 }
        // A raw stream says nothing of its length: its frames, counted, at the rate it is timed by.
        let rawDuration = media.isElementaryStream
            ? Double(try payload(of: video.index, in: demuxer, cancellation: cancellation).1) / rate : nil
        guard let whole = rawDuration ?? trackDurations.max() ?? media.duration, whole > 0 else {
            throw ConvertError(.input, code: .inputNoDuration,
                               message: "\(path) does not say how long it is, so its bitrate cannot be planned.", path: path)
        }
        var timed = media
        if rawDuration != nil { timed.duration = whole }
        let cut = try VideoPlanner.cutRange(start: request.start, duration: request.duration, input: path, media: timed)
        let duration = cut?.length ?? whole
        let format = OutputFormat.video(.mp4)
        var audioLane = try VideoPlanner.audioLane(media: media, format: format, path: path)
        // A cut re-encodes the sound too, so that it starts and ends with the picture.
        if cut != nil, case .copy(let stream)? = audioLane {
            audioLane = .audio(stream, VideoPlanner.audioEncoding(for: format, source: stream))
        }
        let audio: VideoSizePlanner.Audio
        switch audioLane {
        case .none:
            audio = .none
        case .copy(let stream):
            let (bytes, packets) = try payload(of: stream.index, in: demuxer, cancellation: cancellation)
            audio = .copyable(payloadBytes: bytes, packetCount: packets, channels: Int(stream.channels))
        case .audio(let stream, _), .video(let stream, _):
            audio = .needsEncoding(channels: Int(max(stream.channels, 1)), sampleRate: Int(max(stream.sampleRate, 8000)))
        }
        var info = stat()
        var fileBytes = stat(path, &info) == 0 ? Int64(info.st_size) : Int64.max
        // The part kept is about its share of the file: what "never bigger than the source" means for it.
        if let cut, fileBytes < Int64.max { fileBytes = Int64((Double(fileBytes) * min(cut.length / whole, 1)).rounded(.up)) }
        let displayWidth = Int(video.isSideways ? video.height : video.width)
        let displayHeight = Int(video.isSideways ? video.width : video.height)
        let audioCopies = audioLane.map(\.isCopy) ?? true
        // The demuxer's bitrate for the stream (MP4/MOV: from the sample sizes); else the file
        // less its copied audio, an overestimate that only raises the quality floor.
        let declared = Double(stream.bitRate)
        var videoBitrate = declared > 0 ? declared : nil
        if videoBitrate == nil, fileBytes < Int64.max {
            var audioBytes: Int64 = 0
            if case .copyable(let bytes, _, _) = audio { audioBytes = bytes }
            videoBitrate = Double(max(fileBytes - audioBytes, 1)) * 8 / duration
        }
        // A cut falls on the exact frame, and a raw stream has no timestamps to copy: both re-encode.
        let videoCopies = VideoPlanner.isWindowsCompatible(video) && cut == nil && !media.isElementaryStream
        let source = VideoSizePlanner.Source(
            duration: duration, width: displayWidth, height: displayHeight, frameRate: rate, fileBytes: fileBytes,
            isCopyCompatible: videoCopies && audioCopies, audio: audio, videoBitrate: videoBitrate,
            isVideoCopyCompatible: videoCopies)
        return Probe(media: timed, video: video, audio: audioLane, source: source, cut: cut,
                     isElementaryStream: media.isElementaryStream, rawFrameRate: request.rawFrameRate,
                     maxPixels: request.maxPixels)
    }

    /// The exact payload bytes and packet count of stream `index`: every packet is read (the
    /// other streams are discarded, so the demuxer skips their data), which is exactly what a
    /// copy writes.
    static func payload(of index: Int, in demuxer: Demuxer, cancellation: CancellationFlag) throws(ConvertError) -> (Int64, Int) {
        for other in 0..<demuxer.streamCount where other != index {
            demuxer.stream(other).discard()
        }
        let packet = try Packet()
        var bytes: Int64 = 0
        var count = 0
        while true {
            try cancellation.check()
            if try demuxer.read(into: packet) == .endOfFile { break }
            if packet.streamIndex == index {
                bytes += Int64(packet.size)
                count += 1
            }
            packet.unref()
        }
        return (bytes, count)
    }

    // MARK: - Remux

    /// The source's audio lane encoded to AAC as `plan` says; nil when the plan has no encoded audio.
    static func encodedAudioLane(_ lane: LanePlan, plan: VideoSizePlanner.AudioPlan) -> LanePlan? {
        guard case .encode(let bitrate, let channels) = plan else { return nil }
        return .audio(lane.stream, AudioEncoding(encoder: "aac", sampleRate: nil, channels: Int32(channels), bitRate: Int64(bitrate)))
    }

    /// Copies the video, and the audio lane given (copied or encoded), into an MP4; nil (and
    /// nothing written) when the result is over the target.
    static func remux(_ request: VideoCompressRequest, probe: Probe, audio: LanePlan?, cancellation: CancellationFlag,
                      reporter: ProgressReporter) throws(ConvertError) -> JobResult? {
        let format = OutputFormat.video(.mp4)
        let plan = probe.plan(format, lanes: [.copy(probe.video)] + (audio.map { [$0] } ?? []), keepLocation: request.keepLocation)
        let destination = try OutputNamer.destination(
            input: request.input, explicitPath: request.output.path, directory: request.output.directory,
            overwrite: request.output.overwrite, pathExtension: format.fileExtension)[0]
        let staged = try StagedOutput(destination: destination)
        let damaged = try pump(plan, input: request.input, into: staged.temporaryPath, destination: destination,
                               cancellation: cancellation) { reporter.report(.remuxing, $0 * 0.95) }
        guard try fileSize(staged.temporaryPath) <= request.targetBytes else {
            staged.discard()
            return nil
        }
        var notes: [String]
        switch audio {
        case .audio(_, let encoding)?:
            notes = ["already under the target: video copied without re-encoding",
                     "audio re-encoded to AAC at \((encoding.bitRate ?? 0) / 1000) kb/s (MP4 cannot carry the original)"]
        case nil:
            notes = ["already under the target: video copied without re-encoding"]
        default:
            notes = ["already under the target: video and audio copied without re-encoding"]
        }
        if damaged > 0 { notes.append("\(damaged) damaged packet\(damaged == 1 ? "" : "s") skipped") }
        return try commit(staged, request: request, probe: probe, notes: notes, reporter: reporter)
    }

    // MARK: - Encode

    /// What every pass of one encode shares.
    struct Encode {
        var request: VideoCompressRequest
        var probe: Probe
        var plan: VideoSizePlanner.EncodePlan
        var destination: String
        var range: ToneMapDecision.Action
        var filter: String
        var stats: StatsFile
        var audioLanes: [LanePlan]
        var audioNotes: [String]

        init(_ request: VideoCompressRequest, probe: Probe, plan: VideoSizePlanner.EncodePlan) throws(ConvertError) {
            self.request = request
            self.probe = probe
            self.plan = plan
            destination = try OutputNamer.destination(
                input: request.input, explicitPath: request.output.path, directory: request.output.directory,
                overwrite: request.output.overwrite, pathExtension: OutputFormat.video(.mp4).fileExtension)[0]
            range = try ToneMapDecision.decide(for: probe.video, targetCarriesHDR: false, path: request.input)
            filter = probe.cutting(VideoCompressor.videoFilter(plan: plan, probe: probe, range: range))
            stats = try StatsFile(destination: destination)
            switch (plan.audio, probe.audio) {
            case (.copy, .some(let lane)):
                audioLanes = [lane]
                audioNotes = ["audio copied without re-encoding"]
            case (.encode(let bitrate, let channels), .some(let lane)):
                audioLanes = [.audio(lane.stream, probe.cutting(AudioEncoding(encoder: "aac", sampleRate: nil, channels: Int32(channels),
                                                                              bitRate: Int64(bitrate))))]
                audioNotes = ["audio re-encoded to AAC at \(bitrate / 1000) kb/s, \(channels == 1 ? "mono" : "stereo")"]
            default:
                audioLanes = []
                audioNotes = []
            }
        }

        /// The x264 lane with these private options.
        func videoLane(_ options: [OutputFormat.Option]) -> LanePlan {
            .video(probe.video, VideoEncoding(encoder: "libx264", options: options, filter: filter, dynamicRange: range,
                                              keepsDisplayMatrix: true))
        }

        /// Whether the plan keeps the source's picture and frame rate: the target is ample, and
        /// the normal quality may fit. A plan that had to shrink the picture or drop frames has a
        /// tight target, and spending all of it is what keeps the most of the picture.
        var keepsPicture: Bool {
            plan.width == probe.source.width && plan.height == probe.source.height
                && plan.frameRate >= probe.source.frameRate - 0.01
        }

        /// Pass 1 writes the statistics pass 2 reads. With an ample target it runs at the normal
        /// quality, so its size says what that quality costs; with a tight one at the planned
        /// bitrate, which makes pass 2 land closest. x264's fast first pass is several times
        /// quicker and the second pass is as good.
        var firstPassOptions: [OutputFormat.Option] {
            let rate: [OutputFormat.Option] = keepsPicture
                ? [.init(key: "crf", value: "\(qualityCRF)")]
                : [.init(key: "b", value: "\(plan.videoBitrate)"), .init(key: "maxrate", value: "\(plan.maxRate)"),
                   .init(key: "bufsize", value: "\(plan.bufferSize)")]
            return [.init(key: "preset", value: "medium")] + rate
                + [.init(key: "flags", value: "+pass1"), .init(key: "stats", value: stats.path), .init(key: "fastfirstpass", value: "1")]
        }

        /// The normal-quality encode: CRF 23, as `send-to-windows`, but at x264's `medium`: under a
        /// size limit the slower preset's extra quality per byte is worth its time.
        var qualityOptions: [OutputFormat.Option] {
            [.init(key: "crf", value: "\(qualityCRF)"), .init(key: "preset", value: "medium")]
        }

        /// Pass 2 of a 2-pass encode at `bitrate`, with a VBV cap.
        func secondPassOptions(bitrate: Int) -> [OutputFormat.Option] {
            [.init(key: "preset", value: "medium"), .init(key: "b", value: "\(bitrate)"),
             .init(key: "maxrate", value: "\(max(plan.maxRate, bitrate))"),
             .init(key: "bufsize", value: "\(max(plan.bufferSize, bitrate))"),
             .init(key: "flags", value: "+pass2"), .init(key: "stats", value: stats.path)]
        }

        /// The notes every result of this encode ends with.
        func closingNotes(damaged: Int) -> [String] {
            var notes = probe.inputNotes + audioNotes
            let sourceRate = probe.source.frameRate
            if plan.frameRate < sourceRate - 0.01 {
                notes.append("frame rate lowered from \(fps(sourceRate)) to \(fps(plan.frameRate)) fps: "
                             + "the target leaves too few bits for every frame")
            }
            if range != .none { notes.append("HDR tone mapped to SDR BT.709") }
            if damaged > 0 { notes.append("\(damaged) damaged packet\(damaged == 1 ? "" : "s") skipped") }
            return notes
        }

        var pictureDescription: String { "\(plan.width)x\(plan.height), \(fps(plan.frameRate)) fps" }
    }

    /// A frame rate for a note: "30", "29.97".
    static func fps(_ rate: Double) -> String { String(format: "%g", (rate * 100).rounded() / 100) }

    static func encode(_ request: VideoCompressRequest, probe: Probe, plan: VideoSizePlanner.EncodePlan,
                       cancellation: CancellationFlag, reporter: ProgressReporter) throws(ConvertError) -> JobResult {
        let job = try Encode(request, probe: probe, plan: plan)
        defer { job.stats.remove() }
        let firstShare = 0.3
        let (firstBytes, budget) = try firstPass(job, cancellation: cancellation) { reporter.report(.pass(1, of: 2), $0 * firstShare) }
        var start = firstShare
        var end = 0.95
        var qualityOvershoot: Int64?
        // The target is a ceiling: when the normal quality fits, that is the output. The first
        // pass only estimates its size, so it is tried whenever it might fit.
        let fixed = budget.audioBytes + budget.overheadBytes
        let mightFit = job.keepsPicture && Double(fixed) + Double(max(firstBytes - fixed, 0)) * qualityMargin <= Double(request.targetBytes)
        if mightFit || request.alwaysTriesQuality {
            let staged = try StagedOutput(destination: job.destination)
            let (from, to) = (start, end)
            let damaged = try pump(probe.plan(.video(.mp4), lanes: [job.videoLane(job.qualityOptions)] + job.audioLanes,
                                              keepLocation: request.keepLocation),
                                   input: request.input, into: staged.temporaryPath, destination: job.destination,
                                   cancellation: cancellation) { reporter.report(.pass(2, of: 2), from + $0 * (to - from)) }
            let achieved = try fileSize(staged.temporaryPath)
            if achieved <= request.targetBytes {
                let notes = ["H.264 at the normal quality (CRF \(qualityCRF)), \(job.pictureDescription): "
                             + "it fits the target without spending all of it"] + job.closingNotes(damaged: damaged)
                return try commit(staged, request: request, probe: probe, notes: notes, reporter: reporter)
            }
            staged.discard()
            qualityOvershoot = achieved
            start = end
            end = start + (0.98 - start) * 0.8
        }
        return try secondPasses(job, budget: budget, afterQualityOf: qualityOvershoot, progress: (start, end),
                                cancellation: cancellation, reporter: reporter)
    }

    /// Runs pass 1 (normal quality, statistics) into an MP4 with the output's audio; returns its
    /// size and the plan with the encoded audio's measured size in place of its estimate
    /// (FFmpeg's AAC encoder misses low bitrates by up to 45 %, and it is deterministic, so the
    /// later passes produce the very same packets).
    static func firstPass(_ job: Encode, cancellation: CancellationFlag,
                          progress: @escaping (Double) -> Void) throws(ConvertError) -> (Int64, VideoSizePlanner.EncodePlan) {
        let plan = job.probe.plan(OutputFormat(muxer: .mp4, fileExtension: "", options: []),
                                  lanes: [job.videoLane(job.firstPassOptions)] + job.audioLanes, keepLocation: false)
        let output = job.stats.firstPassOutput
        defer { unlink(output) }
        _ = try pump(plan, input: job.request.input, into: output, destination: job.destination, cancellation: cancellation,
                     progress: progress)
        let bytes = try fileSize(output)
        guard job.audioLanes.contains(where: { !$0.isCopy }) else { return (bytes, job.plan) }
        let demuxer = try Demuxer(path: output, cancellation: cancellation)
        let (audioBytes, _) = try payload(of: 1, in: demuxer, cancellation: cancellation)
        return (bytes, VideoSizePlanner.rebudget(job.plan, measuredAudioBytes: audioBytes, duration: job.probe.source.duration))
    }

    /// Pass 2 at the budget's bitrate, measured, repeated at a corrected bitrate while over.
    static func secondPasses(_ job: Encode, budget: VideoSizePlanner.EncodePlan, afterQualityOf qualityBytes: Int64?,
                             progress: (Double, Double), cancellation: CancellationFlag,
                             reporter: ProgressReporter) throws(ConvertError) -> JobResult {
        let request = job.request
        var bitrate = max(Int(Double(budget.videoBitrate) * request.firstBitrateFactor), 1)
        var (start, end) = progress
        for attempt in 1...maximumSecondPasses {
            let stage: JobStage = attempt == 1 && qualityBytes == nil ? .pass(2, of: 2) : JobStage("retry")
            let plan = job.probe.plan(.video(.mp4), lanes: [job.videoLane(job.secondPassOptions(bitrate: bitrate))] + job.audioLanes,
                                      keepLocation: request.keepLocation)
            let staged = try StagedOutput(destination: job.destination)
            let (from, to) = (start, end)
            let damaged = try pump(plan, input: request.input, into: staged.temporaryPath, destination: job.destination,
                                   cancellation: cancellation) { reporter.report(stage, from + $0 * (to - from)) }
            let achieved = try fileSize(staged.temporaryPath)
            if achieved <= request.targetBytes {
                var notes = ["2-pass H.264 at \(bitrate / 1000) kb/s, \(job.pictureDescription)"]
                if let qualityBytes {
                    notes.append("the normal quality (CRF \(qualityCRF)) came out at \(request.unit.format(qualityBytes, rounding: .up)), "
                                 + "over the target")
                }
                notes += job.closingNotes(damaged: damaged)
                if attempt > 1 { notes.append("pass 2 repeated \(attempt - 1) time\(attempt == 2 ? "" : "s") at a lower bitrate") }
                return try commit(staged, request: request, probe: job.probe, notes: notes, reporter: reporter)
            }
            staged.discard()
            bitrate = VideoSizePlanner.correctedBitrate(previous: bitrate, achievedBytes: achieved, targetBytes: request.targetBytes,
                                                        fixedBytes: budget.audioBytes + budget.overheadBytes)
            start = end
            end = start + (0.98 - start) * 0.8
        }
        throw ConvertError(.internal, code: .internalTargetOvershoot,
                           message: "\(request.input) came out over the target \(maximumSecondPasses) times; nothing was written.",
                           path: request.input)
    }

    /// Scale (to the planned size, in stored orientation: MP4 keeps the display matrix), frame
    /// rate, then tone map or 8-bit 4:2:0. Scaling first makes the tone map cheaper.
    static func videoFilter(plan: VideoSizePlanner.EncodePlan, probe: Probe, range: ToneMapDecision.Action) -> String {
        let (width, height) = probe.video.isSideways ? (plan.height, plan.width) : (plan.width, plan.height)
        var filters = ["scale=w=\(width):h=\(height)"]
        if plan.frameRate < probe.source.frameRate - 0.01 {
            filters.append("fps=\(String(format: "%.3f", plan.frameRate))")
        }
        if case .toneMap(let from) = range {
            filters.append(ToneMapDecision.filter(for: from))
        } else {
            filters.append("format=yuv420p")
        }
        return filters.joined(separator: ",")
    }

    // MARK: - Shared steps

    /// Runs one pass of `plan` from a freshly opened input into `temporaryPath`; returns the
    /// damaged packets skipped.
    static func pump(_ plan: VideoPlan, input: String, into temporaryPath: String, destination: String,
                     cancellation: CancellationFlag, progress: @escaping (Double) -> Void) throws(ConvertError) -> Int {
        let demuxer = try Demuxer(path: input, cancellation: cancellation, rawFrameRate: plan.rawFrameRate)
        let muxer = try Muxer(format: plan.format.muxer, temporaryPath: temporaryPath, path: destination)
        let pump = try FramePump(demuxer: demuxer, muxer: muxer, plan: plan, cancellation: cancellation, progress: progress)
        try pump.run()
        return pump.damagedPackets
    }

    static func fileSize(_ path: String) throws(ConvertError) -> Int64 {
        var info = stat()
        guard stat(path, &info) == 0 else { throw ConvertError.fileSystem(errno, action: "measure", path: path) }
        return Int64(info.st_size)
    }

    static func commit(_ staged: StagedOutput, request: VideoCompressRequest, probe: Probe, notes: [String],
                       reporter: ProgressReporter) throws(ConvertError) -> JobResult {
        reporter.report(.writing, 0.99)
        let file = try staged.commit(overwrite: request.output.overwrite, renumber: request.output.path == nil || request.output.mayRenumber)
        let location = probe.location(keeping: request.keepLocation)
        var notes = notes
        switch location {
        case .removed: notes.append("location removed")
        case .kept: notes.append("location kept")
        case .noneFound: break
        }
        return JobResult(inputPath: request.input, outputs: [file], notes: notes, location: location)
    }
}

/// x264's 2-pass statistics, next to the output.
///
/// A reserved, locked file (`.NAME.offconvert-XXXXXX.x264`) marks them as this encode's: x264
/// writes `<reserved>.stats` (through `.stats.temp`, which it renames, so the lock cannot live on
/// its files) and `.stats.mbtree`, and the audio-measuring first pass writes `<reserved>.pass1`.
/// ``remove()`` deletes them all, whatever state the encode stopped in. After a crash or a kill
/// the lock is gone with the process, so ``StagedOutput/removeStale(in:)`` recognises every one
/// of them as stale, while the statistics of an encode still running are left alone.
final class StatsFile {
    /// Suffix of the reserved, locked file; every statistics file's name continues it.
    static let suffix = StagedOutput.statsSuffix

    /// The reserved file; holds the lock, never written.
    private let ownerPath: String
    /// Open on ``ownerPath`` for as long as the statistics live; carries the lock.
    private let lockDescriptor: Int32

    init(destination: String) throws(ConvertError) {
        let url = URL(fileURLWithPath: destination)
        let folder = url.deletingLastPathComponent().path
        var template: [CChar] = Array("\(folder)/.\(url.lastPathComponent)\(StagedOutput.marker)XXXXXX\(Self.suffix)".utf8CString)
        let descriptor = template.withUnsafeMutableBufferPointer { buffer -> Int32 in
            guard let base = buffer.baseAddress else { return -1 }
            return mkstemps(base, Int32(Self.suffix.utf8.count))
        }
        guard descriptor >= 0 else {
            throw ConvertError.fileSystem(errno, action: "create a temporary file in", path: folder)
        }
        _ = flock(descriptor, LOCK_EX | LOCK_NB)
        lockDescriptor = descriptor
        ownerPath = String(nulTerminated: template)
    }

    /// The path given to x264's `stats` option.
    var path: String { ownerPath + ".stats" }

    /// Where pass 1 writes its packets when it measures the encoded audio.
    var firstPassOutput: String { ownerPath + ".pass1" }

    /// Removes the statistics and every file x264 derived from them, then the reserved file
    /// (last, so no statistics file is ever left without its locked owner while the encode lives).
    func remove() {
        for suffix in [".stats", ".stats.temp", ".stats.mbtree", ".stats.mbtree.temp", ".pass1"] {
            unlink(ownerPath + suffix)
        }
        unlink(ownerPath)
    }

    deinit {
        remove()
        close(lockDescriptor)
    }
}
