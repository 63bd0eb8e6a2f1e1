import ConvertCore

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
