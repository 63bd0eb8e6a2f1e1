/// A video container offconvert writes.
public enum VideoContainer: String, Sendable, CaseIterable {
    /// MPEG-4 (`.mp4`), with the index at the front (faststart) so it plays while downloading.
    case mp4
    /// QuickTime (`.mov`).
    case mov
    /// Matroska (`.mkv`).
    case mkv
    /// WebM (`.webm`): VP9 or AV1 with Opus only.
    case webm

    /// The file name extension, without the dot.
    public var fileExtension: String { rawValue }
}

/// A video codec offconvert encodes.
public enum VideoCodec: String, Sendable, CaseIterable {
    /// H.264 (libx264): plays everywhere. SDR only.
    case h264
    /// HEVC (libx265): smaller; keeps HDR (10-bit).
    case hevc
    /// VP9 (libvpx-vp9): for WebM. SDR only here.
    case vp9
    /// AV1 (SVT-AV1): smallest; keeps HDR (10-bit).
    case av1
}

/// What a conversion is for. The situation decides defaults and what counts as compatible.
public enum VideoSituation: String, Sendable {
    /// An MP4 with H.264 and AAC that plays on a stock Windows PC: copied when the source already
    /// is that, re-encoded otherwise (HDR tone mapped to SDR).
    case sendToWindows = "send-to-windows"
    /// Exactly the container and codecs the request names; streams that already fit are copied.
    case convert
}

/// Where a job writes its output.
public struct OutputLocation: Sendable, Equatable {
    /// An explicit output path; wins over ``directory``.
    public var path: String?
    /// The folder to write into; `nil` means next to the input.
    public var directory: String?
    /// Replace an existing file of the same name (never the input itself).
    public var overwrite: Bool
    /// ``path`` is a name chosen for the user (by the caller's batch naming), not one the user
    /// typed: if another process takes it before the output is committed, the output is
    /// numbered around it (`clip (2).mp4`) instead of failing with `output.exists`.
    public var mayRenumber = false

    /// Creates an output location. By default the output goes next to the input, named after it,
    /// and an existing file is never replaced (`clip (2).mp4` is chosen instead).
    public init(path: String? = nil, directory: String? = nil, overwrite: Bool = false, mayRenumber: Bool = false) {
        self.path = path
        self.directory = directory
        self.overwrite = overwrite
        self.mayRenumber = mayRenumber
    }
}

/// A request to convert one video file.
public struct VideoRequest: Sendable, Equatable {
    /// The input file.
    public var input: String
    /// What the conversion is for.
    public var situation: VideoSituation
    /// The output container.
    public var container: VideoContainer
    /// The video codec; `nil` keeps the source's codec when the container allows it (copying the
    /// stream when nothing else changes, re-encoding with the same codec for ``crf`` or
    /// ``maxHeight``), else uses the container's default (H.264, or VP9 for WebM).
    public var codec: VideoCodec?
    /// Constant rate factor (quality; lower is better). `nil` uses the codec's default. Setting it
    /// forces a re-encode.
    public var crf: Int?
    /// The x264/x265 preset of a re-encode to H.264 or HEVC; `nil` uses the situation's
    /// (``VideoSituation/defaultPreset``). Naming one for VP9 or AV1 is refused (`request.preset`).
    public var preset: EncoderPreset?
    /// The largest displayed height in pixels; taller videos are scaled down keeping their aspect.
    public var maxHeight: Int?
    /// Keep the container's location tags (`©xyz`, `com.apple.quicktime.location.ISO6709`).
    /// Off by default: a shared video does not say where it was made.
    public var keepLocation: Bool
    /// Keep tags that identify the device or its owner (serial numbers, owner names, content
    /// identifiers), as photos do under `--keep-metadata`. Off by default.
    public var keepMetadata = false
    /// Where to write.
    public var output: OutputLocation
    /// The most pixels a decoded frame may have; a re-encode of a larger video is refused with
    /// `input.too-many-pixels` before any decoder is opened (see ``PixelLimit``). Passthrough
    /// remuxes never decode, so they are not limited.
    public var maxPixels: Int
    /// Where the output starts, in seconds of the input (0: its beginning). Cutting re-encodes,
    /// so the cut falls on the exact frame, not on the keyframe before it.
    public var start: Double = 0
    /// How long the output lasts, in seconds; `nil` runs to the end.
    public var duration: Double?
    /// The sound tracks kept.
    public var audioTracks = AudioTrackChoice.automatic
    /// Whether the subtitle tracks are kept where the container can carry them.
    public var subtitles = SubtitleChoice.keep
    /// The frame rate a raw `.h264`/`.hevc` stream (which has no timestamps) is timed by;
    /// `nil` uses the stream's own timing information, else 30 fps with a note. Other files
    /// keep their own timestamps.
    public var rawFrameRate: Double?
    /// What happens to a phone's slow motion (see ``SlowMotionChoice``); flattened by default,
    /// as a shared clip should play as the phone played it.
    public var slowMotion = SlowMotionChoice.flatten

