internal import CFFmpeg
import ConvertCore

/// The output file format: which FFmpeg muxer writes it and with which options.
struct OutputFormat: Sendable, Equatable {
    /// FFmpeg's muxer name (`mp4`, `matroska`, ...); always explicit, since the staged temporary
    /// file's `.partial` name says nothing about the format.
    var muxer: String
    /// The file name extension.
    var fileExtension: String
    /// Muxer options.
    var options: [Option]

    /// One `key=value` option.
    struct Option: Sendable, Equatable {
        var key: String
        var value: String
    }

    /// Whether the container is MPEG-4/QuickTime (codec tags such as `hvc1` matter there).
    var isISOBMFF: Bool { muxer == "mp4" || muxer == "mov" || muxer == "ipod" }

    static func video(_ container: VideoContainer) -> OutputFormat {
        switch container {
        case .mp4: return OutputFormat(muxer: "mp4", fileExtension: "mp4", options: [.faststart])
        case .mov: return OutputFormat(muxer: "mov", fileExtension: "mov", options: [.faststart])
        case .mkv: return OutputFormat(muxer: "matroska", fileExtension: "mkv", options: [])
        case .webm: return OutputFormat(muxer: "webm", fileExtension: "webm", options: [])
        }
    }

    static func audio(_ format: AudioFormat) -> OutputFormat {
        switch format {
        case .m4a: return OutputFormat(muxer: "ipod", fileExtension: "m4a", options: [.faststart])
        case .mp3: return OutputFormat(muxer: "mp3", fileExtension: "mp3", options: [])
        case .opus: return OutputFormat(muxer: "opus", fileExtension: "opus", options: [])
        case .wav: return OutputFormat(muxer: "wav", fileExtension: "wav", options: [])
        case .flac: return OutputFormat(muxer: "flac", fileExtension: "flac", options: [])
        }
    }

    static let gif = OutputFormat(muxer: "gif", fileExtension: "gif", options: [])
}

extension OutputFormat.Option {
    /// MP4/MOV: move the index (moov) to the front so the file starts playing before it is fully read.
    static let faststart = OutputFormat.Option(key: "movflags", value: "+faststart")
}

/// How one video stream is re-encoded.
struct VideoEncoding: Sendable, Equatable {
    /// FFmpeg encoder name (`libx264`, `libx265`, `libvpx-vp9`, `libsvtav1`, `gif`).
    var encoder: String
    /// Encoder private options (`crf`, `preset`, ...).
    var options: [OutputFormat.Option]
    /// The libavfilter chain between decoder and encoder (scale, rotation, tone map, format).
    var filter: String
    /// The dynamic-range handling the filter implements.
    var dynamicRange: ToneMapDecision.Action
    /// Whether the output keeps the source's display matrix (false when pixels are rotated).
    var keepsDisplayMatrix: Bool
}

/// How one audio stream is re-encoded.
struct AudioEncoding: Sendable, Equatable {
    /// FFmpeg encoder name (`aac`, `libopus`, `libmp3lame`, `flac`, `pcm_s16le`).
    var encoder: String
    /// Output sample rate; `nil` keeps the source's when the encoder accepts it.
    var sampleRate: Int32?
    /// Output channel count (1 or 2; more is downmixed to stereo).
    var channels: Int32
    /// Target bit rate in bits per second, for lossy encoders.
    var bitRate: Int64?
    /// Filters run before resampling (`atrim` for a cut), or empty.
    var trim = ""
}

/// What happens to one kept input stream.
enum LanePlan: Sendable, Equatable {
    /// Packets copied as they are.
    case copy(StreamSnapshot)
    /// Decoded, filtered and re-encoded as video.
    case video(StreamSnapshot, VideoEncoding)
    /// Decoded, resampled and re-encoded as audio.
    case audio(StreamSnapshot, AudioEncoding)

    var stream: StreamSnapshot {
        switch self {
        case .copy(let stream), .video(let stream, _), .audio(let stream, _): return stream
        }
    }

    var isCopy: Bool {
        if case .copy = self { return true }
        return false
    }
}

