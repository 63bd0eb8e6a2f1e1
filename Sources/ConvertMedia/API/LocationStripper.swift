import ConvertCore
internal import FFmpegLayer
import Foundation

/// Removes the place a photo or video was made from its metadata without re-encoding anything.
///
/// Every edit keeps the file's length and layout: the GPS directory of an EXIF block is unlinked
/// and zeroed where it is, XMP location properties are removed and the packet padded back to its
/// length with spaces, and MP4/MOV location boxes are cut out of the movie box, which gets a
/// `free` box of the same size at its end. No offset anywhere moves, so compressed pictures and
/// audio/video packets are byte-identical by construction, and only metadata bytes differ:
///
/// - JPEG: APP1 Exif and APP1 XMP segments.
/// - HEIC/HEIF/AVIF: the data of every `Exif` item and every `application/rdf+xml` XMP item
///   (primary image, thumbnails, other images), found through `iinf` and `iloc`.
/// - PNG: `eXIf` and uncompressed `iTXt` XMP chunks (checksums recomputed).
/// - WebP: `EXIF` and `XMP ` chunks.
/// - MP4/MOV: `©xyz`, `loci` and XMP (`XMP_`) boxes with a location in any `udta`, and the
///   `ilst` values of location keys (judged as conversions judge tags: `location`,
///   `com.apple.quicktime.location.*`) and `©xyz` items in any `meta`;
///   GoPro GPMF telemetry (`gpmd` samples): each GPS entry's payload zeroed and its key made
///   one no reader interprets, every other entry and sample as it was; a drone's telemetry
///   subtitles (DJI's SRT as `mov_text`): each cue's latitude, longitude and altitude blanked
///   with spaces, every other character and the sample's length as they were.
/// - JPEG from FLIR thermal cameras: the GPS record of the FFF data in the `FLIR` APP1
///   segments zeroed and its directory entry freed.
///
/// The result is read back with ``MediaProbe`` before it is committed: if any location remains
/// (in a place this editor does not handle) the job fails with `.unsupported`
/// `privacy.location-remains` and nothing is written.
///
/// ```swift
/// let result = try await LocationStripper.strip(
///     StripLocationRequest(input: "IMG_0001.HEIC", destination: "IMG_0001 (no location).HEIC")).result()
/// print(result.notes.map(\.message))  // ["location removed: EXIF GPS, XMP"]
/// ```
public enum LocationStripper {
    /// Starts removing the location from `request.input`.
    ///
    /// Errors: `.input` for missing, unreadable or damaged files; `.unsupported`
    /// (`privacy.unsupported-format`) for formats without an editor here (GIF and BMP have no
    /// location metadata; TIFF, Matroska/WebM and others are not edited), `privacy.compressed-metadata` for PNG
    /// metadata stored compressed, `privacy.location-remains` when the check after the edit still
    /// finds a location; `.request` `output.exists` when the destination is taken. The job runs on
    /// the threads of `limits`.
    public static func strip(_ request: StripLocationRequest, limits: ConversionLimits = .shared) -> ConversionJob {
        ConversionJob.start(path: request.input, admission: limits.admission) { reporter in
            reporter.report(.probing, 0)
            return try await runBlocking(on: limits.codec) { flag in try stripBlocking(request, cancellation: flag) }
        }
    }

    /// A same-length replacement of bytes at a file offset.
    struct Patch: Equatable {
        var offset: Int
        var bytes: [UInt8]
    }

    /// What an editor found: the patches to apply and the places the location was in.
    struct Edit {
        var patches: [Patch] = []
        var places: [LocationSource] = []
    }

    /// The location boxes of the MP4 inside a motion photo, edited like any movie's: the same
    /// length, so the still and every video sample stay where they are.
    /// Whether any container, stream or chapter tag of the file at `path` could hold a place
    /// (`location`, `©xyz`, GPS keys); true when the file cannot be read, so it is never said
    /// to have none.
    static func tagsMayHoldLocation(path: String) -> Bool {
        guard let demuxer = try? Demuxer(path: path) else { return true }
        let keys =
            demuxer.metadata.map(\.key) + (0..<demuxer.streamCount).flatMap { demuxer.stream($0).metadata.map(\.key) }
            + demuxer.chapters.flatMap { $0.tags.map(\.key) }
        return keys.contains(where: Metadata.isLocation)
    }

