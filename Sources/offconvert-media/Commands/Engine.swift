import ConvertMedia
import Foundation
import OffconvertCLI

// The work of the commands that need the video engine (FFmpeg). Their descriptions (specs,
// options, help) live in OffconvertCLI with the rest of the command line; `offconvert` execs this
// executable for them, and `main.swift` installs these as the way to run them.

extension SendToWindowsCommand {
    static func runWithEngine(_ arguments: ParsedArguments, console: Console) async throws -> Int32 {
        let keepLocation = arguments.has(VideoOptions.keepLocation)
        let maxPixels = try BatchOptions.maxPixels(arguments)
        let (start, duration) = try VideoWork.cut(arguments)
        let rawFrameRate = try arguments.value(VideoOptions.rawFrameRate)
        let preset = try arguments.value(Self.preset)
        return try await VideoWork.run(
            command: spec.name,
            identity: ["keep-location=\(keepLocation)", "start=\(start)", "duration=\(duration ?? -1)", "fps=\(rawFrameRate ?? 0)",
                       "preset=\(preset?.rawValue ?? "")"],
            outputExtension: VideoContainer.mp4.rawValue, arguments: arguments, console: console
        ) { input, output in
            var request = VideoRequest.sendToWindows(input, output: output)
            request.keepLocation = keepLocation
            request.maxPixels = maxPixels
            request.preset = preset
            (request.start, request.duration) = (start, duration)
            request.rawFrameRate = rawFrameRate
            return VideoConverter.convert(request)
        }
    }
}

extension CompressCommand {
    static func runWithEngine(_ arguments: ParsedArguments, console: Console) async throws -> Int32 {
        let (target, unit) = try targetSize(arguments)
        return await CompressBatch.run(
            command: spec.name, targetBytes: target, unit: unit, keepLocation: arguments.has(VideoOptions.keepLocation),
            cut: try VideoWork.cut(arguments), rawFrameRate: try arguments.value(VideoOptions.rawFrameRate),
            options: try BatchOptions.parse(arguments), console: console)
    }

    /// `--target` in bytes and the unit it was written in. A bare number is refused: "25" read
    /// as 25 bytes (or as 25 MB) would surprise someone either way.
    static func targetSize(_ arguments: ParsedArguments) throws(UsageError) -> (Int64, SizeUnit) {
        guard let text = arguments.text(Self.target) else {
            throw UsageError(message: "Missing '--target': say how large the outputs may be, e.g. --target 25MB.")
        }
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        let number = Double(trimmed.prefix { $0.isNumber || $0 == "." })
        if trimmed.hasPrefix("-") || number.map({ $0 <= 0 }) == true {
            throw UsageError(message: "The value '\(text)' is invalid for '--target': the largest an output may be "
                                 + "must be more than 0, e.g. 25MB.")
        }
        if Double(trimmed) != nil {
            throw UsageError(message: "The value '\(text)' for '--target' has no unit: write e.g. \(trimmed)MB "
                                 + "(megabytes, 10^6 bytes), \(trimmed)MiB (2^20 bytes) or \(trimmed)KB.")
        }
        guard let bytes = try arguments.value(Self.target), let unit = SizeUnit(ofSize: trimmed) else {
            throw UsageError(message: "The value '\(text)' is invalid for '--target': expected a size such as 25MB.")
        }
        return (bytes, unit)
    }
}

extension EmailCommand {
    static func runWithEngine(_ arguments: ParsedArguments, console: Console) async throws -> Int32 {
        await CompressBatch.run(
            command: spec.name, targetBytes: VideoCompressRequest.emailTargetBytes, unit: .megabyte,
            keepLocation: arguments.has(VideoOptions.keepLocation), cut: try VideoWork.cut(arguments),
            rawFrameRate: try arguments.value(VideoOptions.rawFrameRate), options: try BatchOptions.parse(arguments), console: console)
    }
}

/// The batch both size commands run.
enum CompressBatch {
    /// Declared peak memory of one compression: decoded frames in x264's lookahead and the
    /// filter graph at up to 4K, well under this.
    static let memoryPerJob: Int64 = 600_000_000

