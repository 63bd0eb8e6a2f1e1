import ConvertCore
import ConvertMedia
import Foundation
import OffconvertCLI

/// The human-readable form of ``MediaInfo``.
enum InfoFormatter {
    static func block(_ info: MediaInfo) -> String {
        var header = "\(info.path.terminalSafe): \(info.formatName), \(UnitText.bytes(Int64(info.byteCount)))"
        guard let container = info.container else {
            var lines = [header]
            if let image = info.image { lines += imageLines(image) }
            if let damage = info.image?.damage {
                // What a conversion works around, said before it runs: the file still converts.
                lines.append(
                    "  damaged: \(damage.terminalSafe); a conversion keeps what is there (--strict refuses it)")
            }
            if let problem = info.imageError {
                // Damage is said as such, in the words a conversion refusing the file uses; other
                // problems (a format not read) only left the details out.
                let damaged = problem.code == .inputCorrupt || problem.code == .inputTruncated
                lines.append(
                    "  \(damaged ? "damaged" : "warning: details unreadable") (\(problem.key)): \(problem.message.terminalSafe)"
                )
            }
            if let motion = info.motionPhoto { lines += motionLines(motion) }
            if let live = info.livePhoto { lines.append(liveLine(live, movie: false)) }
            lines.append(
                locationLine(
                    info.location, value: info.motionPhoto?.video?.location,
                    gpsWithoutPosition: info.image?.gpsWithoutPosition == true))
            return lines.joined(separator: "\n")
        }
        if let duration = container.durationSeconds { header += ", \(UnitText.duration(duration, places: 2))" }
        if let bitRate = container.bitRate { header += ", \(rate(bitRate))" }
        var lines = [header]
        if let live = info.livePhoto { lines.append(liveLine(live, movie: true)) }
        lines.append(
            locationLine(
                info.location, value: container.location, fixes: container.telemetryGPSFixes,
                cues: container.telemetrySubtitleCues, unread: container.unreadTelemetryTracks))
        for track in container.tracks { lines += trackLines(track) }
        if let chapters = chapterLine(container.chapters) { lines.append(chapters) }
        if let slowMotion = container.slowMotion { lines.append("  slow motion: \(slowMotion.summary.terminalSafe)") }
        lines += container.warnings.map { "  warning: \($0.terminalSafe)" }
        return lines.joined(separator: "\n")
    }

    /// "chapters: 3: Intro at 0 s, Verse at 12.5 s, …" (the first eight), nil without chapters.
    private static func chapterLine(_ chapters: [ChapterInfo]) -> String? {
        guard !chapters.isEmpty else { return nil }
        let shown = chapters.prefix(8).map { chapter in
            "\((chapter.title ?? "untitled").terminalSafe) at \(UnitText.duration(chapter.start, places: 2))"
        }
        return "  chapters: \(chapters.count): " + shown.joined(separator: ", ") + (chapters.count > 8 ? ", …" : "")
    }

    /// "location: none", or where it is: "location: +51.5-000.1/ (container tag)", "location: yes, in EXIF GPS, XMP",
    /// "location: yes, in GoPro telemetry (216 fixes)", "location: yes, in DJI telemetry
    /// subtitles (900 cues)". A GPS block without a position is not a
    /// location, and is named: "location: none (GPS block without coordinates)".
    /// A damaged file is never said to have none: "location: unknown (...)" or what was found.
    /// Telemetry that cannot be read is a likely location, never none: "location: likely, in
    /// telemetry offconvert cannot read (DJI djmd)".
    private static func locationLine(
        _ location: LocationPresence, value: String?, fixes: Int? = nil, cues: Int? = nil, unread: [String] = [],
        gpsWithoutPosition: Bool = false
    ) -> String {
        let damaged = location.incomplete == true
        guard location.present else {
            if damaged { return "  location: unknown (the file is damaged; its metadata could not all be read)" }
            return gpsWithoutPosition ? "  location: none (GPS block without coordinates)" : "  location: none"
        }
        let places = location.sources.map { source in
            if source == .gpmfTelemetry, let fixes {
                return "\(source.words) (\(fixes) \(fixes == 1 ? "fix" : "fixes"))"
            }
            if source == .djiTelemetry, let cues { return "\(source.words) (\(cues) \(cues == 1 ? "cue" : "cues"))" }
            if source == .unreadTelemetry, !unread.isEmpty {
                return "\(source.words) (\(unread.joined(separator: ", ")))"
            }
            return source.words
        }.joined(separator: ", ")
        if let value { return "  location: \((PlainWords.coordinates(value) ?? value).terminalSafe) (\(places))" }
        let certainty = location.sources == [.unreadTelemetry] ? "likely" : "yes"
        return "  location: \(certainty), in \(places.terminalSafe)"
            + (damaged ? " (the file is damaged: there may be more)" : "")
    }

