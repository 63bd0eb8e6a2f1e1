/// The stable key of one kind of failure, as ``ConvertError/code`` carries it.
///
/// These are the keys scripts and translations use: `--json` prints them as `"key"`, and the CLI's
/// messages file (`OFFCONVERT_MESSAGES`) translates `error.KEY`. One naming style, `area.words-in-kebab-case`;
/// the area usually matches the error's ``ConvertError/Category``. Each code fixes its category:
/// the same code is never thrown as two kinds of failure. An open set: new codes may be added.
extension ConvertError {
    /// A failure's stable key, and the kind of failure it always is.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        /// The key, e.g. `"input.corrupt"`.
        public let rawValue: String
        /// The kind of failure this code always is; ``ConvertError/category`` is this.
        public let category: ConvertError.Category

        /// A code with its key and its category; every code is a static member below.
        package init(_ rawValue: String, category: ConvertError.Category) {
            self.rawValue = rawValue
            self.category = category
        }

        public var description: String { rawValue }
    }
}

extension ConvertError.Code {
    // MARK: allowance: The free daily allowance.

    /// `allowance.damaged`.
    public static let allowanceDamaged = ConvertError.Code("allowance.damaged", category: .allowance)
    /// `allowance.exhausted`.
    public static let allowanceExhausted = ConvertError.Code("allowance.exhausted", category: .allowance)
    /// `allowance.store`.
    public static let allowanceStore = ConvertError.Code("allowance.store", category: .device)

    // MARK: batch: A batch run.

    /// `batch.running`.
    public static let batchRunning = ConvertError.Code("batch.running", category: .request)

    // MARK: cancelled: Cancellation.

    /// `cancelled`.
    public static let cancelled = ConvertError.Code("cancelled", category: .cancelled)

    // MARK: decode: A decoder failed.

    /// `decode.failed`.
    public static let decodeFailed = ConvertError.Code("decode.failed", category: .internal)

    // MARK: device: Failed for a reason outside the file (space, permissions, I/O, memory).

    /// `device.create`.
    public static let deviceCreate = ConvertError.Code("device.create", category: .device)
    /// `device.denied`.
    public static let deviceDenied = ConvertError.Code("device.denied", category: .device)
    /// `device.ffmpeg`.
    public static let deviceFfmpeg = ConvertError.Code("device.ffmpeg", category: .device)
    /// `device.full`.
    public static let deviceFull = ConvertError.Code("device.full", category: .device)
    /// `device.memory`: a picture larger than the memory this process can get (RAM and swap,
    /// its cgroup's limit, its rlimits).
    public static let deviceMemory = ConvertError.Code("device.memory", category: .device)
    /// `device.io`.
    public static let deviceIo = ConvertError.Code("device.io", category: .device)
    /// `device.write`.
    public static let deviceWrite = ConvertError.Code("device.write", category: .device)

    // MARK: encode: An encoder failed.

    /// `encode.failed`.
    public static let encodeFailed = ConvertError.Code("encode.failed", category: .internal)

    // MARK: input: The input is missing, unreadable, damaged, or not what it must be.

    /// `input.changed`.
    public static let inputChanged = ConvertError.Code("input.changed", category: .input)
    /// `input.color-profile`.
    public static let inputColorProfile = ConvertError.Code("input.color-profile", category: .unsupported)
    /// `input.corrupt`.
    public static let inputCorrupt = ConvertError.Code("input.corrupt", category: .input)
    /// `input.denied`.
    public static let inputDenied = ConvertError.Code("input.denied", category: .input)
    /// `input.empty`.
    public static let inputEmpty = ConvertError.Code("input.empty", category: .input)
    /// `input.limit`.
    public static let inputLimit = ConvertError.Code("input.limit", category: .input)
    /// `input.missing`.
    public static let inputMissing = ConvertError.Code("input.missing", category: .input)
    /// `input.no-audio`.
    public static let inputNoAudio = ConvertError.Code("input.no-audio", category: .input)
    /// `input.no-data`.
    public static let inputNoData = ConvertError.Code("input.no-data", category: .input)
    /// `input.no-duration`.
    public static let inputNoDuration = ConvertError.Code("input.no-duration", category: .input)
    /// `input.no-video`.
    public static let inputNoVideo = ConvertError.Code("input.no-video", category: .input)
    /// `input.not-a-file`.
    public static let inputNotAFile = ConvertError.Code("input.not-a-file", category: .input)
    /// `input.too-large`.
    public static let inputTooLarge = ConvertError.Code("input.too-large", category: .input)
    /// `input.too-many-pixels`.
    public static let inputTooManyPixels = ConvertError.Code("input.too-many-pixels", category: .input)
    /// `input.truncated`.
    public static let inputTruncated = ConvertError.Code("input.truncated", category: .input)
    /// `input.unreadable`.
    public static let inputUnreadable = ConvertError.Code("input.unreadable", category: .input)
    /// `input.unrecognised`: content no reader recognises (text, random bytes, a format offconvert
    /// does not read), from the photo decoder and the media probe alike.
    public static let inputUnrecognised = ConvertError.Code("input.unrecognised", category: .input)
    /// `input.unsupported-feature`.
    public static let inputUnsupportedFeature = ConvertError.Code("input.unsupported-feature", category: .unsupported)