    /// `cut` is `--start` and `--duration`: the part of each video kept, which the target budgets.
    /// `rawFrameRate` is `--fps`, for raw streams.
    static func run(command: String, targetBytes: Int64, unit: SizeUnit, keepLocation: Bool,
                    cut: (start: Double, duration: Double?) = (0, nil), rawFrameRate: Double? = nil, options: BatchOptions,
                    console: Console) async -> Int32 {
        if options.dryRun {
            return await dryRun(targetBytes: targetBytes, unit: unit, keepLocation: keepLocation, cut: cut,
                                rawFrameRate: rawFrameRate, options: options, console: console)
        }
        var work = BatchWork(
            command: command,
            identity: ["target=\(targetBytes)", keepLocation ? "keep-location" : "", "start=\(cut.start)", "duration=\(cut.duration ?? -1)",
                       "fps=\(rawFrameRate ?? 0)"],
            outputExtension: { _ in "mp4" }, cost: { _ in memoryPerJob },
            estimatedOutputBytes: { _, inputBytes in min(inputBytes, targetBytes) },
            convert: { item, progress throws(ConvertError) in
                var request = VideoCompressRequest(
                    input: item.input, targetBytes: targetBytes, keepLocation: keepLocation,
                    output: OutputLocation(path: item.destination, overwrite: item.overwrite, mayRenumber: item.mayRenumber),
                    unit: unit)
                (request.start, request.duration) = cut
                request.rawFrameRate = rawFrameRate
                request.maxPixels = options.maxPixels
                return try await VideoConverter.compress(request).result(onProgress: progress)
            })
        work.accepts = .videos
        work.check = { input in await VideoWork.mediaProblem(input) }
        return await BatchRunner.run(work, options: options, console: console)
    }

    /// `--dry-run`: each input's planned output (as every batch command prints it), then what
    /// would be done to reach the target, or why it cannot be. Exits 1 when some target cannot
    /// be reached or some input cannot be read, so a script can tell before spending the time.
    static func dryRun(targetBytes: Int64, unit: SizeUnit, keepLocation: Bool, cut: (start: Double, duration: Double?),
                       rawFrameRate: Double?, options: BatchOptions, console: Console) async -> Int32 {
        let started = Date()
        let printer = BatchPrinter(console: console, options: options, board: nil)
        var options = options
        var tally = BatchTally()
        options.inputs = BatchRunner.setAside(options.inputs, accepts: .videos, printer: printer, tally: &tally)
        let namer: OutputNamer
        do {
            namer = try OutputNamer(outputDirectory: options.outputDirectory, overwrite: options.overwrite, inputs: options.inputs)
        } catch {
            printer.commandFailed(error)
            return ExitCode.failure
        }
        var allReachable = true
        for (index, input) in options.inputs.enumerated() {
            do throws(ConvertError) {
                printer.planned(index: index, input: input, output: try namer.destination(for: input, pathExtension: "mp4"),
                                memory: memoryPerJob)
                var request = VideoCompressRequest(input: input, targetBytes: targetBytes, keepLocation: keepLocation, unit: unit)
                (request.start, request.duration) = cut
                request.rawFrameRate = rawFrameRate
                request.maxPixels = options.maxPixels
                let preview = try await VideoConverter.previewCompression(request)
                allReachable = allReachable && preview.isReachable
                tally.planned += 1
                let plan = CompressPlanLine(index: index, input: input, targetBytes: targetBytes, preview: preview,
                                            cutStart: cut.start > 0 || cut.duration != nil ? cut.start : nil)
                console.out(options.json ? plan.jsonLine() : "  plan: " + plan.text(unit: unit).terminalSafe)
            } catch {
                allReachable = false
                tally.failures.append((input, error))
                printer.failed(BatchItem(index: index, input: input, destination: "", cost: 0, overwrite: false), error)
            }
        }
        printer.summary(tally, seconds: Date().timeIntervalSince(started))
        return allReachable ? ExitCode.success : ExitCode.failure
    }
}

