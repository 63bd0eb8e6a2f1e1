/// The stable key of one kind of failure, as ``ConvertError/code`` carries it.
///
/// These are the keys scripts and translations use: `--json` prints them as `"key"`, and the CLI's
/// messages file (`OFFCONVERT_MESSAGES`) translates `error.KEY`. One naming style, `area.words-in-kebab-case`;
/// the area usually matches the error's ``ConvertError/Category``. An open set: new codes may be added.
extension ConvertError {
    /// A failure's stable key.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        /// The key, e.g. `"input.corrupt"`.
        public let rawValue: String

        /// A code with its key; every code is a static member below.
        package init(_ rawValue: String) { self.rawValue = rawValue }

        public var description: String { rawValue }
    }
}

extension ConvertError.Code {
    // MARK: allowance: The free daily allowance.

    /// `allowance.damaged`.
    public static let allowanceDamaged = ConvertError.Code("allowance.damaged")
    /// `allowance.exhausted`.
    public static let allowanceExhausted = ConvertError.Code("allowance.exhausted")
    /// `allowance.store`.
    public static let allowanceStore = ConvertError.Code("allowance.store")

    // MARK: batch: A batch run.

    /// `batch.running`.
    public static let batchRunning = ConvertError.Code("batch.running")

    // MARK: cancelled: Cancellation.

    /// `cancelled`.
    public static let cancelled = ConvertError.Code("cancelled")

    // MARK: decode: A decoder failed.

    /// `decode.failed`.
    public static let decodeFailed = ConvertError.Code("decode.failed")

    // MARK: device: Failed for a reason outside the file (space, permissions, I/O, memory).

    /// `device.create`.
    public static let deviceCreate = ConvertError.Code("device.create")
    /// `device.denied`.
    public static let deviceDenied = ConvertError.Code("device.denied")
    /// `device.ffmpeg`.
    public static let deviceFfmpeg = ConvertError.Code("device.ffmpeg")
    /// `device.full`.
    public static let deviceFull = ConvertError.Code("device.full")
    /// `device.memory`: a picture larger than the memory this process can get (RAM and swap,
    /// its cgroup's limit, its rlimits).
    public static let deviceMemory = ConvertError.Code("device.memory")
    /// `device.io`.
    public static let deviceIo = ConvertError.Code("device.io")
    /// `device.write`.
    public static let deviceWrite = ConvertError.Code("device.write")

    // MARK: encode: An encoder failed.

    /// `encode.failed`.
    public static let encodeFailed = ConvertError.Code("encode.failed")

    // MARK: input: The input is missing, unreadable, damaged, or not what it must be.

    /// `input.changed`.
    public static let inputChanged = ConvertError.Code("input.changed")
    /// `input.color-profile`.
    public static let inputColorProfile = ConvertError.Code("input.color-profile")
    /// `input.corrupt`.
    public static let inputCorrupt = ConvertError.Code("input.corrupt")
    /// `input.denied`.
    public static let inputDenied = ConvertError.Code("input.denied")
    /// `input.directory`.
    public static let inputDirectory = ConvertError.Code("input.directory")
    /// `input.empty`.
    public static let inputEmpty = ConvertError.Code("input.empty")
    /// `input.limit`.
    public static let inputLimit = ConvertError.Code("input.limit")
    /// `input.missing`.
    public static let inputMissing = ConvertError.Code("input.missing")
    /// `input.no-audio`.
    public static let inputNoAudio = ConvertError.Code("input.no-audio")
    /// `input.no-data`.
    public static let inputNoData = ConvertError.Code("input.no-data")
    /// `input.no-duration`.
    public static let inputNoDuration = ConvertError.Code("input.no-duration")
    /// `input.no-video`.
    public static let inputNoVideo = ConvertError.Code("input.no-video")
    /// `input.not-a-file`.
    public static let inputNotAFile = ConvertError.Code("input.not-a-file")
    /// `input.too-large`.
    public static let inputTooLarge = ConvertError.Code("input.too-large")
    /// `input.too-many-pixels`.
    public static let inputTooManyPixels = ConvertError.Code("input.too-many-pixels")
    /// `input.truncated`.
    public static let inputTruncated = ConvertError.Code("input.truncated")
    /// `input.unreadable`.
    public static let inputUnreadable = ConvertError.Code("input.unreadable")
    /// `input.unrecognised`: content no reader recognises (text, random bytes, a format offconvert
    /// does not read), from the photo decoder and the media probe alike.
    public static let inputUnrecognised = ConvertError.Code("input.unrecognised")
    /// `input.unsupported-feature`.
    public static let inputUnsupportedFeature = ConvertError.Code("input.unsupported-feature")