/// Everything decided before any work starts: the output format, which streams are kept and
/// whether each is copied or re-encoded. Planning fails early for known reasons (no decoder,
/// Dolby Vision without a base layer, no video) before a file is created.
struct VideoPlan: Sendable, Equatable {
    var format: OutputFormat
    /// Kept streams, video first.
    var lanes: [LanePlan]
    /// Keep container location tags.
    var keepLocation: Bool
    /// Keep container tags that identify the device or its owner.
    var keepIdentifiers = false
    /// Only packets from this time (seconds) on matter; the pump seeks there.
    var start: Double = 0
    /// Packets after this time (seconds) are not read.
    var end: Double?
    /// Facts for the job result.
    var notes: [String]
    /// Packets carry no timestamps (a raw elementary stream): the pump gives each video packet
    /// a decoding time from the stream's frame rate (its VUI timing, else FFmpeg's 25 fps).
    var timesByFrameRate = false
    /// The frame rate a raw stream's reader is opened with (`--fps`), nil for its own.
    var rawFrameRate: Double?
    /// The most pixels a decoded video frame may have (see ``PixelLimit``).
    var maxPixels = PixelLimit.defaultMaxPixels

    /// Whether no stream is re-encoded.
    var isPassthrough: Bool { lanes.allSatisfy(\.isCopy) }

    /// Refuses a plan that would decode frames larger than ``maxPixels``, judged from the stream
    /// parameters before any decoder is opened or file created. Copied streams are never decoded,
    /// so their size does not matter.
    func checkPixels(path: String) throws(ConvertError) {
        for case .video(let stream, _) in lanes {
            try PixelLimit.check(width: Int(stream.width), height: Int(stream.height), limit: maxPixels, path: path)
        }
    }
}

/// Turns requests into plans.
enum VideoPlanner {
    /// Video codecs each container can hold when copying.
    static func accepts(_ format: OutputFormat, videoCodec name: String) -> Bool {
        switch format.muxer {
        case "mp4": return ["h264", "hevc", "av1", "vp9", "mpeg4"].contains(name)
        case "mov": return ["h264", "hevc", "prores", "mjpeg", "mpeg4"].contains(name)
        case "matroska": return ["h264", "hevc", "av1", "vp9", "vp8", "mpeg4", "prores", "mpeg2video"].contains(name)
        case "webm": return ["vp9", "vp8", "av1"].contains(name)
        default: return false
        }
    }

    /// Audio codecs each container can hold when copying.
    static func accepts(_ format: OutputFormat, audioCodec name: String) -> Bool {
        switch format.muxer {
        case "mp4", "ipod": return name == "aac"
        // QuickTime carries MP3, ALAC and PCM as they are; re-encoding MP3 to AAC would be lossy twice.
        case "mov": return ["aac", "mp3", "alac", "pcm_s16le"].contains(name)
        case "matroska": return ["aac", "opus", "vorbis", "flac", "mp3", "ac3", "eac3"].contains(name)
        case "webm": return ["opus", "vorbis"].contains(name)
        case "mp3": return name == "mp3"
        case "opus": return name == "opus"
        case "flac": return name == "flac"
        case "wav": return name == "pcm_s16le"
        default: return false
        }
    }

