import ConvertCore
import MediaRequests

/// The options the video commands share, declared once. A command whose help says more about
/// one lists it with ``OptionSpec/helping(_:)``; it is read through the same value here.
package enum VideoOptions {
    /// `--keep-location`.
    package static let keepLocation = Flag("keep-location", help: "Keep the recording location in the output.")
    /// `--start`, in seconds of the input.
    package static let start = time(
        "start", help: "Start the output here: seconds (12.5), mm:ss or hh:mm:ss. Cutting re-encodes.")
    /// `--duration`, in seconds.
    package static let duration = time("duration", help: "Make the output this long: seconds, mm:ss or hh:mm:ss.")
    /// `--fps` of a raw elementary stream.
    package static let rawFrameRate = Option<Double>(
        spec: .option(
            "fps", value: "n",
            help:
                "Frame rate for a raw .h264/.hevc stream, which has no timestamps (default: the rate the stream says, else 30)."
        )
    ) { text throws(UsageError) in
        guard let rate = Double(text), rate.isFinite, rate > 0, rate <= 1000 else {
            throw UsageError(
                message:
                    "The value '\(text.terminalSafe)' is invalid for '--fps': expected frames per second, above 0 and at most 1000 (25, 29.97)."
            )
        }
        return rate
    }
    /// `--bitrate` of a lossy sound encode, in bits per second: `128k`, `128kbps`, `128 kb/s` or
    /// a bare `128`, all kilobits per second, from 8 to 512.
    package static let audioBitrate = Option<Int>(
        spec: .option(
            "bitrate", value: "rate",
            help: "Sound bitrate of MP3, AAC (.m4a) or Opus output in kb/s, e.g. 192k "
                + "(default: the format's usual rate, never above a lossy source's). The sound is encoded even when it is already in the format."
        )
    ) { text throws(UsageError) in
        guard let kilobits = parseKilobits(text), (8...512).contains(kilobits) else {
            throw UsageError(
                message: "The value '\(text.terminalSafe)' is invalid for '--bitrate': expected kilobits per second "
                    + "from 8 to 512, e.g. 128k.")
        }
        return kilobits * 1000
    }

    /// Whole kilobits per second from `128`, `128k`, `128kbps`, `128kb/s` (any letter case,
    /// spaces allowed before the unit); nil for anything else.
    static func parseKilobits(_ text: String) -> Int? {
        let lowered = String(text.lowercased().filter { $0 != " " })
        let digits = lowered.prefix { $0.isASCII && $0.isNumber }
        guard !digits.isEmpty, ["", "k", "kbps", "kb/s", "kbit/s"].contains(String(lowered.dropFirst(digits.count)))
        else { return nil }
        return Int(digits)
    }

    /// `--audio-track`.
    package static let audioTrack = Option.integer(
        "audio-track", in: 1...99, help: "Keep this audio track (1 is the first) instead of the first AAC one.")
    /// `--all-audio`.
    package static let allAudio = Flag("all-audio", help: "Keep every audio track.")
    /// `--subtitles`.
    package static let subtitles = Option<SubtitleChoice>.choice(
        "subtitles",
        help:
            "Keep the subtitle tracks the output can carry (MKV: every kind; MP4, MOV: text, as mov_text; WebM: WebVTT), or drop them.",
        default: .keep)
    /// `--slow-motion`.
    package static let slowMotion = Option<SlowMotionChoice>.choice(
        "slow-motion",
        help:
            "A phone's slow motion: flatten plays it as the phone does (the slowed parts slow, the rest at normal speed; re-encodes); keep and off give the file's own timing, as players that do not know the markers show it; keep also carries Samsung's markers into an MP4 or MOV, so the phone still plays them slowed.",
        default: .flatten)
    /// `--crf`.
    package static let crf = Option.integer(
        "crf", in: 0...63, help: "Quality, 0 (best) to 63; lower is better and bigger. Forces a re-encode.")
    /// `--max-height`.
    package static let maxHeight = Option.integer(
        "max-height", value: "px", in: 16...8640,
        help: "Scale down to at most this displayed height, keeping the aspect.")

    /// `--preset`, listed with the default of the command that lists it.
    package static func preset(default preset: EncoderPreset) -> Option<EncoderPreset> {
        .choice(
            "preset", value: "name",
            help: "H.264/HEVC encoder speed: \(EncoderPreset.allCases.map(\.rawValue).joined(separator: ", ")); "
                + "slower makes smaller files (default: \(preset.rawValue)).")
    }

    /// `-c`: the codecs `container` holds (the option listed in help names them all).
    package static func codec(for container: VideoContainer) -> Option<VideoCodec> {
        .choice(
            "codec", short: "c", value: "codec", among: VideoConvertCommand.codecs(for: container),
            help:
                "Video codec: \(VideoCodec.allCases.map(\.rawValue).joined(separator: ", ")) (default: keep the source's when possible)."
        )
    }

    /// A time option: seconds (`12.5`), `mm:ss` or `hh:mm:ss`, the last field possibly with a fraction.
    package static func time(_ long: String, short: Character? = nil, help: String, default shown: String? = nil)
        -> Option<Double>
    {
        Option(spec: .option(long, short: short, value: "time", help: help, default: shown)) {
            text throws(UsageError) in
            guard let value = parseTime(text) else {
                throw UsageError(
                    message: "The value '\(text.terminalSafe)' is invalid for '--\(long)': "
                        + "expected seconds (1.5), mm:ss (1:30) or hh:mm:ss (1:02:03).")
            }
            return value
        }
    }

    /// Seconds from `12.5`, `mm:ss` or `hh:mm:ss`; nil for anything else (negative, 60 or more
    /// minutes or seconds in a field with a larger one before it, more than three fields).
    static func parseTime(_ text: String) -> Double? {
        let fields = text.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
        guard (1...3).contains(fields.count), let last = Double(fields[fields.count - 1]), last.isFinite, last >= 0,
            fields.last?.first?.isNumber == true
        else { return nil }
        var total = last
        if fields.count > 1 && last >= 60 { return nil }
        for (position, field) in fields.dropLast().reversed().enumerated() {
            guard let whole = Int(field), whole >= 0 else { return nil }
            if position == 0 && fields.count == 3 && whole >= 60 { return nil }
            total += Double(whole) * (position == 0 ? 60 : 3600)
        }
        return total
    }
}