    static func addMotionVideo(_ data: [UInt8], path: String, to edit: inout Edit) throws(ConvertError) {
        guard let range = MotionPhoto.find(in: data)?.video else { return }
        let video = try MovieLocation.edit(source: MemoryByteSource(bytes: Array(data[range])), path: path)
        guard !video.patches.isEmpty else { return }
        edit.patches += video.patches.map { Patch(offset: $0.offset + range.lowerBound, bytes: $0.bytes) }
        edit.places.append(.motionVideo)
    }

    /// Samsung's `MCC_Data` (the country of the phone's network), taken out of the trailer
    /// after a JPEG or in a HEIC's last `sefd` box at the trailer's length.
    static func addSamsungCountry(_ data: [UInt8], heif: Bool, to edit: inout Edit) {
        var end = data.count
        if heif {
            guard let sefd = (try? ByteBox.topLevel(of: data))?.last(where: { $0.type == "sefd" }), !sefd.large else {
                return
            }
            end = sefd.end
        }
        guard let trailer = SamsungTrailer(data, end: end),
            let patch = trailer.patch(removing: SamsungTrailer.countryCodeEntry, from: data, end: end)
        else { return }
        edit.patches.append(Patch(offset: patch.offset, bytes: patch.bytes))
        edit.places.append(.samsungCountry)
    }

    static func stripBlocking(_ request: StripLocationRequest, cancellation: CancellationFlag) throws(ConvertError)
        -> JobResult
    {
        let path = request.input
        let before = try MediaProbe.probeBlocking(path: path, cancellation: cancellation)
        var edit: Edit
        switch before.format {
        case "jpeg":
            let data = try ImageDecoder.readAll(path: path)
            edit = try JPEGLocation.edit(data, path: path)
            // Before the motion video's patches: the trailer's patch spans the MP4 it may hold.
            addSamsungCountry(data, heif: false, to: &edit)
            try addMotionVideo(data, path: path, to: &edit)
        case "png": edit = try PNGLocation.edit(ImageDecoder.readAll(path: path), path: path)
        case "webp": edit = WebPLocation.edit(try ImageDecoder.readAll(path: path))
        case "heic", "heif", "avif":
            let data = try ImageDecoder.readAll(path: path)
            edit = try HeifLocation.edit(data, path: path)
            addSamsungCountry(data, heif: true, to: &edit)
            try addMotionVideo(data, path: path, to: &edit)
        case "mp4", "mov", "m4a", "3gp":
            edit = try MovieLocation.edit(path: path)
            // GoPro telemetry: GPS entries removed inside its samples, at their length.
            if let telemetry = try GPMFTelemetry.scan(path: path), !telemetry.patches.isEmpty {
                edit.patches += telemetry.patches
                edit.places.append(.gpmfTelemetry)
            }
            // A drone's telemetry subtitles: each cue's positions blanked, at its length.
            if let telemetry = try SubtitleTelemetry.scan(path: path, whole: true, source: FileByteSource(path: path)),
                !telemetry.patches.isEmpty
            {
                edit.patches += telemetry.patches
                edit.places.append(.djiTelemetry)
            }
        case "gif", "bmp":
            // Neither has anywhere to keep a location: nothing to remove.
            edit = Edit()
        default:
            // A Matroska, WebM or AVI file with no tag that could hold a place has nothing to
            // remove; one that has such a tag cannot be edited here, and is refused.
            guard before.location.present || Self.tagsMayHoldLocation(path: path) else {
                edit = Edit()
                break
            }
            throw ConvertError(
                code: .privacyUnsupportedFormat,
                message: "\(path): removing a location from \(before.formatName) files is not supported.", path: path)
        }
        try cancellation.check()
        if let unread = before.container?.unreadTelemetryTracks, !unread.isEmpty {
            throw ConvertError(
                code: .privacyLocationRemains,
                message: "\(path) has telemetry offconvert cannot read (\(unread.joined(separator: ", "))), where "
                    + "cameras log their position; offconvert cannot remove it without rewriting the file, so "
                    + "nothing was written. A converted copy leaves such tracks out.", path: path)
        }
        if edit.patches.isEmpty && before.location.present {
            throw ConvertError(
                code: .privacyLocationRemains,
                message: "\(path) records its location in \(before.location.sources.words), "
                    + "which offconvert cannot edit without re-encoding; nothing was written.", path: path)
        }
        if edit.patches.isEmpty {
            // Nothing to remove: no copy identical to the original, and nothing charged (a job
            // with no output costs no free conversion).
            return JobResult(
                inputPath: path, outputs: [],
                notes: [
                    JobNote(
                        fact: request.inPlace
                            ? "no location found; file unchanged" : "no location found; nothing written")
                ])
        }
        // In place through a symbolic link, the file it points to is replaced and the link stays.
        let stage = try StagedOutput(destination: request.inPlace ? replacedFile(path) : request.destination)
        try copy(path, to: stage.temporaryPath, patches: edit.patches, cancellation: cancellation)
        // The stage is created with the mode any new file of this user gets; an in-place result
        // keeps the original's permissions (a copy gets the source's from the batch).
        var info = stat()
        if request.inPlace, stat(path, &info) == 0 { chmod(stage.temporaryPath, info.st_mode & 0o7777) }
        let after = try MediaProbe.probeBlocking(path: stage.temporaryPath, cancellation: cancellation)
        // A damaged picture cannot be checked whole: a cut-off XMP item, say, is invisible to
        // the editors yet exiftool reads the GPS in what is left of it.
        if after.location.incomplete == true {
            throw ConvertError(
                code: .privacyLocationRemains,
                message:
                    "\(path) is damaged, so offconvert cannot check that no location remains in it; nothing was written.",
                path: path)
        }
        if after.location.present {
            throw ConvertError(
                code: .privacyLocationRemains,
                message: "\(path): a location remains in \(after.location.sources.words) "
                    + "after editing; nothing was written.", path: path)
        }
        let output = try stage.commit(overwrite: request.overwrite || request.inPlace, gate: request.placementGate)
        let note = edit.places.isEmpty ? "no location found" : "location removed: " + edit.places.words
        return JobResult(
            inputPath: path, outputs: [output], notes: [JobNote(fact: note)],
            location: edit.places.isEmpty ? .noneFound : .removed)
    }

