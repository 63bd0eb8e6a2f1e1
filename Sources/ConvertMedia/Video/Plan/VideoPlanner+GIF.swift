import ConvertCore
internal import FFmpegLayer

extension VideoPlanner {
    /// Plans a GIF.
    static func gif(_ request: GIFRequest, media: MediaSnapshot) throws(ConvertError) -> VideoPlan {
        let path = request.input
        let video = try decodablePicture(media, maxPixels: request.maxPixels, path: path)
        guard (1...30).contains(request.framesPerSecond) else {
            throw ConvertError(code: .requestFps, message: "The GIF frame rate must be between 1 and 30.")
        }
        guard (16...1280).contains(request.width) else {
            throw ConvertError(code: .requestWidth, message: "The GIF width must be between 16 and 1280 pixels.")
        }
        guard request.start >= 0, request.start.isFinite else {
            throw ConvertError(code: .requestStart, message: "The start time must be zero or more seconds.")
        }
        if let duration = request.duration, !(duration > 0 && duration <= GIFRequest.maximumDuration) {
            throw ConvertError(
                code: .requestDuration,
                message: "The GIF duration must be more than 0 and at most \(Int(GIFRequest.maximumDuration)) seconds.")
        }
        try media.checkStart(request.start, input: path)
        let duration = request.duration ?? GIFRequest.maximumDuration
        let range = try ToneMapDecision.decide(for: video, targetCarriesHDR: false, path: path)
        var filters: [String] = []
        // One frame a field: the GIF's own frame rate then picks from smooth motion.
        if let deinterlace = deinterlace(video, mode: .eachField) { filters.append(deinterlace) }
        if let rotate = rotationFilter(video.rotation) { filters.append(rotate) }
        // Flattened first, so the GIF's length and frame rate are those of the clip as the phone plays it.
        let slowMotion = slowMotionDecision(request.slowMotion, media: media, cut: request.start > 0, sound: false)
        if let flattening = slowMotion.flattening { filters.append(flattening.videoFilter) }
        filters.append("trim=start=\(request.start):duration=\(duration),setpts=PTS-STARTPTS")
        if case .toneMap(let from) = range { filters.append(ToneMapDecision.filter(for: from)) }
        filters.append("fps=\(request.framesPerSecond)")
        filters.append("scale=w='min(iw,\(request.width))':h=-1:flags=lanczos")
        // One palette for the whole clip, weighted to the pixels that change (stats_mode=diff), applied
        // with Sierra-2-4A error diffusion: smooth gradients and, on real camera footage, smaller
        // files than ordered (Bayer) dithering (4.7 MB against 6.6 MB for motion.mov's 8 s).
        // diff_mode=rectangle re-encodes only the part of each frame that moved.
        let palette =
            "split[a][b];[a]palettegen=stats_mode=diff[p];[b][p]paletteuse=dither=sierra2_4a:diff_mode=rectangle"
        let encoding = VideoEncoding(
            encoder: "gif", options: [], filter: filters.joined(separator: ",") + "," + palette,
            dynamicRange: range, keepsDisplayMatrix: false)
        var notes = [JobNote(fact: "\(request.framesPerSecond) fps, \(request.width) px wide at most")]
        if video.isStereo { notes.append("3D video: left eye only") }
        if video.isInterlaced { notes.append(JobNote(fact: "interlaced video deinterlaced (bwdif)")) }
        notes += slowMotion.notes.map { JobNote(fact: $0) }
        if request.duration == nil, let total = media.duration, total - request.start > GIFRequest.maximumDuration {
            notes.append("limited to the first \(Int(GIFRequest.maximumDuration)) seconds")
        }
        let made = media.duration.map { min(duration, $0 - request.start) } ?? duration
        if let asked = request.duration, let total = media.duration, request.start + asked > total + 0.05 {
            notes.append(
                "made \(UnitText.duration(made)), not \(UnitText.duration(asked)): the video ends \(UnitText.duration(made)) after the start"
            )
        }
        // A GIF stores every frame as a picture: 30 s of camera footage is tens of megabytes.
        if request.duration == nil && made > GIFRequest.longDefault {
            notes.append(
                JobNote(
                    .largeGIF, "warning: a \(UnitText.duration(made)) GIF is large", detail: .largeGIF(seconds: made)))
        }
        var plan = VideoPlan(
            format: .gif, lanes: [.video(video, encoding)], keepLocation: false,
            start: request.start, end: request.start + duration, notes: notes)
        plan.maxPixels = request.maxPixels
        try plan.checkPixels(path: request.input)
        return plan
    }

    /// The picture an animation is made from: `media`'s video stream, which FFmpeg must decode.
    static func decodablePicture(_ media: MediaSnapshot, maxPixels: Int, path: String) throws(ConvertError)
        -> StreamSnapshot
    {
        guard let video = media.video else { throw media.missingVideoError(maxPixels: maxPixels) }
        guard video.decodable else {
            throw ConvertError(
                code: .unsupportedCodec,
                message: "\(path) uses a video codec this build of FFmpeg cannot decode.", path: path)
        }
        return video
    }
}