    /// Plans a video conversion.
    static func plan(_ request: VideoRequest, media: MediaSnapshot) throws(ConvertError) -> VideoPlan {
        let path = request.input
        guard let video = media.video else { throw media.missingVideoError(maxPixels: request.maxPixels) }
        if let crf = request.crf, !(0...63).contains(crf) {
            throw ConvertError(.request, key: "request.crf", message: "The quality (CRF) must be between 0 and 63.")
        }
        if let height = request.maxHeight, height < 16 {
            throw ConvertError(.request, key: "request.max-height", message: "The maximum height must be at least 16 pixels.")
        }
        let format = OutputFormat.video(request.container)
        let cut = try cutRange(request, media: media)
        var notes: [String] = cut.map { ["cut from \(seconds($0.start)) s, \(seconds($0.length)) s long"] } ?? []
        let displayHeight = video.isSideways ? video.width : video.height
        let scales = request.maxHeight.map { Int32($0) < displayHeight } ?? false
        var copyVideo: Bool
        switch request.situation {
        case .sendToWindows:
            copyVideo = isWindowsCompatible(video) && !scales && request.crf == nil
        case .convert:
            let wanted = request.codec.map(\.rawValue) ?? video.codecName
            copyVideo = wanted == video.codecName && accepts(format, videoCodec: video.codecName)
                && !scales && request.crf == nil
        }
        // A copy can only start on a keyframe; a cut is made on the exact frame.
        if cut != nil { copyVideo = false }
        var lanes: [LanePlan] = []
        let copyProblem = copyVideo
            ? (media.isElementaryStream ? rawStreamTiming(media) : copyProblem(video, format: format))
            : nil
        if copyVideo && copyProblem == nil {
            lanes.append(.copy(video))
            notes.append("video copied without re-encoding")
        } else {
            guard video.decodable else {
                throw ConvertError(.unsupported, key: "unsupported.codec",
                                   message: "\(path) uses the \(video.codecTag.isEmpty ? video.codecName : video.codecTag) "
                                       + "video codec, which this build of FFmpeg cannot decode.", path: path)
            }
            // Without an explicit codec, a re-encode (for --crf or --max-height) keeps the source's
            // codec when the container takes it.
            let sourceCodec = VideoCodec(rawValue: video.codecName).flatMap { accepts(format, videoCodec: $0.rawValue) ? $0 : nil }
            let codec = request.codec ?? sourceCodec ?? (request.container == .webm ? .vp9 : .h264)
            guard accepts(format, videoCodec: codec.rawValue) else {
                throw ConvertError(.request, key: "request.codec",
                                   message: "A \(request.container.rawValue) file cannot hold \(codec.rawValue) video.")
            }
            if let preset = request.preset, codec != .h264 && codec != .hevc {
                throw ConvertError(.request, key: "request.preset",
                                   message: "--preset \(preset.rawValue) applies to H.264 and HEVC, not \(codec.rawValue).")
            }
            var encoding = try videoEncoding(codec, source: video, format: format, crf: request.crf,
                                             preset: request.preset ?? request.situation.defaultPreset,
                                             maxHeight: request.maxHeight, path: path)
            if let cut {
                encoding.filter = "trim=start=\(cut.start):duration=\(cut.length),setpts=PTS-STARTPTS,"
                    + encoding.filter
            }
            switch encoding.dynamicRange {
            case .toneMap(let source):
                notes.append("HDR (\(source == .hlg ? "HLG" : "PQ")) tone mapped to SDR BT.709")
            case .keepHDR:
                notes.append("HDR kept")
            case .none:
                break
            }
            if video.doviProfile != nil { notes.append("Dolby Vision metadata dropped; its base layer was converted") }
            notes.insert("video re-encoded to \(codec.rawValue)" + (copyProblem.map { " (\($0))" } ?? ""), at: 0)
            // A raw stream re-encoded anyway (send-to-windows, a codec change) still says how it was timed.
            if media.isElementaryStream && copyProblem == nil { notes.insert(rawStreamTiming(media), at: 1) }
            lanes.append(.video(video, encoding))
        }
        // FFmpeg 5.1 reads only the base (left) view of MV-HEVC, and no muxer writes the stereo boxes.
        if video.isStereo { notes.append("3D video: left eye only") }
        let choice = request.situation == .sendToWindows ? .automatic : request.audioTracks
        for var audio in try audioLanes(media: media, format: format, path: path, choice: choice) {
            if let cut {
                var encoding = audioEncoding(for: format, source: audio.stream)
                encoding.trim = "atrim=start=\(cut.start):duration=\(cut.length),asetpts=PTS-STARTPTS"
                audio = .audio(audio.stream, encoding)
            }
            lanes.append(audio)
            switch audio {
            case .audio(_, let encoding): notes.append("audio re-encoded with \(encoding.encoder)")
            default: notes.append("audio copied without re-encoding")
            }
        }
        notes += leftOutNotes(media: media, kept: lanes, offerChoice: request.situation == .convert)
        var plan = VideoPlan(format: keepsDolbyVision(format, lanes: lanes), lanes: lanes, keepLocation: request.keepLocation,
                             notes: notes)
        plan.timesByFrameRate = media.isElementaryStream
        if let cut { (plan.start, plan.end) = (cut.start, cut.start + cut.length) }
        plan.keepIdentifiers = request.keepMetadata
        plan.maxPixels = request.maxPixels
        try plan.checkPixels(path: path)
        return plan
    }

