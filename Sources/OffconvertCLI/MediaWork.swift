/// The work that runs in `offconvert-media`, the executable with the video engine: one case for
/// each command that always needs it, and one for each command half that sometimes does.
///
/// This is the one list. ``MediaCommand``s name their case, `offconvert-media` installs one runner
/// that switches over every case (so the compiler refuses a case without work), and a test keeps
/// the C launcher's list equal to ``alwaysNeedsEngine``'s cases.
package enum MediaWork: String, CaseIterable, Sendable {
    /// `send-to-windows`.
    case sendToWindows = "send-to-windows"
    /// `compress`.
    case compress
    /// `email`.
    case email
    /// `gif`.
    case gif
    /// `extract-audio`.
    case extractAudio = "extract-audio"
    /// `strip-location` (videos are rewritten by the engine; photos too, through the same runner).
    case stripLocation = "strip-location"
    /// `info` (it probes videos).
    case info
    /// `capabilities` (it lists FFmpeg's encoders).
    case capabilities
    /// `live-photo`.
    case livePhoto = "live-photo"
    /// `heic-to-jpg --live`: the photos and their motion.
    case heicToJpgLive = "heic-to-jpg"
    /// `convert --to mp4|mov|mkv|webm`, or to a sound format (`mp3`, `m4a`, `opus`, `flac`, `wav`),
    /// or `--to webp` with an animated AVIF among the inputs.
    case convertVideo = "convert"

    /// The command whose work this is.
    var commandName: String { rawValue }

    /// Whether the whole command always needs the engine: the `offconvert` launcher then starts
    /// `offconvert-media` for it directly. The other cases run in `offconvert-photo` until their
    /// options say they need the engine, and then hand the command line on.
    var alwaysNeedsEngine: Bool {
        switch self {
        case .heicToJpgLive, .convertVideo: false
        case .sendToWindows, .compress, .email, .gif, .extractAudio, .stripLocation, .info, .capabilities, .livePhoto:
            true
        }
    }
}
