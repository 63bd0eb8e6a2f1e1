import ConvertCore
internal import FFmpegLayer
import Foundation

/// What compress learns about its input before planning a size, and the ``VideoPlan``s it
/// builds from that: every pass of one compress job is cut and timed the same way.
struct VideoCompressProbe {
    var media: MediaSnapshot
    var video: StreamSnapshot
    /// The audio lane an MP4 output would use (copy AAC, else encode), if any.
    var audio: LanePlan?
    var source: VideoSizePlanner.Source
    /// The part of the input kept (`--start`/`--duration`), nil for all of it.
    var cut: (start: Double, length: Double)?
    /// A phone's slow motion played as the phone plays it, nil when it is not (or there is none):
    /// then ``source`` describes the flattened output, its duration and frame rate.
    var flattening: SlowMotionFlattening?
    /// What happened to the input's slow motion, as convert says it.
    var slowMotionNotes: [String] = []
    /// The Samsung trailer that ends the output with `--slow-motion keep` (see
    /// ``VideoPlanner/keptSlowMotionMarkers(_:media:format:cut:)``).
    var slowMotionTrailer: [UInt8]?
    /// The subtitle tracks and cover a shared copy carries besides its picture and sound
    /// (copied, or text subtitles written again as `mov_text`), as convert keeps them.
    var otherLanes: [LanePlan] = []
    /// What happened to the subtitle tracks and the cover.
    var otherNotes: [JobNote] = []
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

    /// A plan of `lanes` into an MP4-family `format`, cut and timed as the input needs.
    func plan(_ format: OutputFormat, lanes: [LanePlan], keepLocation: Bool) -> VideoPlan {
        var plan = VideoPlan(format: format, lanes: lanes, keepLocation: keepLocation, notes: [])
        if let cut { (plan.start, plan.end) = (cut.start, cut.start + cut.length) }
        plan.timesByFrameRate = isElementaryStream
        plan.rawFrameRate = rawFrameRate
        plan.maxPixels = maxPixels
        plan.trailer = slowMotionTrailer
        plan.lanes += otherLanes
        return plan
    }

    /// The filter that keeps only the cut, or flattens the slow motion, before `filter` (a cut
    /// is never flattened).
    func timing(_ filter: String) -> String {
        if let flattening { return flattening.videoFilter + "," + filter }
        guard let cut else { return filter }
        return "trim=start=\(cut.start):duration=\(cut.length),setpts=PTS-STARTPTS," + filter
    }

    /// `encoding` trimmed to the cut, or its sound following the flattened timeline.
    func timing(_ encoding: AudioEncoding, of stream: StreamSnapshot) -> AudioEncoding {
        var timed = encoding
        if let flattening {
            timed.trim = flattening.audioFilter(duration: stream.duration ?? media.duration)
        } else if let cut {
            timed.trim = "atrim=start=\(cut.start):duration=\(cut.length),asetpts=PTS-STARTPTS"
        }
        return timed
    }

    /// Notes on the cut, on a raw stream's timing and on slow motion.
    var inputNotes: [JobNote] {
        var notes: [JobNote] = []
        if let cut { notes.append(VideoPlanner.cutNote(cut)) }
        if isElementaryStream { notes.append(VideoPlanner.rawStreamTiming(media)) }
        return notes + slowMotionNotes.map { JobNote(fact: $0) }
    }
}

