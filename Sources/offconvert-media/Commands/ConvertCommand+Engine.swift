import ConvertCore
import ConvertMedia
import MediaRequests
import OffconvertCLI

extension ConvertCommand {
    /// The halves of `convert` that need the video engine (other photos never come here:
    /// ConvertCommand runs them itself): a video container to ``VideoConvertCommand``, a sound
    /// format to the work of extract-audio, whose `--to` names the format the same way, and
    /// `--to webp` with animated AVIFs among the inputs to ``runAnimatedWebP(_:console:)``.
    static func runWithEngine(_ arguments: ParsedArguments, console: Console) async throws -> Int32 {
        let target = (try arguments.value(ConvertCommand.target))?.lowercased() ?? ""
        if AudioFormat(rawValue: target) != nil {
            return try await ExtractAudioCommand.runWithEngine(arguments, console: console)
        }
        if target == PhotoFormat.webp.rawValue {
            return try await runAnimatedWebP(arguments, console: console)
        }
        return try await VideoConvertCommand.runWithEngine(
            arguments, container: VideoContainer(rawValue: target) ?? .mp4, console: console)
    }

    /// `convert --to webp` as the photo engine runs it, but each animated AVIF's frames made an
    /// animated WebP by the video engine (libheif reads only its still image): one batch, one
    /// journal, one charge, the other inputs converted as photos.
    static func runAnimatedWebP(_ arguments: ParsedArguments, console: Console) async throws -> Int32 {
        let template = try photoTemplate(arguments, format: .webp)
        let options = try BatchOptions.parse(arguments)
        try Catalogue.requireInputs(options.inputs, kind: .photo, target: template.format.fileExtension)
        var work = PhotoWork.batchWork(command: spec.name, template: template, options: options)
        let photo = work.convert
        work.convert = { item, progress throws(ConvertError) in
            guard AnimationSummary.isImageSequence(path: item.input) else { return try await photo(item, progress) }
            let request = AnimatedWebPRequest(
                input: item.input, output: item.outputLocation, quality: template.quality,
                lossless: template.lossless, maxPixels: template.maxPixels)
            return try await VideoConverter.animatedWebP(request).result(onProgress: progress)
        }
        return await BatchRunner.run(work, options: options, console: console)
    }
}