    private static func imageLines(_ image: ImageInfo) -> [String] {
        var picture = [
            "\(image.width)x\(image.height)", "\(image.bitDepth)-bit", image.hasAlpha ? "alpha" : "no alpha",
        ]
        if let animation = image.animation {
            picture.append("animated: \(animation.frames) frames, \(String(format: "%.2f", animation.duration)) s")
        }
        if image.imageCount > 1 {
            picture.append("\(image.imageCount) images" + (image.multiPicture.map { " (\($0))" } ?? ""))
        }
        var lines = ["  picture: " + picture.joined(separator: ", ")]
        var orientation: [String] = []
        if let degrees = image.containerRotation {
            orientation.append("turned \(degrees)° clockwise by the container (irot); size shown upright")
        } else if image.containerRotates == true {
            orientation.append("rotated by the container (irot)")
        }
        if let mirror = image.containerMirror { orientation.append("mirrored \(mirror) by the container (imir)") }
        if let exif = image.exifOrientation { orientation.append("EXIF orientation \(exif)") }
        if !orientation.isEmpty { lines.append("  orientation: " + orientation.joined(separator: ", ")) }
        var color: [String] = image.color.model.map { [$0] } ?? []
        if let description = image.color.iccDescription {
            color.append("ICC \"\(description)\"" + (image.color.iccBytes.map { " (\($0) bytes)" } ?? ""))
        } else if let bytes = image.color.iccBytes {
            color.append("ICC profile (\(bytes) bytes)")
        }
        if let nclx = image.color.nclx {
            color.append(
                "nclx \(nclx.primaries.code)/\(nclx.transfer.code)/\(nclx.matrix.code) \(nclx.fullRange ? "full" : "limited") range"
            )
        }
        lines.append("  colour: " + (color.isEmpty ? "unspecified (sRGB assumed)" : color.joined(separator: ", ")))
        var metadata: [String] = []
        if image.hasEXIF {
            let camera = [image.make, image.model].compactMap { $0 }.joined(separator: " ")
            metadata.append(camera.isEmpty ? "EXIF" : "EXIF (\(camera))")
        }
        if image.hasXMP { metadata.append("XMP") }
        if let date = image.dateTimeOriginal { metadata.append("taken \(date)") }
        lines.append("  metadata: " + (metadata.isEmpty ? "none" : metadata.joined(separator: ", ")))
        if !image.auxiliaryImages.isEmpty {
            lines.append(
                "  auxiliary: " + image.auxiliaryImages.map(PlainWords.auxiliary).joined(separator: ", ").terminalSafe)
        }
        if let map = image.gainMap {
            let stops = (map.headroomStops * 10).rounded() / 10
            let effect =
                map.brightens ? "brighter highlights on an HDR screen" : "flat, it brightens nothing (not kept)"
            lines.append("  HDR: gain map (\(map.origin)), headroom \(stops) stops: \(effect)")
        } else if let transfer = image.color.nclx?.hdrTransferName {
            // A map that is there but ignored is said here, once, with why.
            let map = image.ignoredGainMap.map { "its gain map ignored (\($0))" } ?? "no gain map"
            lines.append(
                "  HDR: \(transfer) transfer, \(image.bitDepth)-bit, \(map): tone mapped for SDR outputs; "
                    + "a JPEG keeps the HDR as a computed gain map, a JPEG XL its code values")
        } else if let why = image.ignoredGainMap {
            lines.append("  HDR: gain map ignored: \(why)")
        }
        if image.thumbnailCount > 0 { lines.append("  thumbnails: \(image.thumbnailCount)") }
        return lines.map(\.terminalSafe)
    }

    /// "live photo: paired with IMG_0001.MOV (content identifier 71DC…)", or that no partner is beside it.
    private static func liveLine(_ live: LivePhotoInfo, movie: Bool) -> String {
        let partner =
            live.pairedWith.map { "paired with \($0)" }
            ?? (movie ? "its photo is not in this folder" : "its video is not in this folder")
        return "  live photo: \(partner) (content identifier \(live.contentIdentifier))".terminalSafe
    }

