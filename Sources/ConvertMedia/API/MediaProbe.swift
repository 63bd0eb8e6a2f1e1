import ConvertCore
internal import FFmpegLayer
import Foundation

/// Reads what a media file is: its format, size and (for movies and audio) its container and
/// tracks, including the dynamic-range class of every video track.
///
/// ```swift
/// let info = try await MediaProbe.probe(path: "IMG_0001.MOV")
/// for track in info.container?.videoTracks ?? [] {
///     print(track.codec, track.video?.dynamicRange.summary ?? "")
///     // hevc Dolby Vision 8.4, HLG-compatible base (level 2, RPU+BL)
/// }
/// ```
public enum MediaProbe {
    /// Probes the file at `path`.
    ///
    /// The file is identified by its content, never its name. Still images (JPEG, PNG, WebP, GIF,
    /// HEIC/HEIF/AVIF) give a ``MediaInfo`` with ``MediaInfo/format``, size and an
    /// ``MediaInfo/image`` part and no container part. MP4/MOV files are read with our own box reader as well as FFmpeg, so Dolby Vision
    /// records, colour boxes and location metadata are found even where FFmpeg cannot decode the
    /// codec; damage our reader finds in a file FFmpeg can still read becomes a warning.
    ///
    /// - Throws: `.input` errors with keys `input.missing`, `input.denied`, `input.not-a-file`,
    ///   `input.empty`, `input.unreadable`, `input.unrecognised` (not a media file),
    ///   `input.truncated` (an MP4/MOV cut short before its movie box), `input.corrupt` (damaged
    ///   beyond reading, including headers that declare impossible sizes); `.cancelled` when
    ///   the calling task is cancelled.
    public static func probe(path: String) async throws(ConvertError) -> MediaInfo {
        do {
            return try await runBlocking(on: .short) { flag in try probeBlocking(path: path, cancellation: flag) }
        } catch {
            throw error.naming(path)
        }
    }

    static func probeBlocking(path: String, cancellation: CancellationFlag) throws(ConvertError) -> MediaInfo {
        FFmpegLogging.configure()
        let source = try FileByteSource(path: path)
        guard source.size > 0 else { throw ConvertError.emptyInput(path) }
        let head: [UInt8]
        do { head = try source.read(at: 0, count: 64) } catch {
            throw ConvertError(
                code: .inputUnreadable, message: "\(path) cannot be read.", path: path,
                underlying: error.description)
        }
        let byteCount = Int(source.size)
        let kind = MediaSniffer.kind(of: head, path: path)
        if case .image(let image) = kind {
            return try probeImage(
                path: path, format: image.id, name: image.name, byteCount: byteCount, cancellation: cancellation)
        }
        // A still picture offconvert does not read is named as what it is, never handed to
        // FFmpeg (whose image demuxers would call it a one-frame video).
        if case .foreignImage(let foreign) = kind {
            return MediaInfo(
                path: path, format: foreign.id, formatName: foreign.formatName, byteCount: byteCount,
                imageError: .foreignImage(foreign, path: path))
        }
        let (movie, boxDamage) = try scanMovie(kind: kind, source: source, path: path)
        try cancellation.check()
        let demuxer = try openDemuxer(path: path, movie: movie, boxDamage: boxDamage, cancellation: cancellation)
        var container = ContainerProber(demuxer: demuxer, movie: movie).containerInfo()
        // FFmpeg builds a nameless data stream from the wreck of a track; a file with nothing but
        // such streams has nothing to show.
        guard container.tracks.contains(where: { $0.kind == .video || $0.kind == .audio || $0.codec != "unknown" })
        else {
            if let boxDamage {
                throw ConvertError(code: .inputCorrupt, message: "\(path) is damaged: \(boxDamage).", path: path)
            }
            throw ConvertError(
                code: .inputUnrecognised,
                message: "\(path) has no track offconvert recognises.", path: path)
        }
        container.telemetryGPSFixes = GPMFTelemetry.scan(demuxer: demuxer, source: source)?.fixes
        // The first cues decide; only a flight log is read whole (other streams discarded), for
        // the count of its cues: a film's subtitles in a large Matroska file are not read through.
        if container.tracks.contains(where: { $0.kind == .subtitle }),
            try SubtitleTelemetry.scan(path: path, whole: false) != nil
        {
            container.telemetrySubtitleCues = try SubtitleTelemetry.scan(path: path, whole: true)?.cues
        }
        if demuxer.isISOBMFF {
            container.slowMotion = SlowMotionInfo(
                SlowMotionSegments.read(from: source), captureRate: MediaSnapshot.captureRate(demuxer.metadata))
        }
        try cancellation.check()
        try addFirstFrameMetadata(to: &container, demuxer: demuxer, cancellation: cancellation)
        addWarnings(to: &container, movie: movie, boxDamage: boxDamage)
        if movie?.truncatedBox != nil { measureCutShort(&container, demuxer: demuxer, byteCount: byteCount) }
        let (format, name) = describe(kind: kind, demuxer: demuxer)
        return MediaInfo(path: path, format: format, formatName: name, byteCount: byteCount, container: container)
    }

