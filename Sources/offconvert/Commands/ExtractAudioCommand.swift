import ConvertCore

/// `offconvert extract-audio FILE`: a video's sound as an audio file.
enum ExtractAudioCommand: Command {
    static let spec = CommandSpec(
        name: "extract-audio",
        abstract: "Save the sound of videos as audio files.",
        discussion: "AAC sound goes into .m4a as it is, without re-encoding; other formats are encoded.",
        arguments: [ArgumentSpec(name: "FILES", help: "The videos.", repeating: true)],
        options: [
            .option("to", short: "t", value: "format", help: "Audio format: m4a, mp3, opus, wav or flac.", default: "m4a"),
            .flag("keep-location", help: "Keep the recording location in the output."),
        ] + VideoJobRunner.outputOptions.filter { $0.long != "max-pixels" },
        examples: ["extract-audio clip.mp4", "extract-audio concert.mkv --to flac"])

    static func run(_ arguments: ParsedArguments, console: Console) async throws -> Int32 {
        let name = try arguments.choice("to", AudioFormat.allCases.map(\.rawValue), default: "m4a")
        guard let format = AudioFormat(rawValue: name) else { throw UsageError(message: "Unknown audio format.") }
        let location = VideoJobRunner.location(arguments)
        let keepLocation = arguments.flag("keep-location")
        return await VideoJobRunner.run(arguments.positionals, console: console, json: arguments.flag("json")) { input in
            VideoConverter.extractAudio(AudioExtractionRequest(input: input, format: format, keepLocation: keepLocation,
                                                               output: location))
        }
    }
}
