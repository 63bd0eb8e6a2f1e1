import ConvertCore
internal import FFmpegLayer

/// Turns requests into plans.
enum VideoPlanner {
    /// A cut of the source: where it starts and how long it lasts, in seconds.
    typealias Cut = (start: Double, length: Double)

    /// Video codecs each container can hold when copying.
    static func accepts(_ format: OutputFormat, videoCodec codec: CodecID) -> Bool {
        switch format.muxer {
        case .mp4: return [.h264, .hevc, .av1, .vp9, .mpeg4].contains(codec)
        case .mov: return [.h264, .hevc, .prores, .mjpeg, .mpeg4].contains(codec)
        case .matroska: return [.h264, .hevc, .av1, .vp9, .vp8, .mpeg4, .prores, .mpeg2video].contains(codec)
        case .webm: return [.vp9, .vp8, .av1].contains(codec)
        default: return false
        }
    }

    /// Audio codecs each container can hold when copying.
    static func accepts(_ format: OutputFormat, audioCodec codec: CodecID) -> Bool {
        switch format.muxer {
        case .mp4: return codec == .aac
        // An .m4a holds Apple Lossless as it is: lossless sound stays lossless, bit for bit.
        case .ipod: return codec == .aac || codec == .alac
        // QuickTime carries MP3, ALAC and PCM as they are; re-encoding MP3 to AAC would be lossy twice.
        case .mov: return [.aac, .mp3, .alac, .pcmS16LE].contains(codec)
        case .matroska: return [.aac, .opus, .vorbis, .flac, .mp3, .ac3, .eac3].contains(codec)
        case .webm: return [.opus, .vorbis].contains(codec)
        case .mp3: return codec == .mp3
        case .opus: return codec == .opus
        case .flac: return codec == .flac
        case .wav: return codec == .pcmS16LE
        default: return false
        }
    }

    /// Plans a video conversion: the video lane (copied or re-encoded), the audio lanes, and the
    /// notes that say what each does, in the order a reader meets them.
    static func plan(_ request: VideoRequest, media: MediaSnapshot) throws(ConvertError) -> VideoPlan {
        guard let video = media.video else { throw media.missingVideoError(maxPixels: request.maxPixels) }
        try check(request)
        var request = request
        var fitted: String?
        if request.situation == .sendToWindows, let fit = windowsFit(video), fit.height < request.maxHeight ?? .max {
            request.maxHeight = fit.height
            fitted = fit.note
        }
        let format = OutputFormat.video(request.container)
        let cut = try cutRange(request, media: media)
        let slowMotion = slowMotionDecision(
            request.slowMotion, media: media, cut: cut != nil,
            sound: media.streams.contains { $0.kind == .audio })
        let planned = try plannedVideo(
            request, video: video, media: media, format: format, cut: cut, flattening: slowMotion.flattening)
        var lanes = [planned.lane]
        // A re-encode's own notes lead, then the fit, the cut, then what it did to HDR.
        var notes = planned.lead
        notes += (fitted.map { [$0] } ?? []) + (cut.map { [cutNote($0)] } ?? []) + planned.rest
        notes += slowMotion.notes
        let markers = keptSlowMotionMarkers(request.slowMotion, media: media, format: format, cut: cut != nil)
        notes += markers.notes
        // FFmpeg 5.1 reads only the base (left) view of MV-HEVC, and no muxer writes the stereo boxes.
        if video.isStereo { notes.append("3D video: left eye only") }
        let audio = try plannedAudio(
            request, media: media, format: format, cut: cut, flattening: slowMotion.flattening)
        lanes += audio.lanes
        notes += audio.notes
        let subtitles = subtitlePlan(
            request.subtitles, keepLocation: request.keepLocation, media: media, format: format, cut: cut)
        lanes += subtitles.lanes
        notes += subtitles.notes
        let covers = coverArt(media: media, format: format, beside: lanes)
        lanes += covers.lanes
        notes += covers.notes + chapterNotes(media: media, format: format, cut: cut)
        notes += leftOutNotes(media: media, kept: lanes, offerChoice: request.situation == .convert)
        var plan = VideoPlan(
            format: movWriter(format, lanes: lanes), lanes: lanes, keepLocation: request.keepLocation,
            notes: notes)
        plan.timesByFrameRate = media.isElementaryStream
        if let cut { (plan.start, plan.end) = (cut.start, cut.start + cut.length) }
        plan.keepIdentifiers = request.keepMetadata
        plan.maxPixels = request.maxPixels
        plan.trailer = markers.trailer
        try plan.checkPixels(path: request.input)
        return plan
    }