    /// A still image's description. The image part is a bonus over format and size: a picture
    /// too damaged to describe is still identified, with the photo reader's error as
    /// ``MediaInfo/imageError``.
    private static func probeImage(
        path: String, format: String, name: String, byteCount: Int, cancellation: CancellationFlag
    ) throws(ConvertError) -> MediaInfo {
        do {
            // A PNG's header can be whole over damaged image data a conversion refuses: its rows
            // are read (one at a time) so that the file is not described as a fine picture.
            let image = try ImageProbe.probeBlocking(path: path, verifyingPixels: true)
            let motion = try motionPhoto(path: path, format: format, cancellation: cancellation)
            var info = MediaInfo(
                path: path, format: format, formatName: name, byteCount: byteCount, image: image, motionPhoto: motion)
            // Metadata may have followed the picture where the file now ends.
            if image.damage != nil { info.location.incomplete = true }
            return info
        } catch {
            if error.category == .cancelled { throw error }
            var info = MediaInfo(
                path: path, format: format, formatName: name, byteCount: byteCount, imageError: error.naming(path))
            info.location = salvagedLocation(path: path, format: format)
            return info
        }
    }

    /// The box structure of an ISO media file (MP4, MOV), or the damage found in it; neither for
    /// other containers. A read error is the file's, not its structure's.
    private static func scanMovie(
        kind: MediaSniffer.Kind, source: FileByteSource, path: String
    ) throws(ConvertError) -> (movie: ISOMovie?, damage: BoxError?) {
        guard case .isoMedia = kind else { return (nil, nil) }
        do { return (try MovieBoxScanner.scan(BoxReader(source: source)), nil) } catch {
            if case .io = error {
                throw ConvertError(
                    code: .inputUnreadable, message: "\(path) cannot be read.", path: path,
                    underlying: error.description)
            }
            return (nil, error)
        }
    }

    /// FFmpeg's demuxer over `path`, its failure explained by what the box scan found.
    private static func openDemuxer(
        path: String, movie: ISOMovie?, boxDamage: BoxError?, cancellation: CancellationFlag
    ) throws(ConvertError) -> Demuxer {
        let demuxer: Demuxer
        do { demuxer = try Demuxer(path: path, cancellation: cancellation) } catch {
            if let movie, movie.truncatedBox != nil || !movie.hasMovieBox {
                throw ConvertError(
                    code: .inputTruncated,
                    message: "\(path) is incomplete: the file ends before its movie data.",
                    path: path, underlying: error.underlyingDescription)
            }
            if let boxDamage {
                throw ConvertError(
                    code: .inputCorrupt, message: "\(path) is damaged: \(boxDamage).",
                    path: path, underlying: error.underlyingDescription)
            }
            // Opening only reads headers: FFmpeg runs out of memory there when a damaged header
            // declares an absurd table size (it refuses allocations above its limit), not because
            // the machine is short of memory.
            if error.code == .internalMemory {
                throw ConvertError(
                    code: .inputCorrupt,
                    message: "\(path) is damaged: its headers declare impossible sizes.",
                    path: path, underlying: error.underlyingDescription)
            }
            throw error
        }
        // FFmpeg's "tty" demuxer shows any text file named .txt; a file without streams is not media.
        guard demuxer.streamCount > 0, demuxer.formatName != "tty" else {
            throw ConvertError(
                code: .inputUnrecognised,
                message: "\(path) is not a media file offconvert recognises.", path: path)
        }
        return demuxer
    }