    /// Creates a request.
    public init(
        input: String, situation: VideoSituation = .convert, container: VideoContainer = .mp4,
        codec: VideoCodec? = nil, crf: Int? = nil, maxHeight: Int? = nil, keepLocation: Bool = false,
        output: OutputLocation = OutputLocation(), maxPixels: Int = PixelLimit.defaultMaxPixels
    ) {
        self.input = input
        self.situation = situation
        self.container = container
        self.codec = codec
        self.crf = crf
        self.maxHeight = maxHeight
        self.keepLocation = keepLocation
        self.output = output
        self.maxPixels = maxPixels
    }

    /// The request for sending `input` to someone on Windows: MP4, H.264, AAC.
    public static func sendToWindows(_ input: String, output: OutputLocation = OutputLocation()) -> VideoRequest {
        VideoRequest(input: input, situation: .sendToWindows, container: .mp4, codec: .h264, output: output)
    }
}

/// Which sound tracks a conversion keeps.
public enum AudioTrackChoice: Sendable, Equatable {
    /// The first AAC track, else the first track (what "send to Windows" keeps).
    case automatic
    /// The n-th audio track of the input, counted from 1.
    case track(Int)
    /// Every audio track.
    case all
}

/// A request to turn part of a video into an animated GIF.
public struct GIFRequest: Sendable, Equatable {
    /// The input video.
    public var input: String
    /// Where the clip starts, in seconds.
    public var start: Double
    /// How long the clip is, in seconds (at most ``maximumDuration``); `nil` means up to the
    /// end of the video or ``maximumDuration``, whichever comes first.
    public var duration: Double?
    /// Frames per second (1...30).
    public var framesPerSecond: Int
    /// Width in pixels (16...1280); the height follows the aspect ratio.
    public var width: Int
    /// Where to write.
    public var output: OutputLocation
    /// The most pixels a decoded frame may have (see ``PixelLimit``).
    public var maxPixels: Int
    /// What happens to a phone's slow motion (see ``SlowMotionChoice``); flattened by default
    /// when the GIF starts at the beginning of the clip.
    public var slowMotion = SlowMotionChoice.flatten

    /// The longest GIF offconvert makes, in seconds: GIFs grow fast.
    public static let maximumDuration: Double = 30

    /// Above this length (seconds) a GIF made without `duration` gets a warning about its size.
    public static let longDefault: Double = 10

    /// Creates a request.
    public init(
        input: String, start: Double = 0, duration: Double? = nil, framesPerSecond: Int = 12,
        width: Int = 480, output: OutputLocation = OutputLocation(),
        maxPixels: Int = PixelLimit.defaultMaxPixels
    ) {
        self.input = input
        self.start = start
        self.duration = duration
        self.framesPerSecond = framesPerSecond
        self.width = width
        self.output = output
        self.maxPixels = maxPixels
    }
}

/// An audio file format offconvert writes.
public enum AudioFormat: String, Sendable, CaseIterable {
    /// AAC in MPEG-4 audio (`.m4a`); AAC sources are copied without re-encoding.
    case m4a
    /// MP3 (LAME).
    case mp3
    /// Opus in Ogg (`.opus`).
    case opus
    /// 16-bit PCM WAVE.
    case wav
    /// FLAC (lossless).
    case flac

    /// The file name extension, without the dot.
    public var fileExtension: String { rawValue }
}

/// A request to save a video's sound as an audio file.
public struct AudioExtractionRequest: Sendable, Equatable {
    /// The input file.
    public var input: String
    /// The audio format to write.
    public var format: AudioFormat
    /// Keep location tags (off by default).
    public var keepLocation: Bool
    /// The sound track saved; ``AudioTrackChoice/all`` saves every track in one `.m4a` (the one
    /// audio format that holds several).
    public var audioTrack = AudioTrackChoice.automatic
    /// Keep tags that identify the device or its owner (off by default).
    public var keepMetadata = false
    /// Where the sound starts, in seconds of the input (0: its beginning); a cut re-encodes.
    public var start: Double = 0
    /// How long the sound lasts, in seconds; `nil` runs to the end.
    public var duration: Double?
    /// The bitrate of an MP3, AAC or Opus encode in bits per second; the sound is then encoded
    /// even when it is already in that format. `nil` uses the format's usual rate, never above a
    /// lossy source's. Asking one of FLAC or WAV fails with `request.bitrate`.
    public var bitRate: Int?
    /// Where to write.
    public var output: OutputLocation

    /// Creates a request.
    public init(
        input: String, format: AudioFormat = .m4a, keepLocation: Bool = false,
        output: OutputLocation = OutputLocation()
    ) {
        self.input = input
        self.format = format
        self.keepLocation = keepLocation
        self.output = output
    }
}