extension VideoCompressProbe {
    /// Reads `request`'s input: its video (decodable, not Dolby Vision without a base layer),
    /// how long the kept part is, its frame rate, its sound (copied AAC counted to the byte) and
    /// its file size.
    init(_ request: VideoCompressRequest, cancellation: CancellationFlag) throws(ConvertError) {
        let path = request.input
        let demuxer = try Demuxer(
            path: path, cancellation: cancellation, maxPixels: request.maxPixels,
            rawFrameRate: request.rawFrameRate)
        let media = MediaSnapshot(demuxer)
        let video = try Self.decodableVideo(media, request: request)
        let stream = demuxer.stream(video.index)
        let rate = Self.frameRate(of: stream)
        let (whole, timed) = try Self.duration(
            media, video: video, frameRate: rate, demuxer: demuxer, path: path,
            cancellation: cancellation)
        let cut = try VideoPlanner.cutRange(start: request.start, duration: request.duration, input: path, media: timed)
        let slowMotion = VideoPlanner.slowMotionDecision(
            request.slowMotion, media: media, cut: cut != nil, sound: media.streams.contains { $0.kind == .audio })
        let flattening = slowMotion.flattening
        let markers = VideoPlanner.keptSlowMotionMarkers(
            request.slowMotion, media: media, format: .video(.mp4), cut: cut != nil)
        // The target budgets the output: a flattened clip's own duration and frames, not the file's.
        let duration = cut?.length ?? flattening?.outputTime(whole) ?? whole
        let outputRate = flattening.map { $0.outputFrames(duration: whole, frameRate: rate) / duration } ?? rate
        let audioLane = try Self.audioLane(media, reencodes: cut != nil || flattening != nil, path: path)
        let audio = try Self.sizingAudio(of: audioLane, in: demuxer, cancellation: cancellation)
        var fileBytes = Self.fileBytes(path)
        // The part kept is about its share of the file: what "never bigger than the source" means for it.
        if let cut, fileBytes < Int64.max {
            fileBytes = Int64((Double(fileBytes) * min(cut.length / whole, 1)).rounded(.up))
        }
        // A cut falls on the exact frame, a raw stream has no timestamps to copy, and flattened
        // slow motion is re-timed: all re-encode.
        let videoCopies =
            VideoPlanner.isWindowsCompatible(video) && cut == nil && !media.isElementaryStream && flattening == nil
        let source = VideoSizePlanner.Source(
            duration: duration, width: Int(video.isSideways ? video.height : video.width),
            height: Int(video.isSideways ? video.width : video.height), frameRate: outputRate, fileBytes: fileBytes,
            isCopyCompatible: videoCopies && (audioLane.map(\.isCopy) ?? true), audio: audio,
            videoBitrate: Self.videoBitrate(
                declared: stream.bitRate, fileBytes: fileBytes, audio: audio, duration: duration,
                timeScale: flattening == nil ? 1 : whole / duration),
            isVideoCopyCompatible: videoCopies)
        self.init(
            media: timed, video: video, audio: audioLane, source: source, cut: cut, flattening: flattening,
            slowMotionNotes: slowMotion.notes + markers.notes, slowMotionTrailer: markers.trailer,
            isElementaryStream: media.isElementaryStream, rawFrameRate: request.rawFrameRate,
            maxPixels: request.maxPixels)
        (otherLanes, otherNotes) = Self.otherTracks(media, request: request, cut: cut, flattened: flattening != nil)
    }

    /// The subtitle tracks and the cover an MP4 keeps, and notes on them. Subtitles keep the
    /// file's timing, so a flattened slow-motion clip leaves them out and says so.
    private static func otherTracks(
        _ media: MediaSnapshot, request: VideoCompressRequest, cut: VideoPlanner.Cut?, flattened: Bool
    ) -> (lanes: [LanePlan], notes: [JobNote]) {
        let format = OutputFormat.video(.mp4)
        var subtitles = VideoPlanner.subtitlePlan(
            .keep, keepLocation: request.keepLocation, media: media, format: format, cut: cut)
        if flattened && !subtitles.lanes.isEmpty {
            subtitles = (
                [], [JobNote(fact: "subtitle tracks left out: flattened slow motion moves the times they show at")]
            )
        }
        let covers = VideoPlanner.coverArt(media: media, format: format)
        return (subtitles.lanes + covers.lanes, subtitles.notes + JobNote.facts(covers.notes))
    }

    /// The input's video stream, refused when missing or undecodable.
    private static func decodableVideo(_ media: MediaSnapshot, request: VideoCompressRequest) throws(ConvertError)
        -> StreamSnapshot
    {
        let path = request.input
        guard let video = media.video else { throw media.missingVideoError(maxPixels: request.maxPixels) }
        guard video.decodable else {
            throw ConvertError(
                code: .unsupportedCodec,
                message: "\(path) uses the \(video.codecTag.isEmpty ? video.codecName : video.codecTag) "
                    + "video codec, which this build of FFmpeg cannot decode.", path: path)
        }
        // Fails early for Dolby Vision without a usable base layer.
        _ = try ToneMapDecision.decide(for: video, targetCarriesHDR: false, path: path)
        return video
    }

