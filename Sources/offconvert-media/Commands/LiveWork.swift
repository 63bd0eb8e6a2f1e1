import ConvertAllowance
import ConvertMedia
import Foundation
import OffconvertCLI

extension HeicToJpgCommand {
    /// `heic-to-jpg --live mp4|gif`: the photos, then each Live Photo's motion beside its JPEG.
    static func runWithEngine(_ arguments: ParsedArguments, console: Console) async throws -> Int32 {
        let kind = try arguments.value(live, default: .mp4).rawValue
        let template = try PhotoWork.request(from: arguments, format: .jpeg)
        // One run is one conversion of the allowance, as `live-photo` is: the stills and their
        // motion are one job for the person asking. The motion batch is free when the photo
        // batch was charged; when it placed nothing (all already converted), the motion batch
        // charges itself; when the photos were refused (77), the motion is not tried.
        let store = AllowanceStore()
        let before = try? store.status().used
        let photos = try await PhotoWork.run(
            command: spec.name, template: template, arguments: arguments, console: console)
        if photos == ExitCode.allowanceExhausted { return photos }
        let options = try BatchOptions.parse(arguments)
        let (pairs, alone) = LiveWork.pairsOfPhotos(options.inputs)
        if !options.json && !options.quiet {
            for photo in alone { console.err(LiveWork.noMotionLine(photo)) }
        }
        guard !pairs.isEmpty else { return photos }
        let charged = before.map { used in (try? store.status().used).map { $0 > used } ?? false } ?? false
        let motion = await LiveWork.run(
            pairs, kind: kind, command: spec.name, options: options, console: console, charged: charged)
        return photos != ExitCode.success ? photos : motion
    }
}

/// The motion of Live Photos as MP4 (like `send-to-windows`) or GIF (like `gif`), each named
/// after its photo: `IMG_0001.HEIC` + `IMG_0001.MOV` give `IMG_0001.mp4`, and so does a MOV
/// renamed on export, since the pair is found by content identifier.
enum LiveWork {
    /// Runs one batch over the pairs' movies.
    /// `charged`: the run was counted against the allowance already (see ``BatchWork/alreadyCharged``).
    static func run(
        _ pairs: [LivePhotoPair], kind: String, command: String, options: BatchOptions, console: Console,
        charged: Bool = false
    ) async -> Int32 {
        var options = options
        options.inputs = pairs.map(\.movie)
        let destinations = Dictionary(
            pairs.map { ($0.movie, destination(of: $0, kind: kind, folder: options.outputDirectory)) },
            uniquingKeysWith: { first, _ in first })
        let maxPixels = options.maxPixels
        var work = BatchWork(
            command: command, identity: ["live=\(kind)"], outputExtension: { _ in kind },
            cost: { input in
                kind == "gif"
                    ? await VideoWork.gifCost(of: input, seconds: GIFRequest.maximumDuration, fps: 12, width: 480)
                    : await VideoWork.encodeCost(of: input)
            },
            convert: { item, progress throws(ConvertError) in
                var output = item.outputLocation
                output.path = destinations[item.input] ?? item.destination
                output.mayRenumber = true
                let job =
                    kind == "gif"
                    ? VideoConverter.gif(GIFRequest(input: item.input, output: output, maxPixels: maxPixels))
                    : VideoConverter.convert(
                        {
                            var request = VideoRequest.sendToWindows(item.input, output: output)
                            request.maxPixels = maxPixels
                            return request
                        }())
                return try await job.result(onProgress: progress)
            })
        work.accepts = .videos
        work.alreadyCharged = charged
        return await BatchRunner.run(work, options: options, console: console)
    }

    /// `FOLDER/STEM.mp4` for the pair's photo: beside it, or in `folder`.
    static func destination(of pair: LivePhotoPair, kind: String, folder: String?) -> String {
        let name = PathText.lastComponent(pair.photo)
        let stem = name.lastIndex(of: ".").map { String(name[..<$0]) } ?? name
        return (folder ?? PathText.parent(pair.photo)) + "/" + stem + "." + kind
    }
}