    /// How a raw stream's frames are timed, for its note.
    static func rawStreamTiming(_ media: MediaSnapshot) -> String {
        let rounded = ((media.rawFrameRate ?? 0) * 1000).rounded() / 1000
        let rate = rounded == rounded.rounded() ? "\(Int(rounded))" : "\(rounded)"
        switch media.rawTiming {
        case .given: return "a raw stream has no timestamps: timed at \(rate) fps, as --fps says"
        case .assumed:
            return "a raw stream has no timestamps and does not say its frame rate: timed at \(rate) fps; --fps sets another"
        case .stream, nil: return "a raw stream has no timestamps: timed at \(rate) fps, the rate it says"
        }
    }

    /// FFmpeg 5.1's MOV muxer never writes a Dolby Vision configuration box (`dvcC`/`dvvC`);
    /// its MP4 muxer does. A MOV with a copied Dolby Vision stream is therefore written by the
    /// MP4 muxer under QuickTime's brand (`ftyp qt  `), so players still find the record.
    static func keepsDolbyVision(_ format: OutputFormat, lanes: [LanePlan]) -> OutputFormat {
        guard format.muxer == "mov",
              lanes.contains(where: { $0.isCopy && $0.stream.kind == .video && $0.stream.doviProfile != nil })
        else { return format }
        return OutputFormat(muxer: "mp4", fileExtension: format.fileExtension,
                            options: format.options + [.init(key: "brand", value: "qt  ")])
    }

    /// Why a stream copy of `video` into `format` would not play as the source does, or nil:
    /// FFmpeg 5.1's Matroska and WebM muxers write neither a display matrix nor an edit list, so
    /// a portrait clip would play sideways and a trimmed clip would show the frames its edit list
    /// hides. Such a copy becomes a re-encode with the pixels turned and only the shown frames.
    static func copyProblem(_ video: StreamSnapshot, format: OutputFormat) -> String? {
        guard !format.isISOBMFF else { return nil }
        let name = format.muxer == "matroska" ? "MKV" : format.muxer.uppercased()
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
        let profiles: Set<Int32> = [FF_PROFILE_H264_BASELINE, FF_PROFILE_H264_CONSTRAINED_BASELINE,
                                    FF_PROFILE_H264_MAIN, FF_PROFILE_H264_HIGH]
        return video.codecName == "h264" && ["yuv420p", "yuvj420p"].contains(video.pixelFormat)
            && profiles.contains(video.profile) && ToneMapDecision.classify(video) == .sdr
    }

    /// The first AAC track (copied when the container takes it), else the first decodable audio
    /// track re-encoded to the container's audio codec; nil when there is no usable audio.
    static func audioLane(media: MediaSnapshot, format: OutputFormat, path: String) throws(ConvertError) -> LanePlan? {
        let audioStreams = media.streams.filter { $0.kind == .audio }
        if let aac = audioStreams.first(where: \.isAAC), accepts(format, audioCodec: "aac") {
            return .copy(aac)
        }
        if let first = audioStreams.first(where: { accepts(format, audioCodec: $0.codecName) }) {
            return .copy(first)
        }
        guard let source = audioStreams.first(where: \.decodable) else { return nil }
        return .audio(source, audioEncoding(for: format, source: source))
    }