    // MARK: internal: A bug or an unexpected library failure.

    /// `internal`.
    public static let internalError = ConvertError.Code("internal", category: .internal)
    /// `internal.color`.
    public static let internalColor = ConvertError.Code("internal.color", category: .internal)
    /// `internal.edit-list`.
    public static let internalEditList = ConvertError.Code("internal.edit-list", category: .internal)
    /// `internal.encoder`.
    public static let internalEncoder = ConvertError.Code("internal.encoder", category: .internal)
    /// `internal.ffmpeg`.
    public static let internalFfmpeg = ConvertError.Code("internal.ffmpeg", category: .internal)
    /// `internal.memory`.
    public static let internalMemory = ConvertError.Code("internal.memory", category: .internal)
    /// `internal.resize`.
    public static let internalResize = ConvertError.Code("internal.resize", category: .internal)
    /// `internal.target-overshoot`.
    public static let internalTargetOvershoot = ConvertError.Code("internal.target-overshoot", category: .internal)
    /// `internal.tone-map`.
    public static let internalToneMap = ConvertError.Code("internal.tone-map", category: .internal)

    // MARK: license: The licence file.

    /// `license.expired`.
    public static let licenseExpired = ConvertError.Code("license.expired", category: .allowance)
    /// `license.invalid`.
    public static let licenseInvalid = ConvertError.Code("license.invalid", category: .allowance)
    /// `license.malformed`.
    public static let licenseMalformed = ConvertError.Code("license.malformed", category: .allowance)

    // MARK: motion: The motion of a Live or motion photo.

    /// `motion.missing`.
    public static let motionMissing = ConvertError.Code("motion.missing", category: .unsupported)

    // MARK: output: Where or how the output would be written is not possible.

    /// `output.depth-unsupported`.
    public static let outputDepthUnsupported = ConvertError.Code("output.depth-unsupported", category: .unsupported)
    /// `output.encoder-missing`.
    public static let outputEncoderMissing = ConvertError.Code("output.encoder-missing", category: .unsupported)
    /// `output.exists`.
    public static let outputExists = ConvertError.Code("output.exists", category: .request)
    /// `output.is-input`.
    public static let outputIsInput = ConvertError.Code("output.is-input", category: .request)
    /// `output.missing`.
    public static let outputMissing = ConvertError.Code("output.missing", category: .request)
    /// `output.no-name`.
    public static let outputNoName = ConvertError.Code("output.no-name", category: .request)
    /// `output.not-a-folder`.
    public static let outputNotAFolder = ConvertError.Code("output.not-a-folder", category: .request)
    /// `output.unsupported`.
    public static let outputUnsupported = ConvertError.Code("output.unsupported", category: .unsupported)

    // MARK: privacy: A privacy guarantee could not be kept, so nothing was written.

    /// `privacy.compressed-metadata`.
    public static let privacyCompressedMetadata = ConvertError.Code("privacy.compressed-metadata", category: .unsupported)
    /// `privacy.location-remains`.
    public static let privacyLocationRemains = ConvertError.Code("privacy.location-remains", category: .unsupported)
    /// `privacy.unsupported-format`.
    public static let privacyUnsupportedFormat = ConvertError.Code("privacy.unsupported-format", category: .unsupported)

    // MARK: request: The request itself cannot be met: an option out of range, a target out of reach.