    /// "motion: video/mp4 embedded (Google motion photo), 1.3 MB at byte 2728123, 0.76 s" and its tracks,
    /// or what the metadata promises and why it is not there.
    private static func motionLines(_ motion: MotionPhotoInfo) -> [String] {
        let kinds = [
            "google": "Google motion photo", "google-microvideo": "Google motion photo (MicroVideo)",
            "samsung": "Samsung motion photo", "heif-mpvd": "HEIC motion photo",
            "samsung-heif": "Samsung motion photo (HEIC)",
        ]
        let kind = kinds[motion.layout] ?? motion.layout
        guard let video = motion.video, let bytes = motion.videoBytes else {
            var line = "  motion: \(kind), but the video is not there"
            if let declared = motion.declaredBytes {
                line += " (the metadata declares \(UnitText.bytes(Int64(declared))))"
            }
            return [line.terminalSafe] + (motion.problem.map { ["  warning: \($0.terminalSafe)"] } ?? [])
        }
        var line = "  motion: \(kind), MP4 of \(UnitText.bytes(Int64(bytes)))"
        if let offset = motion.videoOffset { line += " at byte \(offset)" }
        if let duration = video.durationSeconds { line += ", \(UnitText.duration(duration, places: 2))" }
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
        if track.coverArt == true, let video = track.video {
            // One picture: no frame rate, colour or dynamic range to speak of.
            return ["  #\(track.index) cover   \(codec), \(video.width)x\(video.height)".terminalSafe]
        }
        if let video = track.video {
            var size = "\(video.width)x\(video.height)"
            if video.rotation != 0 { size += " upright, turned \(video.rotation)° clockwise" }
            if video.mirrored { size += " mirrored" }
            parts.append(size)
            if let frameRate = video.frameRate { parts.append("\(UnitText.decimal(frameRate)) fps") }
            if let fields = video.interlaced { parts.append(fields.summary) }
            if let pixelFormat = video.pixelFormat {
                parts.append(video.bitDepth.map { "\(pixelFormat) \($0)-bit" } ?? pixelFormat)
            }
            detail.append(color(video.color))
            detail.append(video.dynamicRange.summary)
            if video.stereoscopic == true {
                detail.append("3D (spatial video, MV-HEVC): two views, converted as the left eye only")
            }
            if let display = video.masteringDisplay { detail.append(mastering(display)) }
            if let light = video.contentLight {
                detail.append("MaxCLL \(light.maxCLL) cd/m², MaxFALL \(light.maxFALL) cd/m²")
            }
        }
        if let audio = track.audio {
            parts.append(audio.channelLayout ?? "\(audio.channels) channels")
            parts.append("\(audio.sampleRate) Hz")
        }
        if let language = track.language { parts.append(language) }
        if let handler = track.handler, track.kind != .video && track.kind != .audio {
            parts.append("handler \(handler)")
        }
        // "subtitle" fills the column: it still gets its space.
        let name = track.kind.name
        let head =
            "  #\(track.index) \(name.count >= 8 ? name + " " : name.padding(toLength: 8, withPad: " ", startingAt: 0))"
        return ["\(head)\(parts.joined(separator: ", ").terminalSafe)"]
            + detail.map { "     " + String(repeating: " ", count: 8) + $0.terminalSafe }
    }

    private static func color(_ color: ColorDescription) -> String {
        if color.isUnspecified { return "colour unspecified" }
        var text =
            "colour \(color.primaries.displayName), \(color.transfer.displayName), "
            + "\(color.matrix.displayName), \(color.range) range"
        if let icc = color.iccProfileBytes { text += ", ICC profile (\(icc) bytes)" }
        return text
    }

    private static func mastering(_ display: MasteringDisplay) -> String {
        var text = "mastering display"
        if let red = display.red, let green = display.green, let blue = display.blue, let white = display.whitePoint {
            let points = [red, green, blue, white].map {
                "(\(UnitText.decimal($0.x, 4)), \(UnitText.decimal($0.y, 4)))"
            }
            text += " R\(points[0]) G\(points[1]) B\(points[2]) WP\(points[3])"
        }
        if let min = display.minLuminance, let max = display.maxLuminance {
            text += ", \(UnitText.decimal(min, 4))–\(UnitText.decimal(max)) cd/m²"
        }
        return text
    }

    static func rate(_ bitsPerSecond: Int) -> String {
        bitsPerSecond >= 1_000_000
            ? "\(UnitText.decimal(Double(bitsPerSecond) / 1_000_000, 1)) Mb/s" : "\(bitsPerSecond / 1_000) kb/s"
    }
}
