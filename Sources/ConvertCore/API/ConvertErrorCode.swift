/// The stable key of one kind of failure, as ``ConvertError/code`` carries it.
///
/// These are the keys scripts and translations use: `--json` prints them as `"key"`, and the CLI's
/// messages file (`OFFCONVERT_MESSAGES`) translates `error.KEY`. One naming style, `area.words-in-kebab-case`;
/// the area usually matches the error's ``ConvertError/Category``. Each code fixes its category:
/// the same code is never thrown as two kinds of failure. An open set: new codes may be added.
/// Each code's doc comment is one sentence saying when it is thrown; `Scripts/error-codes --write`
/// copies them into the README's `--json` section (ConvertErrorCodeTests checks the two agree).
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

        /// The key, as `--json` prints it.
        public var description: String { rawValue }
    }
}

extension ConvertError.Code {
    // MARK: allowance: The free daily allowance.

    /// `allowance.damaged`: the allowance record was edited, truncated or removed, so no free
    /// conversions are left today.
    public static let allowanceDamaged = ConvertError.Code("allowance.damaged", category: .allowance)
    /// `allowance.exhausted`: today's free conversions are used up and no licence unlocks more.
    public static let allowanceExhausted = ConvertError.Code("allowance.exhausted", category: .allowance)
    /// `allowance.store`: the path of offconvert's state folder is taken by something that is not a
    /// folder.
    public static let allowanceStore = ConvertError.Code("allowance.store", category: .device)

    // MARK: batch: A batch run.

    /// `batch.running`: the same batch (command, inputs and outputs) is already running in another
    /// offconvert process.
    public static let batchRunning = ConvertError.Code("batch.running", category: .request)

    // MARK: cancelled: Cancellation.

    /// `cancelled`: the job was cancelled; nothing was written.
    public static let cancelled = ConvertError.Code("cancelled", category: .cancelled)

    // MARK: decode: A decoder failed.

    /// `decode.failed`: a decoder could not be set up (JPEG XL's), before any of the file was read.
    public static let decodeFailed = ConvertError.Code("decode.failed", category: .internal)

    // MARK: device: Failed for a reason outside the file (space, permissions, I/O, memory).

    /// `device.create`: a file the tone-map measurement writes could not be created.
    public static let deviceCreate = ConvertError.Code("device.create", category: .device)
    /// `device.denied`: the system refused to write, move or remove an output (a read-only folder,
    /// no permission).
    public static let deviceDenied = ConvertError.Code("device.denied", category: .device)
    /// `device.ffmpeg`: FFmpeg could not create or close an output file, for a reason other than
    /// space or I/O.
    public static let deviceFfmpeg = ConvertError.Code("device.ffmpeg", category: .device)
    /// `device.full`: the disk has no room for the output (ENOSPC, a quota, or less free space than
    /// the output needs).
    public static let deviceFull = ConvertError.Code("device.full", category: .device)
    /// `device.memory`: a picture needs more memory than this process can get (RAM and swap, its
    /// cgroup's limit, its rlimits).
    public static let deviceMemory = ConvertError.Code("device.memory", category: .device)
    /// `device.io`: writing an output failed with an I/O error.
    public static let deviceIo = ConvertError.Code("device.io", category: .device)
    /// `device.write`: a file the tone-map measurement writes could not be written.
    public static let deviceWrite = ConvertError.Code("device.write", category: .device)

    // MARK: encode: An encoder failed.

    /// `encode.failed`: an encoder (JPEG, WebP, HEIF, JPEG XL) failed on a picture it was given.
    public static let encodeFailed = ConvertError.Code("encode.failed", category: .internal)

    // MARK: input: The input is missing, unreadable, damaged, or not what it must be.