extension GIFCommand {
    static func runWithEngine(_ arguments: ParsedArguments, console: Console) async throws -> Int32 {
        let start = try arguments.value(Self.start) ?? 0
        let duration = try arguments.value(Self.duration)
        if let duration, duration <= 0 || duration > GIFRequest.maximumDuration {
            throw UsageError(message: "The value for '--duration' must be more than 0 and at most 30 seconds.")
        }
        let fps = try arguments.value(Self.fps, default: 12)
        let width = try arguments.value(Self.width, default: 480)
        // The palette is built from every frame of the clip, so all of them are held at once.
        let frames = fps * Int((duration ?? GIFRequest.maximumDuration).rounded(.up))
        let maxPixels = try BatchOptions.maxPixels(arguments)
        return try await VideoWork.run(
            command: spec.name, identity: ["start=\(start)", "duration=\(duration ?? -1)", "fps=\(fps)", "width=\(width)"],
            outputExtension: "gif", arguments: arguments, console: console,
            cost: { input in await VideoWork.cost(of: input, frames: frames, width: width) }
        ) { input, output in
            VideoConverter.gif(GIFRequest(input: input, start: start, duration: duration, framesPerSecond: fps, width: width,
                                          output: output, maxPixels: maxPixels))
        }
    }
}

extension ExtractAudioCommand {
    static func runWithEngine(_ arguments: ParsedArguments, console: Console) async throws -> Int32 {
        let asked = try arguments.value(Self.format)
        let chosen = asked ?? .m4a
        let keepLocation = arguments.has(VideoOptions.keepLocation)
        let track = try VideoWork.audioTracks(arguments)
        let (start, duration) = try VideoWork.cut(arguments)
        if track == .all, asked != nil, chosen != .m4a {
            throw UsageError(message: "'--all-audio' saves the tracks together in one .m4a; a .\(chosen.fileExtension) file holds one sound track.")
        }
        // Without --to, the sound keeps its own format when an audio file can hold it as it is
        // (MP3 stays MP3, not a second lossy AAC); anything else becomes AAC in .m4a.
        let format: @Sendable (String) -> AudioFormat = { input in
            asked == nil ? VideoConverter.soundFormat(of: input, track: track) ?? .m4a : chosen
        }
        return try await VideoWork.run(
            command: spec.name,
            identity: ["to=\(asked?.rawValue ?? "auto")", "keep-location=\(keepLocation)", "audio=\(track)", "start=\(start)",
                       "duration=\(duration ?? -1)"],
            outputExtension: chosen.fileExtension, arguments: arguments, console: console, cost: { _ in 16 << 20 },
            extensionFor: { format($0).fileExtension }
        ) { input, output in
            var request = AudioExtractionRequest(input: input, format: format(input), keepLocation: keepLocation, output: output)
            request.audioTrack = track
            (request.start, request.duration) = (start, duration)
            return VideoConverter.extractAudio(request)
        }
    }
}

extension StripLocationCommand {
    static func runWithEngine(_ arguments: ParsedArguments, console: Console) async throws -> Int32 {
        let options = try BatchOptions.parse(arguments)
        let inPlace = arguments.has(Self.inPlace)
        if inPlace && options.outputDirectory != nil {
            throw UsageError(message: "'--in-place' and '--output-dir' cannot be used together.")
        }
        guard !options.inputs.isEmpty else { throw UsageError(message: "Missing expected argument 'FILES'.") }
        let cost: @Sendable (String) -> Int64 = { input in
            // Photos are read whole; movies only their movie box.
            var info = stat()
            return stat(input, &info) == 0 ? min(Int64(info.st_size), 256 << 20) + (8 << 20) : 8 << 20
        }
        if inPlace && options.dryRun {
            // The batch front end plans fresh names; in place, each file is its own output.
            let printer = BatchPrinter(console: console, options: options, board: nil)
            for (index, input) in options.inputs.enumerated() {
                printer.planned(index: index, input: input, output: input, memory: cost(input))
            }
            return ExitCode.success
        }
        var work = BatchWork(
            command: "strip-location", identity: [inPlace ? "in-place" : "copy"],
            outputExtension: { PathText.fileExtension($0).isEmpty ? "bin" : PathText.fileExtension($0) },
            outputSuffix: inPlace ? "" : outputSuffix,
            cost: cost,
            convert: { item, progress throws(ConvertError) in
                let request = StripLocationRequest(
                    input: item.input, destination: inPlace ? item.input : item.destination, overwrite: item.overwrite)
                return try await LocationStripper.strip(request).result(onProgress: progress)
            })
        work.accepts = .media
        return await BatchRunner.run(work, options: options, console: console)
    }
}