    // MARK: internal: A bug or an unexpected library failure.

    /// `internal`.
    public static let internalError = ConvertError.Code("internal")
    /// `internal.color`.
    public static let internalColor = ConvertError.Code("internal.color")
    /// `internal.edit-list`.
    public static let internalEditList = ConvertError.Code("internal.edit-list")
    /// `internal.encoder`.
    public static let internalEncoder = ConvertError.Code("internal.encoder")
    /// `internal.ffmpeg`.
    public static let internalFfmpeg = ConvertError.Code("internal.ffmpeg")
    /// `internal.memory`.
    public static let internalMemory = ConvertError.Code("internal.memory")
    /// `internal.resize`.
    public static let internalResize = ConvertError.Code("internal.resize")
    /// `internal.target-overshoot`.
    public static let internalTargetOvershoot = ConvertError.Code("internal.target-overshoot")
    /// `internal.tone-map`.
    public static let internalToneMap = ConvertError.Code("internal.tone-map")

    // MARK: license: The licence file.

    /// `license.expired`.
    public static let licenseExpired = ConvertError.Code("license.expired")
    /// `license.invalid`.
    public static let licenseInvalid = ConvertError.Code("license.invalid")
    /// `license.malformed`.
    public static let licenseMalformed = ConvertError.Code("license.malformed")

    // MARK: motion: The motion of a Live or motion photo.

    /// `motion.missing`.
    public static let motionMissing = ConvertError.Code("motion.missing")

    // MARK: output: Where or how the output would be written is not possible.

    /// `output.depth-unsupported`.
    public static let outputDepthUnsupported = ConvertError.Code("output.depth-unsupported")
    /// `output.encoder-missing`.
    public static let outputEncoderMissing = ConvertError.Code("output.encoder-missing")
    /// `output.exists`.
    public static let outputExists = ConvertError.Code("output.exists")
    /// `output.is-input`.
    public static let outputIsInput = ConvertError.Code("output.is-input")
    /// `output.missing`.
    public static let outputMissing = ConvertError.Code("output.missing")
    /// `output.no-name`.
    public static let outputNoName = ConvertError.Code("output.no-name")
    /// `output.not-a-folder`.
    public static let outputNotAFolder = ConvertError.Code("output.not-a-folder")
    /// `output.unsupported`.
    public static let outputUnsupported = ConvertError.Code("output.unsupported")

    // MARK: privacy: A privacy guarantee could not be kept, so nothing was written.

    /// `privacy.compressed-metadata`.
    public static let privacyCompressedMetadata = ConvertError.Code("privacy.compressed-metadata")
    /// `privacy.location-remains`.
    public static let privacyLocationRemains = ConvertError.Code("privacy.location-remains")
    /// `privacy.unsupported-format`.
    public static let privacyUnsupportedFormat = ConvertError.Code("privacy.unsupported-format")

    // MARK: request: The request itself cannot be met: an option out of range, a target out of reach.

