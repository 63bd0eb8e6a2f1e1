import ConvertCore
import MediaRequests

/// `offconvert extract-audio FILE`: a video's sound as an audio file.
package enum ExtractAudioCommand: MediaCommand {
    /// Its engine work.
    package static let work = MediaWork.extractAudio

    /// `-t`.
    package static let format = Option<AudioFormat>.choice(
        "to", short: "t", value: "format",
        help: "Audio format: \(AudioFormat.allCases.map(\.rawValue).joined(separator: ", ")) "
            + "(default: the sound's own format when it is one of these, else m4a).")

    /// Its own options (the batch options follow them).
    static let ownOptions: [OptionSpec] = [
        format.spec,
        VideoOptions.audioBitrate.spec,
        VideoOptions.audioTrack.spec.helping("Save this audio track (1 is the first) instead of the first AAC one."),
        VideoOptions.allAudio.spec.helping(
            "Save every audio track, together in one .m4a (the one audio format here that holds several)."),
        VideoOptions.start.spec.helping("Start the sound here: seconds (12.5), mm:ss or hh:mm:ss. Cutting re-encodes."),
        VideoOptions.duration.spec.helping("Make the sound this long: seconds, mm:ss or hh:mm:ss."),
        VideoOptions.keepLocation.spec,
    ]

    package static let spec = CommandSpec(
        name: "extract-audio",
        abstract: "Save the sound of videos as audio files.",
        discussion: "Without --to, the sound is kept as it is: AAC in .m4a, MP3 as .mp3, Opus as .opus, FLAC as .flac; "
            + "other sound is encoded to AAC. A format asked for with --to is encoded unless the sound already is in it; "
            + "--bitrate encodes it at that rate (MP3, AAC, Opus) whatever it was. "
            + "One track is saved (the first AAC one, or --audio-track N) and each one left out is named; --all-audio saves "
            + "every track in one .m4a (AAC copied, other sound encoded to AAC).",
        arguments: [BatchOptions.files("The videos.")],
        // Audio extraction never decodes a picture, so the pixel limit does not apply.
        options: ownOptions + BatchOptions.specs.filter { $0.long != "max-pixels" },
        examples: [
            "extract-audio clip.mp4", "extract-audio concert.mkv --to flac", "extract-audio clip.mp4 --all-audio",
            "extract-audio clip.mp4 --to mp3 --bitrate 128k",
        ])
}