extension InfoCommand {
    static func runWithEngine(_ arguments: ParsedArguments, console: Console) async throws -> Int32 {
        let json = arguments.has(Self.json)
        var failed = false
        var printed = 0
        for path in arguments.positionals {
            var info: MediaInfo
            do throws(ConvertError) {
                info = try await MediaProbe.probe(path: path)
                info.livePhoto = LivePhotos.info(for: path)
            } catch {
                if error.category == .cancelled { return ExitCode.interrupted }
                failed = true
                var message = error.message
                if !message.contains(path) { message = "\(path): \(message)" }
                console.err("Error: \(message.terminalSafe)")
                continue
            }
            if json {
                console.out(try jsonLine(info))
            } else {
                // A blank line between blocks; none before the first or after the last.
                console.out((printed > 0 ? "\n" : "") + InfoFormatter.block(info))
            }
            printed += 1
        }
        return failed ? ExitCode.failure : ExitCode.success
    }

    static func jsonLine(_ info: MediaInfo) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(info), as: UTF8.self)
    }
}

/// The human-readable form of ``MediaInfo``.
enum InfoFormatter {
    static func block(_ info: MediaInfo) -> String {
        var header = "\(info.path.terminalSafe): \(info.formatName), \(bytes(info.byteCount))"
        guard let container = info.container else {
            var lines = [header]
            if let image = info.image { lines += imageLines(image) }
            if let problem = info.imageError { lines.append("  warning: details unreadable: \(problem.terminalSafe)") }
            if let motion = info.motionPhoto { lines += motionLines(motion) }
            if let live = info.livePhoto { lines.append(liveLine(live, movie: false)) }
            lines.append(locationLine(info.location, value: info.motionPhoto?.video?.location))
            return lines.joined(separator: "\n")
        }
        if let duration = container.durationSeconds { header += ", \(seconds(duration))" }
        if let bitRate = container.bitRate { header += ", \(rate(bitRate))" }
        var lines = [header]
        if let live = info.livePhoto { lines.append(liveLine(live, movie: true)) }
        lines.append(locationLine(info.location, value: container.location))
        for track in container.tracks { lines += trackLines(track) }
        lines += container.warnings.map { "  warning: \($0.terminalSafe)" }
        return lines.joined(separator: "\n")
    }

    /// "location: none", or where it is: "location: +51.5-000.1/ (container tag)", "location: in EXIF GPS, XMP".
    /// A damaged file is never said to have none: "location: unknown (...)" or what was found.
    private static func locationLine(_ location: LocationPresence, value: String?) -> String {
        let damaged = location.incomplete == true
        guard location.present else {
            return damaged ? "  location: unknown (the file is damaged; its metadata could not all be read)" : "  location: none"
        }
        let names: [String: String] = [
            "exif": "EXIF GPS", "xmp": "XMP", "iptc": "IPTC", "exif-thumbnail": "EXIF thumbnail", "thumbnail": "thumbnail image",
            "other-image": "another image in the file", LocationPresence.container: "container tag",
            LocationPresence.motionVideo: "the embedded motion video",
        ]
        let places = location.sources.map { names[$0] ?? $0 }.joined(separator: ", ")
        if let value { return "  location: \((PlainWords.coordinates(value) ?? value).terminalSafe) (\(places))" }
        return "  location: yes, in \(places.terminalSafe)" + (damaged ? " (the file is damaged: there may be more)" : "")
    }