    /// What the box scan found wrong, and HDR metadata not to trust.
    private static func addWarnings(to container: inout ContainerInfo, movie: ISOMovie?, boxDamage: BoxError?) {
        if let boxDamage {
            container.warnings.insert(
                "the MP4 box structure is damaged (\(boxDamage)); details come from FFmpeg alone", at: 0)
        }
        if let truncated = movie?.truncatedBox {
            container.warnings.insert("the file is cut short: its '\(truncated)' box runs past the end", at: 0)
        }
        container.warnings.append(contentsOf: movie?.problems ?? [])
        for track in container.tracks {
            // ST 2086 luminance is in 0.0001 cd/m² units; writers that put plain cd/m² there give
            // a "1000 nit" display as 0.1 cd/m². Tone mappers should not trust such a value.
            if let peak = track.video?.masteringDisplay?.maxLuminance, peak < 50 {
                container.warnings.append(
                    "track \(track.index): the mastering display's peak luminance "
                        + "(\(peak) cd/m²) is implausible; the file's HDR metadata is probably mis-scaled")
            }
        }
    }

    /// A cut-short MP4/MOV's length is where its data ends, not what its header announces (a
    /// copy of an audiobook stopped at a third still says 1:02:03): the duration becomes the
    /// end of the last whole sample, and a warning gives both.
    private static func measureCutShort(_ container: inout ContainerInfo, demuxer: Demuxer, byteCount: Int) {
        let ends = (0..<demuxer.streamCount).compactMap { demuxer.stream($0).dataEnd(fileSize: Int64(byteCount)) }
        guard let announced = container.durationSeconds, let end = ends.max(), end < announced else { return }
        container.durationSeconds = end
        container.warnings.insert(
            "its data ends at \(UnitText.duration(end)) of the \(UnitText.duration(announced)) its header announces",
            at: min(1, container.warnings.count))
    }

    /// The motion part of a JPEG or HEIC, if it has one.
    private static func motionPhoto(path: String, format: String, cancellation: CancellationFlag) throws(ConvertError)
        -> MotionPhotoInfo?
    {
        guard ["jpeg", "heic", "heif"].contains(format) else { return nil }
        return try MotionPhotoInfo.probe(file: ImageDecoder.readAll(path: path), cancellation: cancellation)
    }

    /// Fills in mastering display and content light level from the first frame of the first PQ
    /// video track whose container gave neither (HDR10 metadata carried only in SEI).
    private static func addFirstFrameMetadata(
        to container: inout ContainerInfo, demuxer: Demuxer, cancellation: CancellationFlag
    ) throws(ConvertError) {
        guard
            let position = container.tracks.firstIndex(where: { track in
                guard let video = track.video, track.decoderAvailable else { return false }
                return video.dynamicRange.sdrConversion == .toneMapFromPQ && video.masteringDisplay == nil
                    && video.contentLight == nil
            })
        else { return }
        let (display, light) = try FirstFrameHDRMetadata.read(
            demuxer: demuxer, index: container.tracks[position].index, cancellation: cancellation)
        container.tracks[position].video?.masteringDisplay = display
        container.tracks[position].video?.contentLight = light
    }