    /// The file an in-place edit of `path` replaces: `path` itself, or for a symbolic link the
    /// file it leads to (every link resolved), so that the rename lands on the file and the link
    /// stays a link.
    static func replacedFile(_ path: String) -> String {
        var info = stat()
        guard lstat(path, &info) == 0, info.st_mode & S_IFMT == S_IFLNK else { return path }
        let resolved = PathEncoding.withCString(path) { realpath($0, nil) }
        guard let resolved else { return path }
        defer { free(resolved) }
        return PathEncoding.decode(cString: resolved)
    }

    /// Copies `source` to `target` (already created by the stage) and applies `patches`.
    static func copy(_ source: String, to target: String, patches: [Patch], cancellation: CancellationFlag)
        throws(ConvertError)
    {
        let input = open(source, O_RDONLY | O_CLOEXEC)
        guard input >= 0 else { throw .fileSystem(errno, action: "read", path: source) }
        defer { close(input) }
        let output = open(target, O_WRONLY | O_TRUNC | O_CLOEXEC)
        guard output >= 0 else { throw .fileSystem(errno, action: "write", path: target) }
        defer { close(output) }
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        while true {
            try cancellation.check()
            let got = buffer.withUnsafeMutableBytes { read(input, $0.baseAddress, $0.count) }
            if got < 0 {
                if errno == EINTR { continue }
                throw .fileSystem(errno, action: "read", path: source)
            }
            if got == 0 { break }
            try writeAll(output, buffer[0..<got], at: nil, path: target)
        }
        for patch in patches { try writeAll(output, patch.bytes[...], at: patch.offset, path: target) }
    }