    /// Refuses request values no plan can honour.
    private static func check(_ request: VideoRequest) throws(ConvertError) {
        if let crf = request.crf, !(0...63).contains(crf) {
            throw ConvertError(code: .requestCrf, message: "The quality (CRF) must be between 0 and 63.")
        }
        if let height = request.maxHeight, height < 16 {
            throw ConvertError(code: .requestMaxHeight, message: "The maximum height must be at least 16 pixels.")
        }
    }

    /// Whether the situation lets the video be copied as it is (before asking whether the
    /// container can take the copy).
    private static func wantsCopy(_ request: VideoRequest, video: StreamSnapshot, format: OutputFormat, cut: Cut?)
        -> Bool
    {
        // A copy can only start on a keyframe; a cut is made on the exact frame.
        guard cut == nil, request.crf == nil else { return false }
        let displayHeight = video.isSideways ? video.width : video.height
        if let height = request.maxHeight, Int32(height) < displayHeight { return false }
        switch request.situation {
        case .sendToWindows:
            return isWindowsCompatible(video)
        case .convert:
            let wanted = request.codec.map(CodecID.init) ?? video.codec
            return wanted == video.codec && accepts(format, videoCodec: video.codec)
        }
    }

    /// The video lane and its notes: a copy when the situation and container allow one, else a
    /// re-encode whose notes say why and what it did to HDR.
    private static func plannedVideo(
        _ request: VideoRequest, video: StreamSnapshot, media: MediaSnapshot, format: OutputFormat, cut: Cut?,
        flattening: SlowMotionFlattening?
    ) throws(ConvertError) -> (lane: LanePlan, lead: [JobNote], rest: [String]) {
        let copyVideo = wantsCopy(request, video: video, format: format, cut: cut)
        let timing = media.isElementaryStream ? rawStreamTiming(media) : nil
        // Re-timing frames needs a re-encode: a copy keeps the file's own timing.
        let flatten = flattening.map { _ in "its slow motion flattened, which a copy cannot do" }
        let copyProblem = copyVideo ? (timing?.message ?? copyProblem(video, format: format) ?? flatten) : nil
        if copyVideo && copyProblem == nil { return (.copy(video), [], ["video copied without re-encoding"]) }
        var (codec, encoding) = try reencoding(request, video: video, format: format, cut: cut)
        if let flattening { encoding.filter = flattening.videoFilter + "," + encoding.filter }
        let reencoded = "video re-encoded to \(codec.rawValue)" + (copyProblem.map { " (\($0))" } ?? "")
        var lead: [JobNote] = []
        // A raw stream's timing said inside the re-encode's note keeps its kind and values, so a
        // front end can still add its advice to it.
        if copyVideo, let timing {
            lead.append(JobNote(.rawStreamTiming, reencoded, detail: timing.detail))
        } else {
            lead.append(reencoded)
        }
        // A raw stream re-encoded anyway (send-to-windows, a codec change) still says how it was timed.
        if let timing, copyProblem == nil { lead.append(timing) }
        var notes: [String] = []
        switch encoding.dynamicRange {
        case .toneMap(let source):
            notes.append("HDR (\(source == .hlg ? "HLG" : "PQ")) tone mapped to SDR BT.709")
        case .keepHDR:
            notes.append("HDR kept")
        case .none:
            break
        }
        if video.doviProfile != nil { notes.append("Dolby Vision metadata dropped; its base layer was converted") }
        if encoding.deinterlaces { notes.append(deinterlaceNote(video, mode: .eachField)) }
        return (.video(video, encoding), lead, notes)
    }

