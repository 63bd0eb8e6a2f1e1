import ConvertCore

/// `offconvert heic-to-jpg FILES...`: iPhone photos to JPEGs anyone can open.
package enum HeicToJpgCommand: Command {
    package static let spec = CommandSpec(
        name: "heic-to-jpg",
        abstract: "Convert HEIC photos to JPEG, upright, colour profile kept, location removed.",
        discussion: """
            Each photo becomes NAME.jpg next to it (or in --output-dir); an existing file is never \
            replaced unless --overwrite is given: NAME (2).jpg is used instead. GPS location, serial \
            numbers and owner names are removed unless you ask to keep them.
            Live Photos: a photo and a MOV pair when they carry the same content identifier (names \
            are only a hint). Without --live the MOVs are left alone and the summary says how many \
            were not converted; with --live mp4 (as send-to-windows makes them) or --live gif (as \
            gif makes them) each photo's motion is written beside it under the same name; the \
            photos and their motion count as one conversion of the free allowance, as live-photo does.
            Photos that are already JPEG are left alone with a note (a phone's export folder holds \
            both): add --include-jpeg to re-encode them too, or use convert --to jpg.
            """ + "\n" + PhotoWork.resizeDiscussion,
        arguments: [BatchOptions.files("Photos to convert (any format offconvert reads).")],
        options: PhotoWork.options(PhotoWork.commonOptions) + [
            live.spec, includeJPEG.spec,
        ],
        examples: [
            "heic-to-jpg IMG_0001.HEIC IMG_0002.HEIC --output-dir jpgs",
            "heic-to-jpg --live mp4 IMG_0001.HEIC IMG_0001.MOV",
        ])

    /// What `--live` writes beside each photo.
    package enum LiveMotion: String, CaseIterable, Sendable {
        /// NAME.mp4, as send-to-windows makes it.
        case mp4
        /// NAME.gif, as gif makes it.
        case gif
    }

    /// `--live`.
    package static let live = Option<LiveMotion>.choice(
        "live", help: "Also write each Live Photo's motion beside its JPEG: NAME.mp4 or NAME.gif.")

    /// `--include-jpeg`.
    package static let includeJPEG = Flag(
        "include-jpeg", help: "Also re-encode photos that are already JPEG (left alone by default).")

    /// What a run leaves alone: JPEGs, unless `--include-jpeg`.
    static func alreadyIn(_ arguments: ParsedArguments) -> InputTriage.AlreadyInFormat? {
        arguments.has(includeJPEG)
            ? nil : InputTriage.AlreadyInFormat(format: .jpeg, label: "JPEG", hint: "--include-jpeg")
    }

    package static func run(_ arguments: ParsedArguments, console: Console) async throws -> Int32 {
        if try arguments.value(live) != nil {
            // Writing the motion needs the video engine: `offconvert-media` runs the whole command.
            return try await MediaRunners.run(.heicToJpgLive, arguments, console: console)
        }
        let template = try PhotoWork.request(from: arguments, format: .jpeg)
        let options = try BatchOptions.parse(arguments)
        let code = try await PhotoWork.run(
            command: spec.name, template: template, options: options, console: console, alreadyIn: alreadyIn(arguments))
        let pairs = LivePhotos.pairs(among: options.inputs)
        if !pairs.isEmpty && !options.json && !options.quiet && !options.dryRun {
            console.err(leftAloneLine(pairs.count))
        }
        return code
    }

    /// The summary's line about the Live Photo videos a run without `--live` did not touch.
    static func leftAloneLine(_ count: Int) -> String {
        "\(count) Live Photo video\(count == 1 ? " was" : "s were") not converted "
            + "(add --live mp4 or --live gif to write each beside its photo)."
    }
}
