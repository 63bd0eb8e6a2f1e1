import ConvertCore

/// `offconvert extract-audio FILE`: a video's sound as an audio file.
enum ExtractAudioCommand: Command {
    /// Its own options (the batch options follow them).
    static let ownOptions: [OptionSpec] = [
        .option("to", short: "t", value: "format",
                help: "Audio format: \(AudioFormat.allCases.map(\.rawValue).joined(separator: ", ")).", default: "m4a"),
        .flag("keep-location", help: "Keep the recording location in the output."),
    ]

    static let spec = CommandSpec(
        name: "extract-audio",
        abstract: "Save the sound of videos as audio files.",
        discussion: "AAC sound goes into .m4a as it is, without re-encoding; other formats are encoded.",
        arguments: [BatchOptions.files("The videos.")],
        // Audio extraction never decodes a picture, so the pixel limit does not apply.
        options: ownOptions + BatchOptions.specs.filter { $0.long != "max-pixels" },
        examples: ["extract-audio clip.mp4", "extract-audio concert.mkv --to flac"])

    static func run(_ arguments: ParsedArguments, console: Console) async throws -> Int32 {
        let name = try arguments.choice("to", AudioFormat.allCases.map(\.rawValue), default: "m4a")
        guard let format = AudioFormat(rawValue: name) else { throw UsageError(message: "Unknown audio format.") }
        let keepLocation = arguments.flag("keep-location")
        return try await VideoWork.run(
            command: spec.name, identity: ["to=\(name)", "keep-location=\(keepLocation)"], outputExtension: format.fileExtension,
            arguments: arguments, console: console, cost: { _ in 16 << 20 }
        ) { input, output in
            VideoConverter.extractAudio(AudioExtractionRequest(input: input, format: format, keepLocation: keepLocation, output: output))
        }
    }
}