    /// `request.all-audio`.
    public static let requestAllAudio = ConvertError.Code("request.all-audio", category: .request)
    /// `request.audio-track`.
    public static let requestAudioTrack = ConvertError.Code("request.audio-track", category: .request)
    /// `request.bitrate`: a sound bitrate asked of a lossless format (FLAC, WAV).
    public static let requestBitrate = ConvertError.Code("request.bitrate", category: .request)
    /// `request.codec`.
    public static let requestCodec = ConvertError.Code("request.codec", category: .request)
    /// `request.crf`.
    public static let requestCrf = ConvertError.Code("request.crf", category: .request)
    /// `request.duration`.
    public static let requestDuration = ConvertError.Code("request.duration", category: .request)
    /// `request.fps`.
    public static let requestFps = ConvertError.Code("request.fps", category: .request)
    /// `request.margin`.
    public static let requestMargin = ConvertError.Code("request.margin", category: .request)
    /// `request.max-height`.
    public static let requestMaxHeight = ConvertError.Code("request.max-height", category: .request)
    /// `request.max-size`.
    public static let requestMaxSize = ConvertError.Code("request.max-size", category: .request)
    /// `request.no-inputs`.
    public static let requestNoInputs = ConvertError.Code("request.no-inputs", category: .request)
    /// `request.not-hdr`.
    public static let requestNotHdr = ConvertError.Code("request.not-hdr", category: .request)
    /// `request.preset`.
    public static let requestPreset = ConvertError.Code("request.preset", category: .request)
    /// `request.frame`: `--frame` past an animation's last frame, or on an APNG.
    public static let requestFrame = ConvertError.Code("request.frame", category: .request)
    /// `request.quality`.
    public static let requestQuality = ConvertError.Code("request.quality", category: .request)
    /// `request.resize`.
    public static let requestResize = ConvertError.Code("request.resize", category: .request)
    /// `request.resize-too-large`.
    public static let requestResizeTooLarge = ConvertError.Code("request.resize-too-large", category: .request)
    /// `request.start`.
    public static let requestStart = ConvertError.Code("request.start", category: .request)
    /// `request.target`.
    public static let requestTarget = ConvertError.Code("request.target", category: .request)
    /// `request.target-format`.
    public static let requestTargetFormat = ConvertError.Code("request.target-format", category: .request)
    /// `request.target-size`.
    public static let requestTargetSize = ConvertError.Code("request.target-size", category: .request)
    /// `request.target-too-small`.
    public static let requestTargetTooSmall = ConvertError.Code("request.target-too-small", category: .request)
    /// `request.target-unreachable`.
    public static let requestTargetUnreachable = ConvertError.Code("request.target-unreachable", category: .request)
    /// `request.too-large`.
    public static let requestTooLarge = ConvertError.Code("request.too-large", category: .request)
    /// `request.width`.
    public static let requestWidth = ConvertError.Code("request.width", category: .request)

    // MARK: state: offconvert's own state files.

    /// `state.not-a-file`.
    public static let stateNotAFile = ConvertError.Code("state.not-a-file", category: .device)

    // MARK: unsupported: A valid input that this build does not convert.

    /// `unsupported.codec`.
    public static let unsupportedCodec = ConvertError.Code("unsupported.codec", category: .unsupported)
    /// `unsupported.dolby-vision-profile`.
    public static let unsupportedDolbyVisionProfile = ConvertError.Code("unsupported.dolby-vision-profile", category: .unsupported)
    /// `unsupported.encoder`.
    public static let unsupportedEncoder = ConvertError.Code("unsupported.encoder", category: .unsupported)
    /// `unsupported.library`: a codec library loaded only when a conversion needs it (libjxl,
    /// libswscale) is not installed.
    public static let unsupportedLibrary = ConvertError.Code("unsupported.library", category: .unsupported)
    /// `unsupported.ffmpeg`.
    public static let unsupportedFfmpeg = ConvertError.Code("unsupported.ffmpeg", category: .unsupported)
    /// `unsupported.not-a-photo`: a video (MP4, MOV, MKV) given where a photo is read.
    public static let unsupportedNotAPhoto = ConvertError.Code("unsupported.not-a-photo", category: .unsupported)
    /// `unsupported.size`.
    public static let unsupportedSize = ConvertError.Code("unsupported.size", category: .unsupported)

    // MARK: usage: Command-line usage (the CLI only).

    /// `usage`.
    public static let usage = ConvertError.Code("usage", category: .request)

    // MARK: watch: Watching a folder.

    /// `watch.spawn`.
    public static let watchSpawn = ConvertError.Code("watch.spawn", category: .internal)
}