    /// The short format id and readable name for a container.
    private static func describe(kind: MediaSniffer.Kind, demuxer: Demuxer) -> (String, String) {
        switch kind {
        case .matroska(let isWebM):
            return isWebM ? ("webm", "WebM") : ("matroska", "Matroska")
        case .isoMedia(let major):
            let brand = major?.description ?? "qt  "
            if brand == "qt  " { return ("mov", "QuickTime movie") }
            if brand.hasPrefix("M4A") || brand.hasPrefix("M4B") { return ("m4a", "MPEG-4 audio") }
            if brand.hasPrefix("3g") { return ("3gp", "3GPP") }
            return ("mp4", "MPEG-4")
        default:
            guard !demuxer.formatName.isEmpty else { return ("unknown", "Unknown") }
            let short = demuxer.formatName.split(separator: ",").first.map(String.init) ?? "unknown"
            let long = demuxer.formatLongName ?? short
            return (short, long)
        }
    }
}

/// FFmpeg logs demuxer and decoder complaints straight to stderr, which would garble the CLI's
/// output; our errors already carry FFmpeg's message. Set `OFFCONVERT_FFMPEG_LOG=1` to keep them.
extension MediaProbe {
    /// The location of a picture too damaged to describe, from the metadata the location
    /// editors find without decoding anything (the boxes, chunks or segments that hold EXIF,
    /// XMP and IPTC): what exiftool would read, and what `strip-location` would remove. Marked
    /// incomplete either way: a damaged file is never reported as having no location.
    static func salvagedLocation(path: String, format: String) -> LocationPresence {
        var places: [LocationSource] = []
        if let data = try? ImageDecoder.readAll(path: path) {
            switch format {
            case "heic", "heif", "avif": places = (try? HeifLocation.edit(data, path: path).places) ?? []
            case "jpeg": places = (try? JPEGLocation.edit(data, path: path).places) ?? []
            case "png": places = (try? PNGLocation.edit(data, path: path).places) ?? []
            case "webp": places = WebPLocation.edit(data).places
            default: break
            }
        }
        var presence = LocationPresence(sources: places)
        presence.incomplete = true
        return presence
    }
}

extension MediaProbe {
    /// The kind of media at `path`: `.photo` for a still image the photo engine reads, `.video`
    /// for a movie or sound file. Read from the file's first bytes, never its name: 64 bytes
    /// for photos, MP4/MOV and Matroska; other content is left to FFmpeg's format probes (up to
    /// 1 MiB, as FFmpeg itself reads), which must recognise it with confidence. Cheap enough to
    /// run on every input of a batch before any work.
    ///
    /// A still image in a format offconvert names but does not read (PSD, ICO/CUR, TGA, PCX,
    /// JPEG 2000, PNM) is neither: FFmpeg's probes open several of them as a one-frame "video",
    /// which an app routing on this answer would turn into an MP4.
    ///
    /// - Throws: the codes ``probe(path:)`` gives for the same file: `input.missing`,
    ///   `input.denied`, `input.not-a-file` (a folder, a FIFO, a device), `input.empty`,
    ///   `input.unrecognised` for content that is neither (text, random bytes), and
    ///   `unsupported.image-format` for a still image offconvert does not read (the error names
    ///   its format).
    public static func kind(path: String) throws(ConvertError) -> MediaKind {
        if let problem = ConvertError.inputProblem(path) { throw problem }
        guard let head = RawFile.head(of: path, count: 64) else {
            throw ConvertError(code: .inputUnreadable, message: "\(path) cannot be read.", path: path)
        }
        switch MediaSniffer.kind(of: head, path: path) {
        case .image: return .photo
        case .foreignImage(let format): throw ConvertError.foreignImage(format, path: path)
        case .isoMedia, .matroska: return .video
        case .other:
            guard ContentProbe.recognises(path: path) else {
                throw ConvertError(
                    code: .inputUnrecognised,
                    message: "\(path) is not a media file offconvert recognises.", path: path)
            }
            return .video
        }
    }
}