    /// The audio lanes for `choice`: ``audioLane(media:format:path:)`` for `.automatic`, else the
    /// chosen tracks, each copied when the container takes its codec and re-encoded otherwise.
    static func audioLanes(media: MediaSnapshot, format: OutputFormat, path: String,
                           choice: AudioTrackChoice) throws(ConvertError) -> [LanePlan] {
        let audioStreams = media.streams.filter { $0.kind == .audio }
        let chosen: [StreamSnapshot]
        switch choice {
        case .automatic:
            return try audioLane(media: media, format: format, path: path).map { [$0] } ?? []
        case .track(let number):
            guard (1...max(audioStreams.count, 1)).contains(number), number <= audioStreams.count else {
                throw ConvertError(.request, key: "request.audio-track",
                                   message: "\(path) has \(audioStreams.count) audio track\(audioStreams.count == 1 ? "" : "s"), "
                                       + "so there is no audio track \(number).", path: path)
            }
            chosen = [audioStreams[number - 1]]
        case .all:
            chosen = audioStreams
        }
        var lanes: [LanePlan] = []
        for stream in chosen {
            if accepts(format, audioCodec: stream.codecName) {
                lanes.append(.copy(stream))
            } else if stream.decodable {
                lanes.append(.audio(stream, audioEncoding(for: format, source: stream)))
            } else {
                throw ConvertError(.unsupported, key: "unsupported.codec",
                                   message: "\(path) has sound in a codec this build of FFmpeg cannot decode.", path: path)
            }
        }
        return lanes
    }

    /// Notes for the tracks not kept: each audio track named (number, language, codec, channels)
    /// with the option that keeps it, the other tracks (metadata, timecode) counted.
    static func leftOutNotes(media: MediaSnapshot, kept: [LanePlan], offerChoice: Bool, offersAll: Bool = true) -> [String] {
        let keptIndices = Set(kept.map(\.stream.index))
        let audioStreams = media.streams.filter { $0.kind == .audio }
        var notes: [String] = []
        for (position, stream) in audioStreams.enumerated() where !keptIndices.contains(stream.index) {
            var description = [stream.language, soundName(stream)].compactMap { $0 }
            if stream.channels > 0 { description.append(stream.channels == 1 ? "mono" : stream.channels == 2 ? "stereo" : "\(stream.channels) ch") }
            let hint = offerChoice ? "; --audio-track \(position + 1)\(offersAll ? " or --all-audio" : "") keeps it" : ""
            notes.append("audio track \(position + 1) (\(description.joined(separator: " "))) left out\(hint)")
        }
        let others = media.streams.filter { $0.kind != .audio && !keptIndices.contains($0.index) }.count
        if others > 0 { notes.append("\(others) other track\(others == 1 ? "" : "s") left out") }
        return notes
    }

    /// A sound codec as people know it (`AAC`, `MP3`, `PCM`), for notes.
    static func soundName(_ stream: StreamSnapshot) -> String {
        if stream.codecName.hasPrefix("pcm_") { return "PCM" }
        let names = ["aac": "AAC", "mp3": "MP3", "opus": "Opus", "vorbis": "Vorbis", "flac": "FLAC", "alac": "ALAC",
                     "ac3": "AC-3", "eac3": "E-AC-3", "none": stream.codecTag.isEmpty ? "unknown" : stream.codecTag]
        return names[stream.codecName] ?? stream.codecName
    }