extension LivePhotoCommand {
    static func runWithEngine(_ arguments: ParsedArguments, console: Console) async throws -> Int32 {
        let target = try arguments.value(LivePhotoCommand.target, default: .mp4).rawValue
        var options = try BatchOptions.parse(arguments)
        guard !options.inputs.isEmpty else { throw UsageError(message: "Missing expected argument 'FILES'.") }
        let (pairs, unpaired) = LiveWork.resolve(options.inputs)
        for input in unpaired {
            console.err(
                "Error: \(input.terminalSafe) is not part of a Live Photo: no photo and MOV with the same content identifier were found."
            )
        }
        guard !pairs.isEmpty else { return ExitCode.failure }
        let code: Int32
        if target == "jpg" {
            options.inputs = pairs.map(\.photo)
            code = await LiveWork.stills(command: spec.name, options: options, console: console)
        } else {
            code = await LiveWork.run(pairs, kind: target, command: spec.name, options: options, console: console)
        }
        return unpaired.isEmpty ? code : ExitCode.failure
    }
}

extension LiveWork {
    /// The pairs the inputs name (photos, movies, or both), each once: partners among the
    /// inputs first, then beside each file. Inputs that belong to no pair are returned apart.
    /// `beside`: the extensions of the inputs whose partner is looked for beside them (a photo
    /// batch looks only for its photos' movies, never for a stray movie's photo).
    static func resolve(
        _ inputs: [String], beside: Set<String> = photoExtensions.union(["mov", "mp4"])
    ) -> (pairs: [LivePhotoPair], unpaired: [String]) {
        var pairs = LivePhotos.pairs(among: inputs)
        var covered = Set(pairs.flatMap { [$0.photo, $0.movie] })
        var unpaired: [String] = []
        for input in inputs where !covered.contains(input) {
            guard beside.contains(PathText.fileExtension(input).lowercased()) else {
                unpaired.append(input)
                continue
            }
            guard let pair = LivePhotos.pair(of: input).pair, !covered.contains(pair.photo),
                !covered.contains(pair.movie)
            else {
                if !covered.contains(input) { unpaired.append(input) }
                continue
            }
            pairs.append(pair)
            covered.formUnion([pair.photo, pair.movie])
        }
        return (pairs, unpaired)
    }

    /// The Live Photo pairs of a photo batch: partners among the inputs first, then a movie
    /// beside each photo that was given alone (`heic-to-jpg --live mp4 IMG_0001.HEIC`). `alone`
    /// are the Live Photos (a photo with Apple's content identifier) whose movie was not found.
    static func pairsOfPhotos(_ inputs: [String]) -> (pairs: [LivePhotoPair], alone: [String]) {
        let (pairs, unpaired) = resolve(inputs, beside: photoExtensions)
        let alone = unpaired.filter {
            photoExtensions.contains(PathText.fileExtension($0).lowercased()) && LivePhotos.photoIdentifier($0) != nil
        }
        return (pairs, alone)
    }

    /// The note for a Live Photo whose motion could not be written.
    static func noMotionLine(_ photo: String) -> String {
        "Note: \(photo.terminalSafe) is a Live Photo, but no MOV with its content identifier was found beside it: "
            + "only the JPEG was written."
    }

    static let photoExtensions: Set<String> = ["heic", "heif", "jpg", "jpeg"]

    /// The stills of the pairs as JPEGs, made as `heic-to-jpg` makes them.
    static func stills(command: String, options: BatchOptions, console: Console) async -> Int32 {
        let maxPixels = options.maxPixels
        var work = BatchWork(
            command: command, identity: ["to=jpg"], outputExtension: { _ in "jpg" },
            cost: { input in PhotoWork.cost(of: input, request: PhotoRequest(inputPath: input, format: .jpeg)) },
            convert: { item, progress throws(ConvertError) in
                var request = PhotoRequest(
                    inputPath: item.input, format: .jpeg, outputPath: item.destination,
                    overwrite: item.overwrite, maxPixels: maxPixels)
                request.outputMayBeRenumbered = item.mayRenumber
                request.placementGate = item.placementGate
                return try await PhotoConverter.convert(request).result(onProgress: progress)
            })
        work.accepts = .photos
        return await BatchRunner.run(work, options: options, console: console)
    }
}