    /// `input.changed`: the input changed while it was being read (another program wrote to it).
    public static let inputChanged = ConvertError.Code("input.changed", category: .input)
    /// `input.color-profile`: the picture's colour profile cannot be converted to sRGB (or BT.2020,
    /// for an HDR picture).
    public static let inputColorProfile = ConvertError.Code("input.color-profile", category: .unsupported)
    /// `input.corrupt`: the file is damaged: its data cannot be decoded, or its headers declare
    /// impossible sizes.
    public static let inputCorrupt = ConvertError.Code("input.corrupt", category: .input)
    /// `input.denied`: the input cannot be read: permission denied.
    public static let inputDenied = ConvertError.Code("input.denied", category: .input)
    /// `input.empty`: the input is an empty file (0 bytes).
    public static let inputEmpty = ConvertError.Code("input.empty", category: .input)
    /// `input.limit`: a table in a HEIF file is larger than offconvert's reader allows (the limit
    /// is named).
    public static let inputLimit = ConvertError.Code("input.limit", category: .input)
    /// `input.missing`: the input does not exist (or, while an output is written, its folder no
    /// longer does).
    public static let inputMissing = ConvertError.Code("input.missing", category: .input)
    /// `input.no-audio`: sound was asked of a file that has no audio track.
    public static let inputNoAudio = ConvertError.Code("input.no-audio", category: .input)
    /// `input.no-data`: the stream to convert has no readable packets.
    public static let inputNoData = ConvertError.Code("input.no-data", category: .input)
    /// `input.no-duration`: a video does not say how long it is, so a size target's bitrate cannot
    /// be planned.
    public static let inputNoDuration = ConvertError.Code("input.no-duration", category: .input)
    /// `input.no-video`: a video was asked of a file without a video track (cover art aside).
    public static let inputNoVideo = ConvertError.Code("input.no-video", category: .input)
    /// `input.not-a-file`: the input is a folder, a FIFO, a device or a socket, not a regular file.
    public static let inputNotAFile = ConvertError.Code("input.not-a-file", category: .input)
    /// `input.too-large`: libheif refused the memory the file asks for (a HEIF too large for it).
    public static let inputTooLarge = ConvertError.Code("input.too-large", category: .input)
    /// `input.too-many-pixels`: the picture declares more pixels than the limit (`--max-pixels`; by
    /// default 16383×16383, about 268 million), or an animation kept animated would cost more than
    /// its share of it (``AnimationLimit``: a canvas over a quarter of the limit, or over sixteen
    /// times the limit summed over its frames; one frame of it still converts).
    public static let inputTooManyPixels = ConvertError.Code("input.too-many-pixels", category: .input)
    /// `input.truncated`: the file ends before its data does (a cut download, a half-copied clip).
    public static let inputTruncated = ConvertError.Code("input.truncated", category: .input)
    /// `input.unreadable`: reading the input failed (an I/O error, a file that vanished while it
    /// was read).
    public static let inputUnreadable = ConvertError.Code("input.unreadable", category: .input)
    /// `input.unrecognised`: the content is not a format offconvert reads (text, random bytes,
    /// another kind of file), whatever its name.
    public static let inputUnrecognised = ConvertError.Code("input.unrecognised", category: .input)
    /// `input.unsupported-feature`: a valid photo uses a feature offconvert does not decode (a HEIF
    /// feature libheif refuses, a BMP holding JPEG or PNG data, an unusual BMP compression).
    public static let inputUnsupportedFeature = ConvertError.Code("input.unsupported-feature", category: .unsupported)

    // MARK: internal: A bug or an unexpected library failure.

    /// `internal`: an unexpected error stopped the work (a bug: its cause is in the underlying
    /// description).
    public static let internalError = ConvertError.Code("internal", category: .internal)
    /// `internal.color`: Little CMS could not create the sRGB profile.
    public static let internalColor = ConvertError.Code("internal.color", category: .internal)
    /// `internal.edit-list`: the MP4 FFmpeg wrote cannot be read back, or its edit list is not what
    /// was written.
    public static let internalEditList = ConvertError.Code("internal.edit-list", category: .internal)
    /// `internal.encoder`: an audio encoder offers no sample format the conversion can use.
    public static let internalEncoder = ConvertError.Code("internal.encoder", category: .internal)
    /// `internal.ffmpeg`: an FFmpeg call failed where it should not (a muxer, a filter graph, an
    /// encoder would not open).
    public static let internalFfmpeg = ConvertError.Code("internal.ffmpeg", category: .internal)
    /// `internal.memory`: an allocation failed: a codec library could not start, or the machine ran
    /// out of memory.
    public static let internalMemory = ConvertError.Code("internal.memory", category: .internal)
    /// `internal.resize`: the resampler could not be set up.
    public static let internalResize = ConvertError.Code("internal.resize", category: .internal)
    /// `internal.target-overshoot`: a video compressed to a size target came out over it on every
    /// second pass; nothing was written.
    public static let internalTargetOvershoot = ConvertError.Code("internal.target-overshoot", category: .internal)
    /// `internal.tone-map`: the HDR tone-map table could not be built.
    public static let internalToneMap = ConvertError.Code("internal.tone-map", category: .internal)

    // MARK: license: The licence file.

    /// `license.expired`: the licence's expiry date has passed; the daily limit stays.
    public static let licenseExpired = ConvertError.Code("license.expired", category: .allowance)
    /// `license.invalid`: the licence's signature does not verify: it was altered or not issued for
    /// offconvert.
    public static let licenseInvalid = ConvertError.Code("license.invalid", category: .allowance)
    /// `license.malformed`: the licence file is not an offconvert licence (wrong format, missing
    /// fields, too large).
    public static let licenseMalformed = ConvertError.Code("license.malformed", category: .allowance)

    // MARK: motion: The motion of a Live or motion photo.