    private static func imageLines(_ image: ImageInfo) -> [String] {
        var picture = ["\(image.width)x\(image.height)", "\(image.bitDepth)-bit", image.hasAlpha ? "alpha" : "no alpha"]
        if image.imageCount > 1 { picture.append("\(image.imageCount) images") }
        var lines = ["  picture: " + picture.joined(separator: ", ")]
        var orientation: [String] = []
        if let degrees = image.containerRotation {
            orientation.append("rotated \(degrees)° anticlockwise by the container (irot); size shown upright")
        } else if image.containerRotates == true {
            orientation.append("rotated by the container (irot)")
        }
        if let mirror = image.containerMirror { orientation.append("mirrored \(mirror) by the container (imir)") }
        if let exif = image.exifOrientation { orientation.append("EXIF orientation \(exif)") }
        if !orientation.isEmpty { lines.append("  orientation: " + orientation.joined(separator: ", ")) }
        var colour: [String] = []
        if let description = image.color.iccDescription {
            colour.append("ICC \"\(description)\"" + (image.color.iccBytes.map { " (\($0) bytes)" } ?? ""))
        } else if let bytes = image.color.iccBytes {
            colour.append("ICC profile (\(bytes) bytes)")
        }
        if let nclx = image.color.nclx {
            colour.append("nclx \(nclx.primaries)/\(nclx.transfer)/\(nclx.matrix) \(nclx.fullRange ? "full" : "limited") range")
        }
        lines.append("  colour: " + (colour.isEmpty ? "unspecified (sRGB assumed)" : colour.joined(separator: ", ")))
        var metadata: [String] = []
        if image.hasEXIF {
            let camera = [image.make, image.model].compactMap { $0 }.joined(separator: " ")
            metadata.append(camera.isEmpty ? "EXIF" : "EXIF (\(camera))")
        }
        if image.hasXMP { metadata.append("XMP") }
        if let date = image.dateTimeOriginal { metadata.append("taken \(date)") }
        lines.append("  metadata: " + (metadata.isEmpty ? "none" : metadata.joined(separator: ", ")))
        if !image.auxiliaryImages.isEmpty {
            lines.append("  auxiliary: " + image.auxiliaryImages.map(PlainWords.auxiliary).joined(separator: ", ").terminalSafe)
        }
        if let map = image.gainMap {
            let stops = (map.headroomStops * 10).rounded() / 10
            lines.append("  HDR: gain map (\(map.origin)), headroom \(stops) stops: brighter highlights on an HDR screen")
        } else if let transfer = image.color.nclx?.hdrTransferName {
            lines.append(
                "  HDR: \(transfer) transfer, \(image.bitDepth)-bit, no gain map: tone mapped for SDR outputs; "
                    + "a JPEG keeps the HDR as a computed gain map")
        }
        if image.thumbnailCount > 0 { lines.append("  thumbnails: \(image.thumbnailCount)") }
        return lines.map(\.terminalSafe)
    }

    /// "live photo: paired with IMG_0001.MOV (content identifier 71DC…)", or that no partner is beside it.
    private static func liveLine(_ live: LivePhotoInfo, movie: Bool) -> String {
        let partner = live.pairedWith.map { "paired with \($0)" }
            ?? (movie ? "its photo is not in this folder" : "its video is not in this folder")
        return "  live photo: \(partner) (content identifier \(live.contentIdentifier))".terminalSafe
    }

    /// "motion: video/mp4 embedded (Google motion photo), 1.3 MB at byte 2728123, 0.76 s" and its tracks,
    /// or what the metadata promises and why it is not there.
    private static func motionLines(_ motion: MotionPhotoInfo) -> [String] {
        let kinds = ["google": "Google motion photo", "google-microvideo": "Google motion photo (MicroVideo)",
                     "samsung": "Samsung motion photo", "heif-mpvd": "HEIC motion photo"]
        let kind = kinds[motion.layout] ?? motion.layout
        guard let video = motion.video, let bytes = motion.videoBytes else {
            var line = "  motion: \(kind), but the video is not there"
            if let declared = motion.declaredBytes { line += " (the metadata declares \(bytes(declared)))" }
            return [line.terminalSafe] + (motion.problem.map { ["  warning: \($0.terminalSafe)"] } ?? [])
        }
        var line = "  motion: \(kind), MP4 of \(self.bytes(bytes))"
        if let offset = motion.videoOffset { line += " at byte \(offset)" }
        if let duration = video.durationSeconds { line += ", \(seconds(duration))" }
        var lines = [line.terminalSafe]
        for track in video.tracks where track.kind == .video || track.kind == .audio { lines += trackLines(track) }
        if let problem = motion.problem { lines.append("  warning: \(problem.terminalSafe)") }
        return lines
    }