    private static func writeAll(_ descriptor: Int32, _ bytes: ArraySlice<UInt8>, at offset: Int?, path: String)
        throws(ConvertError)
    {
        var done = 0
        while done < bytes.count {
            let written = bytes.withUnsafeBytes { raw -> Int in
                guard let base = raw.baseAddress else { return 0 }
                if let offset { return pwrite(descriptor, base + done, raw.count - done, off_t(offset + done)) }
                return write(descriptor, base + done, raw.count - done)
            }
            if written < 0 {
                if errno == EINTR { continue }
                throw .fileSystem(errno, action: "write", path: path)
            }
            done += written
        }
    }

    /// `packet` without location properties, padded with spaces to its original length (XML
    /// allows whitespace after the packet); nil when it has none or is not UTF-8 text.
    static func xmpWithoutLocation(_ packet: [UInt8]) -> [UInt8]? {
        guard XMP.hasLocation(packet), var cleaned = XMP.removing(XMP.locationProperties, from: packet),
            cleaned.count <= packet.count
        else { return nil }
        cleaned += [UInt8](repeating: 0x20, count: packet.count - cleaned.count)
        return cleaned
    }

    /// `tiff` with its GPS directories removed in place, or nil when it has none.
    static func exifWithoutLocation(_ tiff: [UInt8]) -> [UInt8]? {
        guard let exif = Exif(tiff: tiff), exif.hasGPS || exif.thumbnailHasGPS else { return nil }
        return exif.withoutLocationInPlace()
    }
}

/// JPEG: the APP1 Exif and XMP segments, edited at their length, and the APP13 IPTC-IIM block.
enum JPEGLocation {
    /// The APP13 segment without the IPTC location datasets, as a patch of the same length: the
    /// other datasets move up and the bytes freed become zero padding inside the IPTC resource
    /// (where IIM readers, exiftool among them, expect it), so nothing in the file moves. Nil
    /// when the segment has no IPTC location.
    static func iptcWithoutLocation(_ data: [UInt8], segment: JPEGMarkers.Segment) -> LocationStripper.Patch? {
        let payload = Array(data[segment.payload])
        guard payload.starts(with: IPTC.photoshopHeader) else { return nil }
        let resources = Array(payload.dropFirst(IPTC.photoshopHeader.count))
        guard let range = IPTC.iimRange(inResources: resources) else { return nil }
        let iim = Array(resources[range.data])
        guard IPTC.hasLocation(iim), let datasets = IPTC.datasets(iim) else { return nil }
        var kept = IPTC.serialise(datasets.filter { !($0.record == 2 && IPTC.locationDatasets.contains($0.number)) })
        kept += [UInt8](repeating: 0, count: iim.count - kept.count)
        return .init(
            offset: segment.payload.lowerBound + IPTC.photoshopHeader.count + range.data.lowerBound, bytes: kept)
    }

    /// The header of an extended-XMP segment (the rest of a packet too large for one segment).
    static let extendedXMPHeader: [UInt8] = Array("http://ns.adobe.com/xmp/extension/".utf8) + [0]

    static func edit(_ data: [UInt8], path: String) throws(ConvertError) -> LocationStripper.Edit {
        var edit = LocationStripper.Edit()
        for segment in JPEGMarkers.segments(data) where segment.marker == 0xED {
            if let patch = iptcWithoutLocation(data, segment: segment) {
                edit.patches.append(patch)
                edit.places.append(.iptc)
            }
        }
        for segment in JPEGMarkers.segments(data) where segment.marker == 0xE1 {
            let payload = Array(data[segment.payload])
            if payload.starts(with: extendedXMPHeader) {
                // GUID (32) + full length (4) + offset (4), then a piece of the packet. Pieces are
                // cut anywhere, so this is a best effort; editing them would mean rejoining them.
                if XMP.hasLocation(Array(payload.dropFirst(extendedXMPHeader.count + 40))) {
                    throw ConvertError(
                        code: .privacyLocationRemains,
                        message: "\(path) records its location in extended XMP, which offconvert does not edit; "
                            + "nothing was written.", path: path)
                }
            } else if payload.starts(with: JPEGMarkers.exifHeader) {
                let tiff = Array(payload.dropFirst(JPEGMarkers.exifHeader.count))
                guard let cleaned = LocationStripper.exifWithoutLocation(tiff) else { continue }
                edit.patches.append(
                    .init(offset: segment.payload.lowerBound + JPEGMarkers.exifHeader.count, bytes: cleaned))
                edit.places.append(.exif)
            } else if payload.starts(with: JPEGMarkers.xmpHeader) {
                let packet = Array(payload.dropFirst(JPEGMarkers.xmpHeader.count))
                guard let cleaned = LocationStripper.xmpWithoutLocation(packet) else { continue }
                edit.patches.append(
                    .init(offset: segment.payload.lowerBound + JPEGMarkers.xmpHeader.count, bytes: cleaned))
                edit.places += XMP.locationKinds(packet)
            }
        }
        if let flir = FLIRRecords(jpeg: data), flir.hasGPS {
            edit.patches += flir.gpsRemovalPatches.map { LocationStripper.Patch(offset: $0.offset, bytes: $0.bytes) }
            edit.places.append(.flir)
        }
        return edit
    }
}