    /// `motion.missing`: a motion photo's video is missing or not where its metadata says, so it
    /// cannot be extracted or removed.
    public static let motionMissing = ConvertError.Code("motion.missing", category: .unsupported)

    // MARK: output: Where or how the output would be written is not possible.

    /// `output.depth-unsupported`: 10-bit AVIF was asked for, which libheif's AV1 encoder on this
    /// system cannot write.
    public static let outputDepthUnsupported = ConvertError.Code("output.depth-unsupported", category: .unsupported)
    /// `output.encoder-missing`: HEIC or AVIF output was asked for and libheif has no encoder
    /// plugin for it.
    public static let outputEncoderMissing = ConvertError.Code("output.encoder-missing", category: .unsupported)
    /// `output.exists`: the output file already exists and replacing it was not asked for.
    public static let outputExists = ConvertError.Code("output.exists", category: .request)
    /// `output.is-input`: the output would replace one of the inputs.
    public static let outputIsInput = ConvertError.Code("output.is-input", category: .request)
    /// `output.missing`: no output path was given where one is needed.
    public static let outputMissing = ConvertError.Code("output.missing", category: .request)
    /// `output.no-name`: no free numbered name (`photo (2).jpg`...) was found for the output.
    public static let outputNoName = ConvertError.Code("output.no-name", category: .request)
    /// `output.not-a-folder`: the output folder exists but is not a folder.
    public static let outputNotAFolder = ConvertError.Code("output.not-a-folder", category: .request)
    /// `output.unsupported`: a photo output format offconvert does not write (GIF) was asked for.
    public static let outputUnsupported = ConvertError.Code("output.unsupported", category: .unsupported)

    // MARK: privacy: A privacy guarantee could not be kept, so nothing was written.

    /// `privacy.compressed-metadata`: a PNG keeps its metadata where offconvert cannot edit it
    /// without re-encoding (compressed XMP, ImageMagick's raw-profile text chunks), so its location
    /// cannot be removed.
    public static let privacyCompressedMetadata = ConvertError.Code(
        "privacy.compressed-metadata", category: .unsupported)
    /// `privacy.location-remains`: a location would remain after editing (in extended XMP, a place
    /// offconvert cannot edit, or a damaged file it cannot check whole); nothing was written.
    public static let privacyLocationRemains = ConvertError.Code("privacy.location-remains", category: .unsupported)
    /// `privacy.unsupported-format`: removing a location from this kind of file is not supported.
    public static let privacyUnsupportedFormat = ConvertError.Code("privacy.unsupported-format", category: .unsupported)

    // MARK: request: The request itself cannot be met: an option out of range, a target out of reach.

    /// `request.all-audio`: every audio track was asked for in a format that holds one sound track
    /// (only `.m4a` holds them all).
    public static let requestAllAudio = ConvertError.Code("request.all-audio", category: .request)
    /// `request.audio-track`: an audio track number past the file's last audio track was asked for.
    public static let requestAudioTrack = ConvertError.Code("request.audio-track", category: .request)
    /// `request.bitrate`: a sound bitrate was asked of a lossless format (FLAC, WAV).
    public static let requestBitrate = ConvertError.Code("request.bitrate", category: .request)
    /// `request.codec`: the chosen container cannot hold the chosen video codec.
    public static let requestCodec = ConvertError.Code("request.codec", category: .request)
    /// `request.crf`: the quality (CRF) is outside 0 to 63.
    public static let requestCrf = ConvertError.Code("request.crf", category: .request)
    /// `request.duration`: the duration asked for is not more than 0 seconds (or, for a GIF, over
    /// its maximum).
    public static let requestDuration = ConvertError.Code("request.duration", category: .request)
    /// `request.fps`: a GIF frame rate outside 1 to 30 was asked for.
    public static let requestFps = ConvertError.Code("request.fps", category: .request)
    /// `request.margin`: a PDF page margin leaves no room for the picture.
    public static let requestMargin = ConvertError.Code("request.margin", category: .request)
    /// `request.max-height`: a maximum video height under 16 pixels was asked for.
    public static let requestMaxHeight = ConvertError.Code("request.max-height", category: .request)
    /// `request.max-size`: a PDF's largest image size under 1 pixel was asked for.
    public static let requestMaxSize = ConvertError.Code("request.max-size", category: .request)
    /// `request.memory-budget`: one file alone needs more memory than the explicit `--memory-budget` allows.
    public static let requestMemoryBudget = ConvertError.Code("request.memory-budget", category: .request)
    /// `request.no-inputs`: a PDF was asked for with no images.
    public static let requestNoInputs = ConvertError.Code("request.no-inputs", category: .request)
    /// `request.not-hdr`: HDR work was asked of a video without PQ or HLG video.
    public static let requestNotHdr = ConvertError.Code("request.not-hdr", category: .request)
    /// `request.preset`: an encoder preset was given for a codec other than H.264 and HEVC.
    public static let requestPreset = ConvertError.Code("request.preset", category: .request)
    /// `request.frame`: a frame past an animation's last was asked for, or any frame but the first
    /// of an APNG or an animated AVIF (frames count from 1).
    public static let requestFrame = ConvertError.Code("request.frame", category: .request)
    /// `request.quality`: a photo quality outside 1 to 100 was asked for.
    public static let requestQuality = ConvertError.Code("request.quality", category: .request)
    /// `request.resize`: a resize box is not positive, or was combined with a long-edge limit.
    public static let requestResize = ConvertError.Code("request.resize", category: .request)
    /// `request.resize-too-large`: a resize box has more pixels than the pixel limit.
    public static let requestResizeTooLarge = ConvertError.Code("request.resize-too-large", category: .request)
    /// `request.start`: a start time is negative, or past the end of the clip or its last frame.
    public static let requestStart = ConvertError.Code("request.start", category: .request)
    /// `request.target`: a video size target of 0 bytes or less was asked for.
    public static let requestTarget = ConvertError.Code("request.target", category: .request)
    /// `request.target-format`: a photo size target was asked for an output other than JPEG and
    /// WebP.
    public static let requestTargetFormat = ConvertError.Code("request.target-format", category: .request)
    /// `request.target-size`: a photo size target of 0 bytes or less was asked for.
    public static let requestTargetSize = ConvertError.Code("request.target-size", category: .request)
    /// `request.target-too-small`: a video cannot be compressed to the size target: the smallest it
    /// can reach is larger.
    public static let requestTargetTooSmall = ConvertError.Code("request.target-too-small", category: .request)
    /// `request.target-unreachable`: a file cannot be made as small as the size target, even at the
    /// smallest size and quality tried.
    public static let requestTargetUnreachable = ConvertError.Code("request.target-unreachable", category: .request)
    /// `request.too-large`: a WebP output would be larger than the format's 16383×16383 pixels.
    public static let requestTooLarge = ConvertError.Code("request.too-large", category: .request)
    /// `request.width`: a GIF width outside 16 to 1280 pixels was asked for.
    public static let requestWidth = ConvertError.Code("request.width", category: .request)