    /// `request.all-audio`.
    public static let requestAllAudio = ConvertError.Code("request.all-audio")
    /// `request.audio-track`.
    public static let requestAudioTrack = ConvertError.Code("request.audio-track")
    /// `request.bitrate`: a sound bitrate asked of a lossless format (FLAC, WAV).
    public static let requestBitrate = ConvertError.Code("request.bitrate")
    /// `request.codec`.
    public static let requestCodec = ConvertError.Code("request.codec")
    /// `request.crf`.
    public static let requestCrf = ConvertError.Code("request.crf")
    /// `request.duration`.
    public static let requestDuration = ConvertError.Code("request.duration")
    /// `request.fps`.
    public static let requestFps = ConvertError.Code("request.fps")
    /// `request.margin`.
    public static let requestMargin = ConvertError.Code("request.margin")
    /// `request.max-height`.
    public static let requestMaxHeight = ConvertError.Code("request.max-height")
    /// `request.max-size`.
    public static let requestMaxSize = ConvertError.Code("request.max-size")
    /// `request.memory-budget`: one file alone needs more memory than `--memory-budget` allows.
    public static let requestMemoryBudget = ConvertError.Code("request.memory-budget")
    /// `request.no-inputs`.
    public static let requestNoInputs = ConvertError.Code("request.no-inputs")
    /// `request.not-hdr`.
    public static let requestNotHdr = ConvertError.Code("request.not-hdr")
    /// `request.preset`.
    public static let requestPreset = ConvertError.Code("request.preset")
    /// `request.frame`: `--frame` past an animation's last frame, or on an APNG.
    public static let requestFrame = ConvertError.Code("request.frame")
    /// `request.quality`.
    public static let requestQuality = ConvertError.Code("request.quality")
    /// `request.resize`.
    public static let requestResize = ConvertError.Code("request.resize")
    /// `request.resize-too-large`.
    public static let requestResizeTooLarge = ConvertError.Code("request.resize-too-large")
    /// `request.start`.
    public static let requestStart = ConvertError.Code("request.start")
    /// `request.target`.
    public static let requestTarget = ConvertError.Code("request.target")
    /// `request.target-format`.
    public static let requestTargetFormat = ConvertError.Code("request.target-format")
    /// `request.target-size`.
    public static let requestTargetSize = ConvertError.Code("request.target-size")
    /// `request.target-too-small`.
    public static let requestTargetTooSmall = ConvertError.Code("request.target-too-small")
    /// `request.target-unreachable`.
    public static let requestTargetUnreachable = ConvertError.Code("request.target-unreachable")
    /// `request.too-large`.
    public static let requestTooLarge = ConvertError.Code("request.too-large")
    /// `request.width`.
    public static let requestWidth = ConvertError.Code("request.width")

    // MARK: state: offconvert's own state files.

    /// `state.not-a-file`.
    public static let stateNotAFile = ConvertError.Code("state.not-a-file")

    // MARK: unsupported: A valid input that this build does not convert.

    /// `unsupported.codec`.
    public static let unsupportedCodec = ConvertError.Code("unsupported.codec")
    /// `unsupported.dolby-vision-profile`.
    public static let unsupportedDolbyVisionProfile = ConvertError.Code("unsupported.dolby-vision-profile")
    /// `unsupported.encoder`.
    public static let unsupportedEncoder = ConvertError.Code("unsupported.encoder")
    /// `unsupported.library`: a codec library loaded only when a conversion needs it (libjxl,
    /// libswscale) is not installed.
    public static let unsupportedLibrary = ConvertError.Code("unsupported.library")
    /// `unsupported.ffmpeg`.
    public static let unsupportedFfmpeg = ConvertError.Code("unsupported.ffmpeg")
    /// `unsupported.not-a-photo`: a video (MP4, MOV, MKV) given where a photo is read.
    public static let unsupportedNotAPhoto = ConvertError.Code("unsupported.not-a-photo")
    /// `unsupported.size`.
    public static let unsupportedSize = ConvertError.Code("unsupported.size")

    // MARK: usage: Command-line usage (the CLI only).

    /// `usage`.
    public static let usage = ConvertError.Code("usage")

    // MARK: watch: Watching a folder.

    /// `watch.spawn`.
    public static let watchSpawn = ConvertError.Code("watch.spawn")
}
