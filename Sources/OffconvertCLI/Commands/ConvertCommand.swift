import ConvertCore
import MediaRequests

/// `offconvert convert FILES... --to FORMAT`: photos to any photo format, videos to any container.
/// The target decides which engine runs; video targets go to ``VideoConvertCommand``.
package enum ConvertCommand: Command {
    /// `--to`: the target format's name, as typed (``Catalogue`` reads it).
    package static let target = Option.text(
        "to", short: "t", value: "format",
        help: "Output format: \(Catalogue.photoTargets.joined(separator: ", ")) (photos), "
            + "\(VideoContainer.allCases.map(\.rawValue).joined(separator: ", ")) (videos) or "
            + "\(AudioFormat.allCases.map(\.rawValue).joined(separator: ", ")) (sound).")
    /// `--lossless`.
    package static let lossless = Flag(
        "lossless",
        help: "Lossless WebP or JPEG XL. A JPEG to JPEG XL is recompressed so that djxl gives back the same JPEG bytes "
            + "(with --keep-metadata; otherwise the JPEG with its metadata filtered as usual).")
    /// `--depth`.
    package static let depth = Option<PhotoBitDepth>.choice(
        "depth", value: "8|10", names: [("8", .eight), ("10", .ten)],
        help: "Bits per channel of HEIC output. Default: 10 bits from 10/12/16-bit photos, 8 otherwise. "
            + "(AVIF is always 8-bit: 10-bit AVIF is not available with Debian 12's libheif.)")

    /// The photo-only options of `convert` (the photo commands' options, `--lossless` and `--depth`).
    static let photoOptions: [OptionSpec] = PhotoWork.commonOptions + [lossless.spec, depth.spec]

    package static let spec = CommandSpec(
        name: "convert",
        abstract: "Convert photos to JPEG, PNG, WebP, HEIC, AVIF or JPEG XL, and videos to MP4, MOV, MKV or WebM.",
        discussion: """
            Reads JPEG (CMYK too), PNG, WebP, HEIC, AVIF, JPEG XL, GIF, BMP, TIFF (each page \
            with --all-images), PNM/PAM, ICO/CUR (the largest picture), PSD (the flattened \
            composite), JPEG 2000 and TGA, recognised by content, not by name (a TGA without its \
            footer by its name). An animated GIF, WebP or AVIF stays \
            animated as WebP, and an animated GIF, APNG or AVIF becomes a clip with --to mp4; a still \
            output keeps one frame (--frame N). Orientation is applied to the pixels, the colour profile is kept, and location \
            metadata is removed unless --keep-location or --keep-metadata is given.
            Videos (--to mp4|mov|mkv|webm): streams that already fit the target are copied \
            without re-encoding; the rest are re-encoded. HEVC and AV1 keep HDR; H.264 and VP9 get \
            HDR tone mapped to SDR. Keeps the video, the first sound track, subtitles, chapters and the cover.
            Sound (--to mp3|m4a|opus|flac|wav), from a song, a voice memo or a video: as \
            extract-audio does, with its cover art and tags.
            'offconvert formats' lists which options apply to which target.
            """ + "\n" + PhotoWork.resizeDiscussion,
        arguments: [BatchOptions.files("Photos or videos to convert.")],
        options: mergedOptions,
        examples: [
            "convert *.png --to webp --quality 80", "convert photo.heic --to avif",
            "convert clip.mp4 --to webm --codec av1 --max-height 720", "convert song.flac --to mp3",
        ])

    /// `--to`, the photo options, the video-only ones (an option both engines take is listed
    /// once), then the batch options.
    private static var mergedOptions: [OptionSpec] {
        var options = [target.spec] + photoOptions
        for option in VideoConvertCommand.ownOptions + ExtractAudioCommand.ownOptions
        where !options.contains(where: { $0.long == option.long }) {
            options.append(option)
        }
        return options + BatchOptions.specs
    }

    package static func run(_ arguments: ParsedArguments, console: Console) async throws -> Int32 {
        guard let target = try arguments.value(Self.target)?.lowercased() else {
            throw UsageError(
                message: "Missing '--to <format>'. Formats: \(Catalogue.allTargets.joined(separator: ", ")).")
        }
        let output = try Catalogue.convertOutput(target)
        try Catalogue.validate(arguments, for: output)
        if VideoContainer(rawValue: target) != nil || AudioFormat(rawValue: target) != nil {
            return try await MediaRunners.run(.convertVideo, arguments, console: console)
        }
        guard let format = Catalogue.photoFormat(target) else {
            throw UsageError(
                message: "Unknown format '\(target)'. Formats: \(Catalogue.allTargets.joined(separator: ", ")).")
        }
        let template = try photoTemplate(arguments, format: format)
        let options = try BatchOptions.parse(arguments)
        if try handsAnimationsOn(template, options: options, arguments: arguments) {
            return try await MediaRunners.run(.convertVideo, arguments, console: console)
        }
        return try await PhotoWork.run(command: spec.name, template: template, options: options, console: console)
    }

    /// The photo request every input of `convert --to <format>` starts from.
    package static func photoTemplate(_ arguments: ParsedArguments, format: PhotoFormat) throws -> PhotoRequest {
        var template = try PhotoWork.request(from: arguments, format: format)
        template.lossless = arguments.has(lossless)
        if let depth = try arguments.value(depth) { template.bitDepth = depth }
        return template
    }

    /// Whether the command goes to the video engine for its animated AVIFs: an animated WebP
    /// of each is asked for (no `--frame`, no size target) and one is among the inputs. A list
    /// read from standard input cannot be read again by the engine's process, so it stays here
    /// (the still and a note, as without the engine).
    static func handsAnimationsOn(_ template: PhotoRequest, options: BatchOptions, arguments: ParsedArguments) throws
        -> Bool
    {
        guard template.format == .webp, template.frame == nil, template.targetByteCount == nil,
            try arguments.value(BatchOptions.fromFile) != "-"
        else { return false }
        return options.inputs.contains { AnimationSummary.isImageSequence(path: $0) }
    }
}
