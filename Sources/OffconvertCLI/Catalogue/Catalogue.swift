import ConvertCore
import FoundationEssentials
import MediaRequests

/// What offconvert can turn into what, and with which options: built from the commands' specs
/// and the engines' format enums (never a hand-kept list), printed by `offconvert formats` and
/// used to check every request before any work.
package enum Catalogue {
    /// One way to make an output: a command (with `--to` when it takes one) and the options
    /// that shape this output.
    package struct Output: Sendable {
        /// The output format, as `--to` and file extensions spell it (`jpg`, `mp4`, `pdf`).
        package var target: String
        /// What reads it: photos or videos.
        var inputKind: MediaKind
        /// The command that writes it.
        package var command: String
        /// Whether the command takes `--to target`.
        var usesTo: Bool
        /// The options that apply to this output (the batch options apply to every output).
        package var options: [OptionSpec]

        /// How to ask for it: `convert --to jpg` or `heic-to-jpg`.
        var invocation: String { usesTo ? "\(command) --to \(target)" : command }
    }

    /// The photo formats offconvert writes, by `--to` name.
    static let photoTargets: [String] = PhotoFormat.allCases.filter(isWritable).map(\.fileExtension)
    /// Every `convert --to` value.
    static let allTargets: [String] =
        photoTargets + VideoContainer.allCases.map(\.rawValue) + AudioFormat.allCases.map(\.fileExtension)

    /// Photo inputs (read by content), by short name.
    static let photoInputs: [String] = PhotoFormat.allCases.map(\.rawValue)
    /// Video inputs the engine is built for (anything else FFmpeg reads is tried too).
    /// An animated GIF, APNG or AVIF is a silent clip to the video commands too.
    static let videoInputs: [String] =
        VideoContainer.allCases.map(\.rawValue) + ["3gp", "avi", "m4v", "ts", "animated gif", "apng", "animated avif"]

    /// The photo engine writes every format but the read-only ones (GIF, BMP, TIFF, TGA, ...).
    private static func isWritable(_ format: PhotoFormat) -> Bool { !format.isReadOnly }

    /// The photo format for a `--to` value (`jpg` or `jpeg`, ...).
    package static func photoFormat(_ target: String) -> PhotoFormat? {
        PhotoFormat.allCases.first { isWritable($0) && ($0.fileExtension == target || $0.rawValue == target) }
    }

    /// Whether the photo option `long` shapes a `format` output: quality is for lossy
    /// encoders (not PNG), lossless for WebP and JPEG XL, a target size for JPEG and WebP, a bit depth for
    /// HEIC (AVIF is written at 8 bits only: libheif 1.15's AV1 encoder aborts on 10-bit input,
    /// so `--depth` is not offered for it).
    static func photoOption(_ long: String, appliesTo format: PhotoFormat) -> Bool {
        switch long {
        case "quality": format != .png
        case "lossless": format == .webp || format == .jxl
        case "target-size": format == .jpeg || format == .webp
        case "depth": format == .heic
        default: true
        }
    }

    /// A command's options minus the batch options and `--to` (its output-shaping ones).
    private static func own(_ spec: CommandSpec) -> [OptionSpec] {
        let shared = Set(BatchOptions.specs.map(\.long) + ["to", "output"])
        return spec.options.filter { !shared.contains($0.long) }
    }

    /// Every output, grouped by what reads it: photos first, then videos.
    package static let outputs: [Output] = {
        var outputs: [Output] = []
        for format in PhotoFormat.allCases where isWritable(format) {
            let target = format.fileExtension
            outputs.append(
                Output(
                    target: target, inputKind: .photo, command: ConvertCommand.spec.name, usesTo: true,
                    options: ConvertCommand.photoOptions.filter { photoOption($0.long, appliesTo: format) }))
            let situations: [(CommandSpec, Bool, [PhotoFormat])] = [
                (HeicToJpgCommand.spec, false, [.jpeg]), (HeicToPngCommand.spec, false, [.png]),
                (CompressPhotosCommand.spec, true, CompressPhotosCommand.targets),
            ]
            for (spec, usesTo, formats) in situations where formats.contains(format) {
                outputs.append(
                    Output(
                        target: target, inputKind: .photo, command: spec.name, usesTo: usesTo && format != .jpeg,
                        options: own(spec).filter { photoOption($0.long, appliesTo: format) }))
            }
        }
        outputs.append(
            Output(
                target: "pdf", inputKind: .photo, command: ImagesToPdfCommand.spec.name, usesTo: false,
                options: ImagesToPdfCommand.ownOptions))
        for container in VideoContainer.allCases {
            let codecs = VideoConvertCommand.codecs(for: container).map(\.rawValue).joined(separator: "|")
            let options = VideoConvertCommand.ownOptions.map { option in
                option.long == "codec" ? .option("codec", short: "c", value: codecs, help: option.help) : option
            }
            outputs.append(
                Output(
                    target: container.rawValue, inputKind: .video, command: ConvertCommand.spec.name, usesTo: true,
                    options: options))
        }
        outputs.append(
            Output(
                target: VideoContainer.mp4.rawValue, inputKind: .video, command: SendToWindowsCommand.spec.name,
                usesTo: false, options: own(SendToWindowsCommand.spec)))
        outputs.append(
            Output(
                target: "gif", inputKind: .video, command: GIFCommand.spec.name, usesTo: false,
                options: own(GIFCommand.spec)))
        for format in AudioFormat.allCases {
            outputs.append(
                Output(
                    target: format.fileExtension, inputKind: .video, command: ExtractAudioCommand.spec.name,
                    usesTo: format != .m4a, options: own(ExtractAudioCommand.spec)))
            // A song or a voice memo to another sound format: the same work as extract-audio.
            outputs.append(
                Output(
                    target: format.fileExtension, inputKind: .video, command: ConvertCommand.spec.name,
                    usesTo: true, options: own(ExtractAudioCommand.spec)))
        }
        return outputs
    }()

    /// The `convert --to target` output, or a usage error listing every target.
    static func convertOutput(_ target: String) throws(UsageError) -> Output {
        let name = photoFormat(target)?.fileExtension ?? target
        guard let output = outputs.first(where: { $0.command == ConvertCommand.spec.name && $0.target == name }) else {
            var message =
                "The value '\(target.terminalSafe)' is invalid for '--to': expected one of \(allTargets.joined(separator: ", "))."
            if target.lowercased() == "gif" {
                throw UsageError(message: message + " A GIF from a video is made by 'offconvert gif CLIP'.")
            }
            if let guess = Suggestion.closest(to: target, in: allTargets) { message += " Did you mean '\(guess)'?" }
            throw UsageError(message: message)
        }
        return output
    }

    /// Refuses options given on the command line that do not shape `output`, listing the ones
    /// that do.
    static func validate(_ arguments: ParsedArguments, for output: Output) throws(UsageError) {
        let allowed = Set(output.options.map(\.long) + BatchOptions.specs.map(\.long) + ["to"])
        let given = Array(arguments.values.keys) + Array(arguments.flags)
        for long in given.sorted() where !allowed.contains(long) {
            let valid = output.options.map { "--" + $0.long }.joined(separator: ", ")
            throw UsageError(
                message: Messages.text(
                    .catalogueOptionNotForTarget, long, output.target, valid.isEmpty ? "none" : valid))
        }
    }

    /// Refuses a command line none of whose inputs is of `kind` (photos for a photo command),
    /// naming what the first such input can become. When some inputs are of `kind`, the others
    /// are set aside one by one by the batch (see ``InputTriage``) and the rest converted.
    package static func requireInputs(
        _ inputs: [String], kind: MediaKind, target: String, accepts given: InputTriage.Accepts? = nil
    ) throws(UsageError) {
        let accepts: InputTriage.Accepts = given ?? (kind == .photo ? .photos : .videos)
        let sorted = InputTriage.sort(inputs, accepts: accepts)
        guard sorted.convert.isEmpty else { return }
        let wanted = kind == .photo ? "photo" : "video"
        for aside in sorted.setAside {
            let content = InputTriage.content(of: aside.path)
            guard content == .photo || content == .video else { continue }
            let found: MediaKind = content == .photo ? .photo : .video
            let possible = outputs.filter { $0.inputKind == found }.map(\.invocation)
            var seen: Set<String> = []
            let unique = possible.filter { seen.insert($0).inserted }
            throw UsageError(
                message: Messages.text(
                    .catalogueNoPair, aside.path.terminalSafe, found == .photo ? "photo" : "video", target,
                    unique.joined(separator: ", ")))
        }
        throw UsageError(
            message: "None of the \(inputs.count) input(s) is a \(wanted): nothing to convert to '\(target)'.")
    }
}