    // MARK: state: offconvert's own state files.

    /// `state.not-a-file`: one of offconvert's state files is a symbolic link, a FIFO or another
    /// non-regular file.
    public static let stateNotAFile = ConvertError.Code("state.not-a-file", category: .device)

    // MARK: unsupported: A valid input that this build does not convert.

    /// `unsupported.codec`: the input's video or sound uses a codec this build of FFmpeg cannot
    /// decode.
    public static let unsupportedCodec = ConvertError.Code("unsupported.codec", category: .unsupported)
    /// `unsupported.dolby-vision-profile`: a Dolby Vision video has no HDR10, HLG or SDR base layer
    /// to convert (profile 5, say).
    public static let unsupportedDolbyVisionProfile = ConvertError.Code(
        "unsupported.dolby-vision-profile", category: .unsupported)
    /// `unsupported.encoder`: the encoder a conversion needs is not in this build of FFmpeg.
    public static let unsupportedEncoder = ConvertError.Code("unsupported.encoder", category: .unsupported)
    /// `unsupported.library`: a codec library loaded only when needed (libjxl, libswscale) is not
    /// installed.
    public static let unsupportedLibrary = ConvertError.Code("unsupported.library", category: .unsupported)
    /// `unsupported.ffmpeg`: FFmpeg cannot do what the input needs (it cannot open a decoder, or
    /// write a stream copied from the input).
    public static let unsupportedFfmpeg = ConvertError.Code("unsupported.ffmpeg", category: .unsupported)
    /// `unsupported.image-format`: a still image in a format offconvert names but does not read
    /// (PCX, PSD, JPEG 2000, TGA, ICO, PNM).
    public static let unsupportedImageFormat = ConvertError.Code("unsupported.image-format", category: .unsupported)
    /// `unsupported.not-a-photo`: a video (MP4, MOV, MKV) was given where a photo is read.
    public static let unsupportedNotAPhoto = ConvertError.Code("unsupported.not-a-photo", category: .unsupported)
    /// `unsupported.size`: a video declares a picture size this build of FFmpeg cannot decode.
    public static let unsupportedSize = ConvertError.Code("unsupported.size", category: .unsupported)

    // MARK: usage: Command-line usage (the CLI only).

    /// `usage`: the command line asks for something the command cannot do (the CLI only; exit 64).
    public static let usage = ConvertError.Code("usage", category: .request)

    // MARK: watch: Watching a folder.

    /// `watch.spawn`: a watched folder's new file could not be converted: the conversion process did
    /// not start.
    public static let watchSpawn = ConvertError.Code("watch.spawn", category: .internal)
}
