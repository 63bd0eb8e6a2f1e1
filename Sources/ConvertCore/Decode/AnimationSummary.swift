/// How many frames an animated GIF, PNG (APNG) or WebP has and how long it plays once, read
/// from its frame headers without decoding a picture (what `info` shows and a still output's
/// note says).
package struct AnimationSummary: Equatable, Sendable {
    /// The number of frames (more than one).
    var frames: Int
    /// One pass through every frame, in milliseconds.
    var milliseconds: Int

    /// The summary of `data` in `format`; nil for a still image (one frame) or a format that
    /// does not animate.
    static func of(_ data: [UInt8], format: PhotoFormat, path: String) -> AnimationSummary? {
        switch format {
        case .gif:
            (try? GIFAnimation(data, maxPixels: nil, path: path)).flatMap { AnimationSummary(durations: $0.durations) }
        case .webp: WebPAnimationReader.durations(of: data).flatMap(AnimationSummary.init(durations:))
        case .png: apngDurations(data).flatMap(AnimationSummary.init(durations:))
        default: nil
        }
    }

    /// The summary of the image sequence (a movie track) that an animated AVIF or HEIF in
    /// `source` holds beside its still image; nil when it has none, or one frame.
    static func ofSequence(_ source: any ByteSource) -> AnimationSummary? {
        guard let track = ImageSequenceTrack.read(source), track.frames > 1 else { return nil }
        return AnimationSummary(track)
    }

    /// The same for the HEIF at `path`, read through `meta`'s open file when there is one; nil
    /// too when the file cannot be opened.
    static func ofSequence(meta: HeifMeta?, path: String) -> AnimationSummary? {
        guard let source: any ByteSource = meta?.source ?? (try? FileByteSource(path: path)) else { return nil }
        return ofSequence(source)
    }

    /// Whether the file at `path` is an animation FFmpeg decodes as a video (a GIF or an APNG of
    /// more than one frame, an animated AVIF's movie track), which the video commands take as a
    /// silent clip. FFmpeg 5.1 reads no animated WebP, so that stays a photo.
    package static func playsAsVideo(path: String) -> Bool {
        guard let head = RawFile.head(of: path, count: 64), let format = MediaSniffer.kind(of: head).photoFormat
        else { return false }
        if format == .avif { return hasSequence(path: path) }
        guard format == .gif || format == .png, let data = try? ImageDecoder.readAll(path: path) else { return false }
        return of(data, format: format, path: path) != nil
    }

    /// Whether the file at `path` is an animated AVIF: an image sequence of more than one frame
    /// beside its still image, which the video engine decodes (`convert --to webp` hands it there).
    package static func isImageSequence(path: String) -> Bool {
        guard let head = RawFile.head(of: path, count: 64), MediaSniffer.kind(of: head).photoFormat == .avif else {
            return false
        }
        return hasSequence(path: path)
    }

    /// Whether the file at `path`, already known to be an AVIF, has a sequence of more than one frame.
    private static func hasSequence(path: String) -> Bool {
        (try? FileByteSource(path: path)).flatMap { ofSequence($0) } != nil
    }

    /// "24 frames, 2.4 s".
    package var description: String {
        let seconds = Double(milliseconds) / 1000
        let text = seconds >= 10 ? String(Int(seconds.rounded())) : String(Double((seconds * 10).rounded()) / 10)
        return "\(frames) frames, \(text) s"
    }

    /// The note on a still output made from one frame of an animation in `format`; what keeps
    /// the rest (another frame, an animated WebP, an MP4) is the front end's to say.
    func stillNote(frame: Int?, format: PhotoFormat) -> JobNote {
        let message =
            frame.map { "an animation (\(description)): frame \($0 + 1) kept" }
            ?? "an animation (\(description)): only the first frame is kept"
        let detail = JobNote.AnimationStill(
            format: format, frames: frames, milliseconds: milliseconds, keptFrame: (frame ?? 0) + 1,
            frameWasChosen: frame != nil)
        return JobNote(.animationStill, message, detail: .animationStill(detail))
    }

    /// The note on a still output made from an animated AVIF or HEIF in `format`: its still
    /// image (the `meta` box's primary item, the first frame as encoders write it) is what libheif
    /// reads. An AVIF's frames are read by the video engine (an animated WebP or a clip: the
    /// front end says how); a HEIF's are not read.
    func sequenceStillNote(format: PhotoFormat) -> JobNote {
        let name = format == .avif ? "AVIF" : "HEIF"
        let message =
            "an animated \(name) (\(description)): its still image (the first frame) is kept"
            + (format == .avif ? "" : "; offconvert cannot read \(name) animation frames yet")
        let detail = JobNote.AnimationStill(
            format: format, frames: frames, milliseconds: milliseconds, keptFrame: 1, frameWasChosen: false)
        return JobNote(.animationStill, message, detail: .animationStill(detail))
    }

    /// The delays of an APNG's frames (its `fcTL` chunks), when an `acTL` chunk makes it
    /// animated; chunk lengths are checked against the data.
    private static func apngDurations(_ data: [UInt8]) -> [Int]? {
        var animated = false
        var durations: [Int] = []
        for chunk in PNGChunks(data) {
            if chunk.type == "acTL" { animated = true }
            if chunk.type == "fcTL", chunk.body.count >= 26 {
                let body = chunk.body.lowerBound
                let numerator = Int(data[body + 20]) << 8 | Int(data[body + 21])
                let denominator = Int(data[body + 22]) << 8 | Int(data[body + 23])
                // A denominator of 0 means hundredths (the APNG specification).
                durations.append(numerator * 1000 / (denominator == 0 ? 100 : denominator))
            }
        }
        return animated ? durations : nil
    }
}

extension AnimationSummary {
    /// The summary of frames shown for `durations` milliseconds each; nil for one frame. (In an
    /// extension, so the memberwise initialiser stays.)
    init?(durations: [Int]) {
        guard durations.count > 1 else { return nil }
        self.init(frames: durations.count, milliseconds: durations.reduce(0, +))
    }

    /// The summary of an animated AVIF's or HEIF's image sequence track.
    package init(_ track: ImageSequenceTrack) {
        self.init(frames: track.frames, milliseconds: track.milliseconds)
    }
}