    /// The codec and encoder settings of a video re-encode, refusing what the container or the
    /// codec cannot do.
    private static func reencoding(
        _ request: VideoRequest, video: StreamSnapshot, format: OutputFormat, cut: Cut?
    ) throws(ConvertError) -> (VideoCodec, VideoEncoding) {
        let path = request.input
        guard video.decodable else {
            throw ConvertError(
                code: .unsupportedCodec,
                message: "\(path) uses the \(video.codecTag.isEmpty ? video.codecName : video.codecTag) "
                    + "video codec, which this build of FFmpeg cannot decode.", path: path)
        }
        // Without an explicit codec, a re-encode (for --crf or --max-height) keeps the source's
        // codec when the container takes it.
        let sourceCodec = VideoCodec.allCases.first {
            CodecID($0) == video.codec && accepts(format, videoCodec: video.codec)
        }
        let codec = request.codec ?? sourceCodec ?? (request.container == .webm ? .vp9 : .h264)
        guard accepts(format, videoCodec: CodecID(codec)) else {
            throw ConvertError(
                code: .requestCodec,
                message: "A \(request.container.rawValue) file cannot hold \(codec.rawValue) video.")
        }
        if let preset = request.preset, codec != .h264 && codec != .hevc {
            throw ConvertError(
                code: .requestPreset,
                message: "The \(preset.rawValue) encoder preset applies to H.264 and HEVC, not \(codec.rawValue).")
        }
        var encoding = try videoEncoding(
            codec, source: video, format: format, crf: request.crf,
            preset: request.preset ?? request.situation.defaultPreset,
            maxHeight: request.maxHeight, path: path)
        if let cut {
            encoding.filter = "trim=start=\(cut.start):duration=\(cut.length),setpts=PTS-STARTPTS," + encoding.filter
        }
        return (codec, encoding)
    }

    /// The audio lanes (trimmed with the cut) and a note for each.
    private static func plannedAudio(
        _ request: VideoRequest, media: MediaSnapshot, format: OutputFormat, cut: Cut?,
        flattening: SlowMotionFlattening?
    ) throws(ConvertError) -> (lanes: [LanePlan], notes: [String]) {
        let choice = request.situation == .sendToWindows ? .automatic : request.audioTracks
        var lanes: [LanePlan] = []
        var notes: [String] = []
        for var audio in try audioLanes(media: media, format: format, path: request.input, choice: choice) {
            if let cut {
                var encoding = audioEncoding(for: format, source: audio.stream)
                encoding.trim = "atrim=start=\(cut.start):duration=\(cut.length),asetpts=PTS-STARTPTS"
                audio = .audio(audio.stream, encoding)
            } else if let flattening {
                var encoding = audioEncoding(for: format, source: audio.stream)
                encoding.trim = flattening.audioFilter(duration: audio.stream.duration ?? media.duration)
                audio = .audio(audio.stream, encoding)
            }
            lanes.append(audio)
            switch audio {
            case .audio(_, let encoding): notes.append("audio re-encoded with \(encoding.encoder)")
            default: notes.append("audio copied without re-encoding")
            }
            if let downmix = downmixNote(audio, format: format) { notes.append(downmix) }
        }
        return (lanes, notes)
    }

    /// How a raw stream's frames are timed, for its note.
    static func rawStreamTiming(_ media: MediaSnapshot) -> JobNote {
        let rounded = ((media.rawFrameRate ?? 0) * 1000).rounded() / 1000
        let rate = rounded == rounded.rounded() ? "\(Int(rounded))" : "\(rounded)"
        let source: JobNote.FrameRateSource
        let message: String
        switch media.rawTiming {
        case .given:
            source = .request
            message = "a raw stream has no timestamps: timed at \(rate) fps, as asked"
        case .assumed:
            source = .assumed
            message = "a raw stream has no timestamps and does not say its frame rate: timed at \(rate) fps"
        case .stream, nil:
            source = .stream
            message = "a raw stream has no timestamps: timed at \(rate) fps, the rate it says"
        }
        return JobNote(.rawStreamTiming, message, detail: .rawStreamTiming(framesPerSecond: rounded, source: source))
    }