/// PNG: `eXIf` and `iTXt` XMP chunks, edited at their length with the CRC recomputed.
enum PNGLocation {
    static func edit(_ data: [UInt8], path: String) throws(ConvertError) -> LocationStripper.Edit {
        var edit = LocationStripper.Edit()
        for found in PNGChunks(data) {
            let chunk = Array(data[found.body])
            var cleaned: [UInt8]?
            switch found.type {
            case "eXIf":
                cleaned = LocationStripper.exifWithoutLocation(chunk)
                if cleaned != nil { edit.places.append(.exif) }
            case "iTXt":
                guard let textStart = PNGText.textStart(chunk) else { break }
                if chunk[18] != 0 {
                    throw ConvertError(
                        code: .privacyCompressedMetadata,
                        message: "\(path) stores its XMP compressed; offconvert cannot edit it without re-encoding.",
                        path: path)
                }
                if let text = LocationStripper.xmpWithoutLocation(Array(chunk[textStart...])) {
                    cleaned = Array(chunk[..<textStart]) + text
                    edit.places += XMP.locationKinds(Array(chunk[textStart...]))
                }
            case "zTXt", "tEXt":
                // ImageMagick's hex-encoded EXIF/XMP copies: not worth a second parser; refuse
                // rather than leave a location behind.
                guard chunk.starts(with: Array("Raw profile type".utf8)) else { break }
                throw ConvertError(
                    code: .privacyCompressedMetadata,
                    message: "\(path) keeps metadata in a legacy text chunk offconvert does not edit.", path: path)
            default:
                break
            }
            if let cleaned {
                let crc = CRC32.checksum(Array(found.type.utf8) + cleaned)
                edit.patches.append(
                    .init(
                        offset: found.body.lowerBound,
                        bytes: cleaned + [
                            UInt8(crc >> 24), UInt8((crc >> 16) & 0xFF), UInt8((crc >> 8) & 0xFF), UInt8(crc & 0xFF),
                        ]))
            }
        }
        return edit
    }
}

/// WebP: the RIFF `EXIF` and `XMP ` chunks, edited at their length.
enum WebPLocation {
    static func edit(_ data: [UInt8]) -> LocationStripper.Edit {
        var edit = LocationStripper.Edit()
        var offset = 12
        while offset + 8 <= data.count {
            let type = String(decoding: data[offset..<(offset + 4)], as: UTF8.self)
            let size =
                Int(data[offset + 4]) | Int(data[offset + 5]) << 8 | Int(data[offset + 6]) << 16 | Int(data[offset + 7])
                << 24
            let start = offset + 8
            guard size <= data.count - start else { break }
            let chunk = Array(data[start..<(start + size)])
            if type == "EXIF" {
                // Some writers keep JPEG's "Exif\0\0" prefix in the chunk.
                let skip = chunk.starts(with: JPEGMarkers.exifHeader) ? JPEGMarkers.exifHeader.count : 0
                if let cleaned = LocationStripper.exifWithoutLocation(Array(chunk.dropFirst(skip))) {
                    edit.patches.append(.init(offset: start + skip, bytes: cleaned))
                    edit.places.append(.exif)
                }
            } else if type == "XMP ", let cleaned = LocationStripper.xmpWithoutLocation(chunk) {
                edit.patches.append(.init(offset: start, bytes: cleaned))
                edit.places += XMP.locationKinds(chunk)
            }
            offset = start + size + (size & 1)
        }
        return edit
    }
}