    /// The stream's average frame rate, else its base rate, else 30.
    private static func frameRate(of stream: Demuxer.Stream) -> Double {
        var rate = stream.averageFrameRate.doubleValue
        if !(rate.isFinite && rate > 0) { rate = stream.baseFrameRate.doubleValue }
        if !(rate.isFinite && rate > 0) { rate = 30 }
        return rate
    }

    /// How long the whole input is, and the snapshot with that duration when it had to be counted.
    private static func duration(
        _ media: MediaSnapshot, video: StreamSnapshot, frameRate: Double, demuxer: Demuxer,
        path: String, cancellation: CancellationFlag
    ) throws(ConvertError) -> (Double, MediaSnapshot) {
        // The tracks' own durations say how long the media that gets encoded is; the movie
        // header's is one field that a damaged file can get wrong by millennia (a flipped `mvhd`
        // version byte reads the following fields as a 64-bit duration), which made the plan
        // demand petabytes. The container's duration is the fallback for tracks without one.
        let trackDurations = media.streams.filter { $0.kind == .video || $0.kind == .audio }.compactMap(\.duration)
        // A raw stream says nothing of its length: its frames, counted, at the rate it is timed by.
        let rawDuration =
            media.isElementaryStream
            ? Double(try StreamPayload.measure(video.index, in: demuxer, cancellation: cancellation).packets)
                / frameRate : nil
        guard let whole = rawDuration ?? trackDurations.max() ?? media.duration, whole > 0 else {
            throw ConvertError(
                code: .inputNoDuration,
                message: "\(path) does not say how long it is, so its bitrate cannot be planned.", path: path)
        }
        var timed = media
        if rawDuration != nil { timed.duration = whole }
        return (whole, timed)
    }

    /// The audio lane an MP4 output takes; a cut or flattened slow motion (`reencodes`)
    /// re-encodes the sound too, so that it starts, ends and plays with the picture.
    private static func audioLane(_ media: MediaSnapshot, reencodes: Bool, path: String) throws(ConvertError)
        -> LanePlan?
    {
        let format = OutputFormat.video(.mp4)
        let lane = try VideoPlanner.audioLane(media: media, format: format, path: path)
        if reencodes, case .copy(let stream)? = lane {
            // The size planner budgets stereo sound.
            return .audio(stream, VideoPlanner.audioEncoding(for: format, source: stream, maxChannels: 2))
        }
        return lane
    }

    /// The sound as the planner budgets it: a copy's exact payload, or what an encode needs.
    private static func sizingAudio(
        of lane: LanePlan?, in demuxer: Demuxer,
        cancellation: CancellationFlag
    ) throws(ConvertError) -> VideoSizePlanner.Audio {
        switch lane {
        case .none:
            return .none
        case .copy(let stream):
            let payload = try StreamPayload.measure(stream.index, in: demuxer, cancellation: cancellation)
            return .copyable(payloadBytes: payload.bytes, packetCount: payload.packets, channels: Int(stream.channels))
        case .audio(let stream, _), .video(let stream, _):
            return .needsEncoding(channels: Int(max(stream.channels, 1)), sampleRate: Int(max(stream.sampleRate, 8000)))
        case .subtitle:
            // The sound lane is never a subtitle one.
            return .none
        }
    }

    /// The size of the file at `path`; `Int64.max` when it cannot be read, which no target fits.
    private static func fileBytes(_ path: String) -> Int64 {
        var info = stat()
        return stat(path, &info) == 0 ? Int64(info.st_size) : Int64.max
    }

    /// The demuxer's bitrate for the stream (MP4/MOV: from the sample sizes); else the file less
    /// its copied audio, an overestimate that only raises the quality floor. Both per second of
    /// the output's `duration`: `timeScale` is the file's seconds per output second (flattened
    /// slow motion spreads the file's bits over another length).
    private static func videoBitrate(
        declared: Int64, fileBytes: Int64, audio: VideoSizePlanner.Audio, duration: Double, timeScale: Double
    ) -> Double? {
        if declared > 0 { return Double(declared) * timeScale }
        guard fileBytes < Int64.max else { return nil }
        var audioBytes: Int64 = 0
        if case .copyable(let bytes, _, _) = audio { audioBytes = bytes }
        return Double(max(fileBytes - audioBytes, 1)) * 8 / duration
    }
}