    /// Why a stream copy of `video` into `format` would not play as the source does, or nil:
    /// FFmpeg 5.1's Matroska and WebM muxers write neither a display matrix nor an edit list, so
    /// a portrait clip would play sideways and a trimmed clip would show the frames its edit list
    /// hides. Such a copy becomes a re-encode with the pixels turned and only the shown frames.
    static func copyProblem(_ video: StreamSnapshot, format: OutputFormat) -> String? {
        guard !format.isISOBMFF else { return nil }
        let name = format.muxer == .matroska ? "MKV" : format.muxer.name.uppercased()
        if rotationFilter(video.rotation) != nil {
            return "turned upright: an \(name) file cannot say it is rotated"
        }
        if video.hiddenPackets > 0 {
            return "only the frames the source plays: an \(name) file has no edit list"
        }
        return nil
    }

    /// Whether `video` plays on a stock Windows PC as it is: 8-bit 4:2:0 SDR H.264 up to High profile.
    static func isWindowsCompatible(_ video: StreamSnapshot) -> Bool {
        video.codec == .h264 && [PixelFormat.yuv420p, .yuvj420p].contains(video.pixelFormat)
            && CodecID.h264PlayableProfiles.contains(video.profile) && ToneMapDecision.classify(video) == .sdr
    }

    /// The encoder settings and filter chain for re-encoding `source` as `codec`.
    static func videoEncoding(
        _ codec: VideoCodec, source: StreamSnapshot, format: OutputFormat, crf: Int?, preset: EncoderPreset = .medium,
        maxHeight: Int?, path: String
    ) throws(ConvertError) -> VideoEncoding {
        let carriesHDR = codec == .hevc || codec == .av1
        let range = try ToneMapDecision.decide(for: source, targetCarriesHDR: carriesHDR, path: path)
        // MP4/MOV carry the display matrix; Matroska in FFmpeg 5.1 cannot, so pixels are rotated there.
        let keepMatrix = format.isISOBMFF
        var filters: [String] = []
        // Fields are rows of the stored picture: woven before anything turns or scales it.
        if let deinterlace = deinterlace(source, mode: .eachField) { filters.append(deinterlace) }
        if !keepMatrix, let rotate = rotationFilter(source.rotation) { filters.append(rotate) }
        let sideways = keepMatrix && source.isSideways
        if let maxHeight {
            // The limit applies to the displayed picture: a sideways clip's displayed height is
            // its stored width. -2 keeps the other side even, as 4:2:0 encoders need.
            filters.append(sideways ? "scale=w='min(iw,\(maxHeight))':h=-2" : "scale=w=-2:h='min(ih,\(maxHeight))'")
        } else if source.width % 2 != 0 || source.height % 2 != 0 {
            filters.append("scale=w=trunc(iw/2)*2:h=trunc(ih/2)*2")
        }
        switch range {
        case .toneMap(let from): filters.append(ToneMapDecision.filter(for: from))
        case .keepHDR: filters.append("format=yuv420p10le")
        case .none: filters.append("format=yuv420p")
        }
        let options: [OutputFormat.Option]
        switch codec {
        case .h264:
            options = [.init(key: "crf", value: "\(crf ?? 23)"), .init(key: "preset", value: preset.rawValue)]
        case .hevc:
            options = [.init(key: "crf", value: "\(crf ?? 28)"), .init(key: "preset", value: preset.rawValue)]
        case .vp9:
            options = [
                .init(key: "crf", value: "\(crf ?? 32)"), .init(key: "b", value: "0"),
                .init(key: "row-mt", value: "1"), .init(key: "deadline", value: "good"),
                .init(key: "cpu-used", value: "4"),
            ]
        case .av1:
            options = [.init(key: "crf", value: "\(crf ?? 35)"), .init(key: "preset", value: "8")]
        }
        let encoder: String
        switch codec {
        case .h264: encoder = "libx264"
        case .hevc: encoder = "libx265"
        case .vp9: encoder = "libvpx-vp9"
        case .av1: encoder = "libsvtav1"
        }
        return VideoEncoding(
            encoder: encoder, options: options, filter: filters.joined(separator: ","),
            dynamicRange: range, keepsDisplayMatrix: keepMatrix, deinterlaces: source.isInterlaced)
    }

