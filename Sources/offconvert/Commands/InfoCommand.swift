import ConvertCore
import Foundation

/// `offconvert info FILE... [--json]`: what each file is, one block (or JSON line) per file.
///
/// The JSON form prints one ``MediaInfo`` object per line (JSON Lines) for every file that could
/// be read, with the schema documented on ``MediaInfo`` and the types it contains. Files that
/// cannot be read get one line each on stderr and make the exit code 1; the others still print.
enum InfoCommand: Command {
    static let spec = CommandSpec(
        name: "info",
        abstract: "Show what a photo or video file contains.",
        discussion: """
            For videos: container, duration, size, bit rate and every track (codec, resolution,
            rotation, frame rate, pixel format, colour, dynamic range including Dolby Vision,
            audio channels and language). For photos: dimensions, bit depth, alpha, orientation,
            colour profile, EXIF/XMP, number of images, auxiliary images (depth, gain maps) and
            thumbnails. Every file gets a 'location:' line saying whether it records where it was
            made, and where (EXIF GPS, XMP, thumbnail, container tag). Files are identified by
            their content, not their name.
            A file that cannot be read gets one line on stderr; the others still print, and the
            exit code is 1 at the end.
            """,
        arguments: [ArgumentSpec(name: "FILES", help: "The files to describe.", repeating: true)],
        options: [.flag("json", help: "Print one JSON object per file per line (JSON Lines).")],
        examples: ["info IMG_0001.MOV", "info --json *.mp4"])

    static func run(_ arguments: ParsedArguments, console: Console) async throws -> Int32 {
        let json = arguments.flag("json")
        var failed = false
        var printed = 0
        for path in arguments.positionals {
            let info: MediaInfo
            do throws(ConvertError) {
                info = try await MediaProbe.probe(path: path)
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

    /// One line of JSON, keys sorted so the output is byte-for-byte reproducible. JSON escapes
    /// control characters itself, so the text is terminal-safe.
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
            lines.append(locationLine(info.location, value: nil))
            return lines.joined(separator: "\n")
        }
        if let duration = container.durationSeconds { header += ", \(seconds(duration))" }
        if let bitRate = container.bitRate { header += ", \(rate(bitRate))" }
        var lines = [header]
        lines.append(locationLine(info.location, value: container.location))
        for track in container.tracks { lines += trackLines(track) }
        lines += container.warnings.map { "  warning: \($0.terminalSafe)" }
        return lines.joined(separator: "\n")
    }

    /// "location: none", or where it is: "location: +51.5-000.1/ (container tag)", "location: in EXIF GPS, XMP".
    private static func locationLine(_ location: LocationPresence, value: String?) -> String {
        guard location.present else { return "  location: none" }
        let names: [String: String] = [
            "exif": "EXIF GPS", "xmp": "XMP", "exif-thumbnail": "EXIF thumbnail", "thumbnail": "thumbnail image",
            "other-image": "another image in the file", LocationPresence.container: "container tag",
        ]
        let places = location.sources.map { names[$0] ?? $0 }.joined(separator: ", ")
        if let value { return "  location: \(value.terminalSafe) (\(places))" }
        return "  location: yes, in \(places.terminalSafe)"
    }

    private static func imageLines(_ image: ImageInfo) -> [String] {
        var picture = ["\(image.width)x\(image.height)", "\(image.bitDepth)-bit", image.hasAlpha ? "alpha" : "no alpha"]
        if image.imageCount > 1 { picture.append("\(image.imageCount) images") }
        var lines = ["  picture: " + picture.joined(separator: ", ")]
        var orientation: [String] = []
        if image.containerRotates == true { orientation.append("rotated by the container (irot)") }
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
        if !image.auxiliaryImages.isEmpty { lines.append("  auxiliary: " + image.auxiliaryImages.joined(separator: ", ")) }
        if image.thumbnailCount > 0 { lines.append("  thumbnails: \(image.thumbnailCount)") }
        return lines.map(\.terminalSafe)
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
