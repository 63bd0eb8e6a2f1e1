import ConvertCore
internal import FFmpegLayer

/// All streams of one input, read once before planning.
struct MediaSnapshot: Sendable {
    var path: String
    var streams: [StreamSnapshot]
    /// Container duration in seconds, when known.
    var duration: Double?
    /// Container-level metadata tags, in file order.
    var tags: [(key: String, value: String)]
    /// The container's chapters, timed from its start.
    var chapters: [Chapter] = []
    /// The file is a raw elementary stream (`.h264`, `.hevc`): its packets carry no timestamps,
    /// only the order of the frames (`AVFMT_NOTIMESTAMPS`).
    var isElementaryStream = false
    /// How a raw elementary stream's frames are timed (nil for other files).
    var rawTiming: Demuxer.RawTiming?
    /// The video frame rate the raw stream is timed by (frames per second), for notes.
    var rawFrameRate: Double?
    /// A Samsung phone's slow-motion segments (its SEF trailer), read without FFmpeg.
    var slowMotion = SlowMotionSegments.Reading.absent
    /// The file's whole `sefd` trailer box when it marks slow motion, for an MP4 or MOV that keeps
    /// the markers (``SlowMotionSegments/trailerBox(in:)``).
    var slowMotionTrailer: [UInt8]?
    /// The text subtitle tracks (stream indices) whose cues are a drone's telemetry: a location,
    /// which shared copies leave out.
    var telemetrySubtitles: Set<Int> = []

    /// The frame rate Android says the clip was filmed at (`com.android.capture.fps`), when it
    /// is above the rate the file plays at: a slow-motion recording.
    var captureRate: Double? { Self.captureRate(tags) }

    /// The capture rate among a container's `tags`, when it is a slow-motion one.
    static func captureRate(_ tags: [(key: String, value: String)]) -> Double? {
        guard let text = tags.first(where: { $0.key == "com.android.capture.fps" })?.value,
            let rate = Double(text), rate.isFinite, rate > 30, rate <= 10_000
        else { return nil }
        return rate
    }

    /// The first video stream that is a real picture track (not cover art).
    var video: StreamSnapshot? { streams.first { $0.kind == .video && $0.width > 0 } }

    /// When the video's last frame starts (seconds): the duration less one frame. A cut that
    /// starts later holds no picture at all.
    var lastFrameStart: Double? {
        guard let video, let length = video.duration ?? duration, let rate = video.frameRate, rate > 0, rate.isFinite
        else { return nil }
        return max(0, length - 1 / rate)
    }

    /// Throws `request.start` when `start` is at or past the end of the clip, or after its last
    /// frame begins (an 8.32 s clip at 30 fps shows its last frame from 8.29 s).
    func checkStart(_ start: Double, input: String) throws(ConvertError) {
        if let duration, start >= duration {
            throw ConvertError(
                code: .requestStart,
                message: "The start time is past the end of \(input) (\(UnitText.duration(duration)) long).")
        }
        // A thousandth of slack: a start typed as the last frame's time still gets that frame.
        if let last = lastFrameStart, start > last + 0.001 {
            throw ConvertError(
                code: .requestStart,
                message: "The start time is after the last frame of \(input), "
                    + "which begins at \(UnitText.duration(last, places: 3)) (the clip is \(UnitText.duration(duration ?? last, places: 2)) long)."
            )
        }
    }
    /// Reads the snapshot of an open demuxer.
    init(_ demuxer: Demuxer) {
        path = demuxer.path
        var snapshots: [StreamSnapshot] = []
        for index in 0..<demuxer.streamCount {
            let stream = demuxer.stream(index)
            guard var snapshot = stream.snapshot else { continue }
            // Attached pictures (cover art) are video streams but never the movie.
            if stream.isAttachedPicture {
                snapshot.width = 0
                snapshot.isAttachedPicture = true
            }
            snapshots.append(snapshot)
        }
        Self.addBoxLevelDolbyVision(to: &snapshots, demuxer: demuxer)
        streams = snapshots
        duration = demuxer.duration
        tags = demuxer.metadata
        chapters = demuxer.chapters
        isElementaryStream = demuxer.isElementaryStream
        if demuxer.isISOBMFF, let source = try? FileByteSource(path: demuxer.path) {
            slowMotion = SlowMotionSegments.read(from: source)
            if case .segments = slowMotion { slowMotionTrailer = SlowMotionSegments.trailerBox(in: source) }
        }
        rawTiming = demuxer.rawTiming
        // Read apart from `demuxer`, which the pass goes on reading from the start; a file whose
        // cues cannot be read here fails in the pass.
        if streams.contains(where: { $0.kind == .subtitle && SubtitleTelemetry.textCodecs.contains($0.codecName) }) {
            telemetrySubtitles = (try? SubtitleTelemetry.scan(path: path, whole: false))?.streams ?? []
        }
        if rawTiming != nil, let index = streams.first(where: { $0.kind == .video })?.index {
            rawFrameRate = demuxer.stream(index).baseFrameRate.doubleValue
        }
    }
}

extension MediaSnapshot {
    /// Marks spatial (stereo) video, and fills in Dolby Vision from the probe's own reader of the MP4/MOV sample entries where
    /// FFmpeg has no record: FFmpeg 5.1 parses `dvcC`/`dvvC` but not `dvwC`, and a DV stream
    /// handled as plain HDR10/HLG/SDR could be tone mapped from the wrong base, or a profile 5
    /// stream (no usable base layer) decoded into green and purple.
    fileprivate static func addBoxLevelDolbyVision(to snapshots: inout [StreamSnapshot], demuxer: Demuxer) {
        guard demuxer.formatName.contains("mp4"),
            snapshots.contains(where: { $0.kind == .video }),
            let source = try? FileByteSource(path: demuxer.path),
            let movie = try? MovieBoxScanner.scan(BoxReader(source: source))
        else { return }
        for position in snapshots.indices where snapshots[position].kind == .video {
            let trackID = demuxer.stream(snapshots[position].index).trackID
            guard let track = movie.tracks.first(where: { $0.trackID == trackID }) else { continue }
            // The stereo boxes are the probe's alone too: FFmpeg 5.1 reads neither lhvC nor vexu.
            snapshots[position].isStereo = track.sampleEntries.contains(where: \.isStereo)
            guard snapshots[position].doviProfile == nil,
                let record = track.sampleEntries.lazy.compactMap(\.dolbyVision).first
            else { continue }
            snapshots[position].doviProfile = Int32(record.profile)
            snapshots[position].doviCompatibility = Int32(record.baseLayerCompatibilityID)
        }
    }
}