    /// How an interlaced source becomes progressive frames: one a field (1080i50 → 50p, motion
    /// as smooth as the camera saw it) or one a frame (→ 25p, half the frames to code).
    enum Deinterlacing: String {
        case eachField = "send_field"
        case eachFrame = "send_frame"
    }

    /// libavfilter's bwdif (motion-adaptive, the field order from each frame's flags) for an
    /// interlaced `source`, nil for a progressive one. Every output codec here codes progressive
    /// frames, and a player shows woven fields as combs on anything that moves.
    static func deinterlace(_ source: StreamSnapshot, mode: Deinterlacing) -> String? {
        source.isInterlaced ? "bwdif=mode=\(mode.rawValue):parity=auto:deint=all" : nil
    }

    /// The note on a deinterlaced source: what its fields became.
    static func deinterlaceNote(_ source: StreamSnapshot, mode: Deinterlacing) -> String {
        guard let rate = source.frameRate else {
            let unit = mode == .eachField ? "field" : "frame"
            return "interlaced video deinterlaced to one progressive frame a \(unit) (bwdif)"
        }
        let frames = UnitText.decimal(mode == .eachField ? rate * 2 : rate, 2)
        return "interlaced video (\(UnitText.decimal(rate * 2, 2)) fields a second) deinterlaced to \(frames) "
            + "progressive frames a second (bwdif)"
    }

    /// The filter that turns the picture upright for a display-matrix rotation in degrees
    /// (FFmpeg's sign: −90 means the picture must be turned 90° clockwise), or nil for none.
    static func rotationFilter(_ rotation: Double) -> String? {
        var theta = (-rotation).truncatingRemainder(dividingBy: 360)
        if theta < 0 { theta += 360 }
        if abs(theta - 90) < 1 { return "transpose=clock" }
        if abs(theta - 180) < 1 { return "hflip,vflip" }
        if abs(theta - 270) < 1 { return "transpose=cclock" }
        return nil
    }

    /// The part of the input a request keeps (start and length in seconds), or nil for all of it.
    static func cutRange(_ request: VideoRequest, media: MediaSnapshot) throws(ConvertError) -> (
        start: Double, length: Double
    )? {
        try cutRange(start: request.start, duration: request.duration, input: request.input, media: media)
    }

    /// The part of `input` from `start` lasting `duration` (nil: to the end), or nil for all of it.
    static func cutRange(
        start: Double, duration: Double?, input: String,
        media: MediaSnapshot
    ) throws(ConvertError) -> (start: Double, length: Double)? {
        guard start > 0 || duration != nil else { return nil }
        guard start >= 0, start.isFinite else {
            throw ConvertError(code: .requestStart, message: "The start time must be zero or more seconds.")
        }
        if let duration, !(duration > 0 && duration.isFinite) {
            throw ConvertError(code: .requestDuration, message: "The duration must be more than 0 seconds.")
        }
        try media.checkStart(start, input: input)
        let total = media.duration ?? .infinity
        return (start, min(duration ?? .infinity, total - start))
    }

    /// The note of a trimmed output: "cut from 2 s, 4 s long".
    static func cutNote(_ cut: (start: Double, length: Double)) -> String {
        "cut from \(UnitText.duration(cut.start)), \(UnitText.duration(cut.length)) long"
    }
}