    private static func trackLines(_ track: TrackInfo) -> [String] {
        var codec = track.codec
        if let tag = track.codecTag, tag != track.codec { codec += " (\(tag))" }
        if let profile = track.profile { codec += " \(profile)" }
        var parts = [codec]
        if !track.decoderAvailable { parts.append("no decoder") }
        var detail: [String] = []
        if let video = track.video {
            var size = "\(video.width)x\(video.height)"
            if video.rotation != 0 { size += " rotated \(video.rotation)°" }
            if video.mirrored { size += " mirrored" }
            parts.append(size)
            if let frameRate = video.frameRate { parts.append("\(decimal(frameRate)) fps") }
            if let pixelFormat = video.pixelFormat {
                parts.append(video.bitDepth.map { "\(pixelFormat) \($0)-bit" } ?? pixelFormat)
            }
            detail.append(colour(video.colour))
            detail.append(video.dynamicRange.summary)
            if video.stereoscopic == true { detail.append("3D (spatial video, MV-HEVC): two views, converted as the left eye only") }
            if let display = video.masteringDisplay { detail.append(mastering(display)) }
            if let light = video.contentLight { detail.append("MaxCLL \(light.maxCLL) cd/m², MaxFALL \(light.maxFALL) cd/m²") }
        }
        if let audio = track.audio {
            parts.append(audio.channelLayout ?? "\(audio.channels) channels")
            parts.append("\(audio.sampleRate) Hz")
        }
        if let language = track.language { parts.append(language) }
        if let handler = track.handler, track.kind != .video && track.kind != .audio { parts.append("handler \(handler)") }
        let head = "  #\(track.index) \(track.kind.name.padding(toLength: 8, withPad: " ", startingAt: 0))"
        return ["\(head)\(parts.joined(separator: ", ").terminalSafe)"]
            + detail.map { "     " + String(repeating: " ", count: 8) + $0.terminalSafe }
    }

    private static func colour(_ colour: ColourDescription) -> String {
        if colour.isUnspecified { return "colour unspecified" }
        var text = "colour \(colour.primaries.displayName), \(colour.transfer.displayName), "
            + "\(colour.matrix.displayName), \(colour.range) range"
        if let icc = colour.iccProfileBytes { text += ", ICC profile (\(icc) bytes)" }
        return text
    }

    private static func mastering(_ display: MasteringDisplay) -> String {
        var text = "mastering display"
        if let red = display.red, let green = display.green, let blue = display.blue, let white = display.whitePoint {
            let points = [red, green, blue, white].map { "(\(decimal($0.x, 4)), \(decimal($0.y, 4)))" }
            text += " R\(points[0]) G\(points[1]) B\(points[2]) WP\(points[3])"
        }
        if let min = display.minLuminance, let max = display.maxLuminance {
            text += ", \(decimal(min, 4))–\(decimal(max)) cd/m²"
        }
        return text
    }

    static func bytes(_ count: Int) -> String {
        let value = Double(count)
        if value < 1_000 { return "\(count) B" }
        if value < 1_000_000 { return "\(decimal(value / 1_000, 1)) kB" }
        if value < 1_000_000_000 { return "\(decimal(value / 1_000_000, 1)) MB" }
        return "\(decimal(value / 1_000_000_000, 2)) GB"
    }

    static func seconds(_ value: Double) -> String {
        if value < 60 { return "\(decimal(value, 2)) s" }
        let total = Int(value.rounded())
        let (hours, minutes, secs) = (total / 3600, total / 60 % 60, total % 60)
        return hours > 0 ? String(format: "%d:%02d:%02d", hours, minutes, secs) : String(format: "%d:%02d", minutes, secs)
    }

    static func rate(_ bitsPerSecond: Int) -> String {
        bitsPerSecond >= 1_000_000 ? "\(decimal(Double(bitsPerSecond) / 1_000_000, 1)) Mb/s" : "\(bitsPerSecond / 1_000) kb/s"
    }