    /// The audio encoder for a container.
    static func audioEncoding(for format: OutputFormat, source: StreamSnapshot) -> AudioEncoding {
        let channels: Int32 = source.channels == 1 ? 1 : 2
        switch format.muxer {
        case "matroska", "webm", "opus":
            return AudioEncoding(encoder: "libopus", sampleRate: 48000, channels: channels, bitRate: channels == 1 ? 64_000 : 128_000)
        case "mp3":
            return AudioEncoding(encoder: "libmp3lame", sampleRate: nil, channels: channels, bitRate: 192_000)
        case "flac":
            return AudioEncoding(encoder: "flac", sampleRate: nil, channels: channels, bitRate: nil)
        case "wav":
            return AudioEncoding(encoder: "pcm_s16le", sampleRate: nil, channels: channels, bitRate: nil)
        default:
            return AudioEncoding(encoder: "aac", sampleRate: nil, channels: channels, bitRate: channels == 1 ? 96_000 : 160_000)
        }
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
            options = [.init(key: "crf", value: "\(crf ?? 32)"), .init(key: "b", value: "0"),
                       .init(key: "row-mt", value: "1"), .init(key: "deadline", value: "good"),
                       .init(key: "cpu-used", value: "4")]
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
        return VideoEncoding(encoder: encoder, options: options, filter: filters.joined(separator: ","),
                             dynamicRange: range, keepsDisplayMatrix: keepMatrix)
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

    /// Plans a GIF.
    static func gif(_ request: GIFRequest, media: MediaSnapshot) throws(ConvertError) -> VideoPlan {
        let path = request.input
        guard let video = media.video else { throw media.missingVideoError(maxPixels: request.maxPixels) }
        guard video.decodable else {
            throw ConvertError(.unsupported, key: "unsupported.codec",
                               message: "\(path) uses a video codec this build of FFmpeg cannot decode.", path: path)
        }
        guard (1...30).contains(request.framesPerSecond) else {
            throw ConvertError(.request, key: "request.fps", message: "The GIF frame rate must be between 1 and 30.")
        }
        guard (16...1280).contains(request.width) else {
            throw ConvertError(.request, key: "request.width", message: "The GIF width must be between 16 and 1280 pixels.")
        }
        guard request.start >= 0, request.start.isFinite else {
            throw ConvertError(.request, key: "request.start", message: "The start time must be zero or more seconds.")
        }
        if let duration = request.duration, !(duration > 0 && duration <= GIFRequest.maximumDuration) {
            throw ConvertError(.request, key: "request.duration",
                               message: "The GIF duration must be more than 0 and at most \(Int(GIFRequest.maximumDuration)) seconds.")
        }
        if let total = media.duration, request.start >= total {
            throw ConvertError(.request, key: "request.start",
                               message: "The start time is past the end of \(path) (\(Int(total)) s long).")
        }
        let duration = request.duration ?? GIFRequest.maximumDuration
        let range = try ToneMapDecision.decide(for: video, targetCarriesHDR: false, path: path)
        var filters: [String] = []
        if let rotate = rotationFilter(video.rotation) { filters.append(rotate) }
        filters.append("trim=start=\(request.start):duration=\(duration),setpts=PTS-STARTPTS")
        if case .toneMap(let from) = range { filters.append(ToneMapDecision.filter(for: from)) }
        filters.append("fps=\(request.framesPerSecond)")
        filters.append("scale=w='min(iw,\(request.width))':h=-1:flags=lanczos")
        // One palette for the whole clip, weighted to the pixels that change (stats_mode=diff), applied
        // with Sierra-2-4A error diffusion: smooth gradients and, on real camera footage, smaller
        // files than ordered (Bayer) dithering (4.7 MB against 6.6 MB for motion.mov's 8 s).
        // diff_mode=rectangle re-encodes only the part of each frame that moved.
        let palette = "split[a][b];[a]palettegen=stats_mode=diff[p];[b][p]paletteuse=dither=sierra2_4a:diff_mode=rectangle"
        let encoding = VideoEncoding(encoder: "gif", options: [], filter: filters.joined(separator: ",") + "," + palette,
                                     dynamicRange: range, keepsDisplayMatrix: false)
        var notes = ["\(request.framesPerSecond) fps, \(request.width) px wide at most"]
        if video.isStereo { notes.append("3D video: left eye only") }
        if request.duration == nil, let total = media.duration, total - request.start > GIFRequest.maximumDuration {
            notes.append("limited to the first \(Int(GIFRequest.maximumDuration)) seconds")
        }
        let made = media.duration.map { min(duration, $0 - request.start) } ?? duration
        if let asked = request.duration, let total = media.duration, request.start + asked > total + 0.05 {
            notes.append("made \(seconds(made)) s, not \(seconds(asked)) s: the video ends \(seconds(made)) s after the start")
        }
        // A GIF stores every frame as a picture: 30 s of camera footage is tens of megabytes.
        if request.duration == nil && made > GIFRequest.longDefault {
            notes.append("warning: a \(seconds(made)) s GIF is large; --duration, --fps or --width make it smaller")
        }
        var plan = VideoPlan(format: .gif, lanes: [.video(video, encoding)], keepLocation: false,
                             start: request.start, end: request.start + duration, notes: notes)
        plan.maxPixels = request.maxPixels
        try plan.checkPixels(path: request.input)
        return plan
    }

    /// The part of the input a request keeps (start and length in seconds), or nil for all of it.
    static func cutRange(_ request: VideoRequest, media: MediaSnapshot) throws(ConvertError) -> (start: Double, length: Double)? {
        try cutRange(start: request.start, duration: request.duration, input: request.input, media: media)
    }

    /// The part of `input` from `start` lasting `duration` (nil: to the end), or nil for all of it.
    static func cutRange(start: Double, duration: Double?, input: String,
                         media: MediaSnapshot) throws(ConvertError) -> (start: Double, length: Double)? {
        guard start > 0 || duration != nil else { return nil }
        guard start >= 0, start.isFinite else {
            throw ConvertError(.request, key: "request.start", message: "The start time must be zero or more seconds.")
        }
        if let duration, !(duration > 0 && duration.isFinite) {
            throw ConvertError(.request, key: "request.duration", message: "The duration must be more than 0 seconds.")
        }
        let total = media.duration ?? .infinity
        if start >= total {
            throw ConvertError(.request, key: "request.start",
                               message: "The start time is past the end of \(input) (\(seconds(total)) s long).")
        }
        return (start, min(duration ?? .infinity, total - start))
    }

    /// Seconds for a note: whole when whole, else one decimal.
    static func seconds(_ value: Double) -> String {
        let tenths = (value * 10).rounded() / 10
        return tenths == tenths.rounded() ? String(Int(tenths)) : String(tenths)
    }

    /// Plans an audio extraction.
    static func extractAudio(_ request: AudioExtractionRequest, media: MediaSnapshot) throws(ConvertError) -> VideoPlan {
        let path = request.input
        let format = OutputFormat.audio(request.format)
        let audioStreams = media.streams.filter { $0.kind == .audio }
        let all = request.audioTrack == .all && audioStreams.count > 1
        if all && request.format != .m4a {
            throw ConvertError(.request, key: "request.all-audio",
                               message: "Every audio track goes into one .m4a; a .\(request.format.fileExtension) file holds one sound track.",
                               path: path)
        }
        // One track only: --all-audio of a clip with one track is that track.
        let choice: AudioTrackChoice = all ? .all : request.audioTrack == .all ? .automatic : request.audioTrack
        var lanes = try audioLanes(media: media, format: format, path: path, choice: choice)
        guard !lanes.isEmpty else {
            let hasAudio = !audioStreams.isEmpty
            throw ConvertError(hasAudio ? .unsupported : .input, key: hasAudio ? "unsupported.codec" : "input.no-audio",
                               message: hasAudio ? "\(path) has sound in a codec this build of FFmpeg cannot decode."
                                   : "\(path) has no sound to extract.", path: path)
        }
        let cut = try cutRange(start: request.start, duration: request.duration, input: path, media: media)
        if let cut {
            // A cut falls on the exact sample, so the kept sound is decoded and encoded again.
            lanes = lanes.map { lane in
                var encoding = audioEncoding(for: format, source: lane.stream)
                encoding.trim = "atrim=start=\(cut.start):duration=\(cut.length),asetpts=PTS-STARTPTS"
                return .audio(lane.stream, encoding)
            }
        }
        var notes: [String] = cut.map { ["cut from \(seconds($0.start)) s, \(seconds($0.length)) s long"] } ?? []
        if all && cut != nil {
            notes.append("\(lanes.count) audio tracks re-encoded")
        } else if all {
            notes.append(lanes.allSatisfy(\.isCopy) ? "\(lanes.count) audio tracks copied without re-encoding"
                             : "\(lanes.count) audio tracks saved")
            for (position, stream) in audioStreams.enumerated()
            where lanes.contains(where: { !$0.isCopy && $0.stream.index == stream.index }) {
                notes.append("audio track \(position + 1) (\(soundName(stream))) re-encoded")
            }
        } else {
            notes.append(lanes[0].isCopy ? "audio copied without re-encoding" : "audio re-encoded")
            notes += leftOutNotes(media: media, kept: lanes, offerChoice: true).filter { $0.hasPrefix("audio track") }
        }
        var plan = VideoPlan(format: format, lanes: lanes, keepLocation: request.keepLocation, notes: notes)
        if let cut { (plan.start, plan.end) = (cut.start, cut.start + cut.length) }
        plan.keepIdentifiers = request.keepMetadata
        return plan
    }
}