    /// `value` with at most `places` decimals, trailing zeros removed.
    static func decimal(_ value: Double, _ places: Int = 3) -> String {
        var text = String(format: "%.\(places)f", value)
        if text.contains(".") {
            while text.hasSuffix("0") { text.removeLast() }
            if text.hasSuffix(".") { text.removeLast() }
        }
        return text
    }
}

extension CapabilitiesCommand {
    /// The `--json` shape.
    struct Report: Encodable {
        struct Encoder: Encodable {
            var name: String
            var codec: String
            var hardware: Bool
            var usable: Bool
        }

        var photoOutputs: [String: Bool]
        var encoders: [Encoder]
        var toneMapping: Bool
    }

    static func runWithEngine(_ arguments: ParsedArguments, console: Console) async throws -> Int32 {
        let video = VideoConverter.capabilities()
        let photos = PhotoFormat.allCases.filter { $0 != .gif }
        let report = Report(
            photoOutputs: Dictionary(uniqueKeysWithValues: photos.map { ($0.fileExtension, PhotoConverter.canEncode($0)) }),
            encoders: video.encoders.map { Report.Encoder(name: $0.name, codec: $0.codec, hardware: $0.isHardware, usable: $0.isUsable) },
            toneMapping: video.canToneMap)
        if arguments.has(Self.json) {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            console.out(String(decoding: try encoder.encode(report), as: UTF8.self))
            return ExitCode.success
        }
        func yes(_ value: Bool) -> String { value ? "yes" : "no" }
        var lines = ["Photo outputs:"]
        for format in photos {
            lines.append("  \(format.fileExtension.padding(toLength: 6, withPad: " ", startingAt: 0)) \(yes(PhotoConverter.canEncode(format)))")
        }
        lines.append("Software encoders:")
        for encoder in video.encoders where !encoder.isHardware {
            lines.append("  \(encoder.name.padding(toLength: 12, withPad: " ", startingAt: 0)) \(encoder.codec.padding(toLength: 5, withPad: " ", startingAt: 0)) \(yes(encoder.isUsable))")
        }
        lines.append("Hardware encoders:")
        for encoder in video.encoders where encoder.isHardware {
            lines.append("  \(encoder.name.padding(toLength: 12, withPad: " ", startingAt: 0)) \(encoder.codec.padding(toLength: 5, withPad: " ", startingAt: 0)) \(encoder.isUsable ? "yes" : "no (no device)")")
        }
        lines.append("HDR tone mapping: \(yes(video.canToneMap))")
        console.out(lines.joined(separator: "\n"))
        return ExitCode.success
    }
}

extension VideoConvertCommand {
    static func runWithEngine(_ arguments: ParsedArguments, container: VideoContainer, console: Console) async throws -> Int32 {
        let codec = try arguments.value(VideoOptions.codec(for: container))
        let codecName = codec?.rawValue
        let crf = try arguments.value(VideoOptions.crf)
        let maxHeight = try arguments.value(VideoOptions.maxHeight)
        let keepLocation = arguments.has(VideoOptions.keepLocation)
        let maxPixels = try BatchOptions.maxPixels(arguments)
        let (start, duration) = try VideoWork.cut(arguments)
        let audioTracks = try VideoWork.audioTracks(arguments)
        let rawFrameRate = try arguments.value(VideoOptions.rawFrameRate)
        let preset = try arguments.value(Self.preset)
        return try await VideoWork.run(
            command: "convert",
            identity: ["to=\(container.rawValue)", "codec=\(codecName ?? "")", "crf=\(crf ?? -1)", "max-height=\(maxHeight ?? 0)",
                       "preset=\(preset?.rawValue ?? "")",
                       "keep-location=\(keepLocation)", "start=\(start)", "duration=\(duration ?? -1)", "audio=\(audioTracks)",
                       "fps=\(rawFrameRate ?? 0)"],
            outputExtension: container.rawValue, arguments: arguments, console: console
        ) { input, output in
            var request = VideoRequest(
                input: input, container: container, codec: codec, crf: crf, maxHeight: maxHeight,
                keepLocation: keepLocation, output: output, maxPixels: maxPixels)
            (request.start, request.duration) = (start, duration)
            request.audioTracks = audioTracks
            request.rawFrameRate = rawFrameRate
            request.preset = preset
            return VideoConverter.convert(request)
        }
    }
}
