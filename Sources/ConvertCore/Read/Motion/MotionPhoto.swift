import FoundationEssentials

/// A short video carried inside a still photo: a Google motion photo (XMP `Camera:MotionPhoto`
/// with a `Container:Directory`, or the older `Camera:MicroVideo` + `MicroVideoOffset`), a
/// Samsung one (an MP4 after a `MotionPhoto_Data` marker, listed in the `SEFH`/`SEFT` trailer),
/// or a Google HEIC one (the MP4 in a top-level `mpvd` box). Samsung's HEIC motion photos use
/// the same trailer as its JPEGs, appended after the HEIC's last box.
///
/// Found from the bytes alone, without decoding anything. What the pointers promise and what is
/// there are kept apart: a file whose XMP says "a video of 8730 bytes follows" but whose bytes
/// there are no MP4 is still a ``MotionPhoto``, with ``video`` nil and ``problem`` saying why.
package struct MotionPhoto: Sendable, Equatable {
    /// How the video is attached; the raw values are the stable ids `info --json` prints.
    package enum Layout: String, Sendable, Equatable {
        /// XMP `Camera:MotionPhoto` and a `Container:Directory` listing the video's length.
        case googleContainer = "google"
        /// XMP `Camera:MicroVideo` with `MicroVideoOffset` (bytes from the video to the end).
        case googleMicroVideo = "google-microvideo"
        /// Samsung's `MotionPhoto_Data` in the SEF trailer.
        case samsung = "samsung"
        /// A HEIC with the MP4 in a top-level `mpvd` box.
        case heifBox = "heif-mpvd"
        /// A Samsung HEIC (One UI 6 and later): the MP4 in an `mpvd` box, and a `sefd` box whose
        /// SEF trailer points at it.
        case samsungHEIF = "samsung-heif"
    }

    /// How the video is attached.
    package var layout: Layout
    /// The video's length in bytes as the metadata declares it, when it declares one.
    package var declaredBytes: Int?
    /// Where the MP4 is in the file; nil when the bytes there are not an MP4.
    package var video: Range<Int>?
    /// Where the still ends: everything from here on belongs to the motion part (the MP4 and,
    /// for Samsung files, the trailer that indexes it), so `strip-motion` keeps `0..<stillEnd`.
    var stillEnd: Int
    /// Why the declared video is not there; nil when it is.
    package var problem: String?
    /// Byte ranges of the still (inside `0..<stillEnd`) that `strip-motion` replaces: a HEIC's
    /// `mpvd` box removed, its `sefd` box rebuilt without the motion entries.
    var splices: [Splice] = []

    /// One edit of the still: `range` replaced by `replacement`.
    struct Splice: Sendable, Equatable {
        var range: Range<Int>
        var replacement: [UInt8]
    }

    /// The bytes of the embedded MP4, when it is there.
    package func videoBytes(of file: [UInt8]) -> ArraySlice<UInt8>? { video.map { file[$0] } }

    /// The motion photo in `file` (a whole JPEG or HEIC), or nil when it is an ordinary photo.
    package static func find(in file: [UInt8]) -> MotionPhoto? {
        let kind = MediaSniffer.kind(of: Array(file.prefix(64)))
        if kind == .image(.jpeg) { return findInJPEG(file) }
        if kind.isHEIF { return findInHEIF(file) }
        return nil
    }

    /// Counts ``isMotionPhoto(path:)``'s opens of watched files, so a test can prove that a
    /// conversion answers from what it already read.
    package static let pathChecks = FileReadCounter()

    /// Whether the photo at `path` carries (or its metadata claims) a motion part; false when it
    /// cannot be read. Reads only the head (a JPEG's XMP), the last bytes (Samsung's `SEFT`) or
    /// a HEIF file's top-level box headers, never the whole photo. A conversion asks its
    /// ``OpenedPhoto`` instead, which answers from what it read.
    static func isMotionPhoto(path: String) -> Bool {
        pathChecks.count(path: path)
        guard let source = try? FileByteSource(path: path), source.size >= 16,
            let head = try? source.read(at: 0, count: Int(min(source.size, UInt64(BoxLimits.maximumRead))))
        else { return false }
        let kind = MediaSniffer.kind(of: Array(head.prefix(64)))
        if kind == .image(.jpeg) { return isMotionJPEG(xmp: JPEGMarkers.metadata(head).xmp, file: source) }
        guard kind.isHEIF else { return false }
        return isMotionHEIF(file: source) {
            (try? BoxReader(source: source).children(of: nil, depth: 0))?.map(\.type) ?? []
        }
    }

    /// Whether a JPEG whose XMP packet is `xmp` is a motion photo: the XMP flags one, or the
    /// Samsung trailer at the end of `file` lists a motion part (only the tail is read).
    static func isMotionJPEG(xmp: [UInt8]?, file: some ByteSource) -> Bool {
        if let packet = xmp, let text = String(validating: packet, as: UTF8.self),
            MotionXMP.flag(text, "MotionPhoto") == "1" || MotionXMP.flag(text, "MicroVideo") == "1"
        {
            return true
        }
        return SamsungTrailer.entryNames(in: file).contains("MotionPhoto_Data")
    }

    /// Whether a HEIF `file` is a motion photo: its Samsung trailer lists a motion part, or one
    /// of its top-level boxes (`topLevelTypes`, asked for only when the trailer does not say) is
    /// an `mpvd`.
    static func isMotionHEIF(file: some ByteSource, topLevelTypes: () -> [FourCC]) -> Bool {
        // A trailer with only Image_UTC_Data, MCC_Data and the like is no motion photo.
        if SamsungTrailer.entryNames(in: file).contains("MotionPhoto_Data") { return true }
        return topLevelTypes().contains("mpvd")
    }

    // MARK: JPEG

    private static func findInJPEG(_ file: [UInt8]) -> MotionPhoto? {
        let xmp = JPEGMarkers.metadata(file).xmp.flatMap { String(validating: $0, as: UTF8.self) }
        let trailer = SamsungTrailer(file)
        if let xmp, MotionXMP.flag(xmp, "MotionPhoto") == "1", let items = MotionXMP.items(xmp) {
            return fromContainer(items, file: file)
        }
        if let trailer, let entry = trailer.motionEntry {
            return fromSamsung(entry, trailer: trailer, file: file)
        }
        if let xmp, MotionXMP.flag(xmp, "MicroVideo") == "1" {
            let offset = MotionXMP.flag(xmp, "MicroVideoOffset").flatMap { Int($0) }
            return fromMicroVideo(offset: offset, trailer: trailer, file: file)
        }
        if let marker = SamsungTrailer.marker(in: file) {
            // A trailer cut off (or rewritten) by an editor: the marker alone still finds the MP4.
            let start = marker + SamsungTrailer.markerBytes.count
            return checked(
                MotionPhoto(layout: .samsung, declaredBytes: nil, video: start..<file.count, stillEnd: marker), file)
        }
        return nil
    }

    /// Google's container: secondary items follow the primary image back to back, so the last
    /// item ends at the end of the file and each one before it ends where the next begins.
    private static func fromContainer(_ items: [MotionXMP.Item], file: [UInt8]) -> MotionPhoto {
        var end = file.count
        for (index, item) in items.enumerated().reversed() where index > 0 {
            guard let length = item.length, length >= 0, length <= end else {
                return MotionPhoto(
                    layout: .googleContainer, declaredBytes: item.length, video: nil, stillEnd: file.count,
                    problem: "the XMP declares a video of \(item.length ?? 0) bytes, more than the file holds")
            }
            let start = end - length
            if item.isVideo {
                var photo = MotionPhoto(
                    layout: .googleContainer, declaredBytes: length, video: start..<end, stillEnd: start)
                if index != items.count - 1 {
                    photo.problem = "the video is not the last item of the file; only the video is extracted"
                    photo.stillEnd = file.count
                }
                return checked(photo, file)
            }
            end = start - max(0, items[index - 1].padding ?? 0)
        }
        return MotionPhoto(
            layout: .googleContainer, declaredBytes: nil, video: nil, stillEnd: file.count,
            problem: "the XMP marks a motion photo but lists no video item")
    }

    private static func fromMicroVideo(offset: Int?, trailer: SamsungTrailer?, file: [UInt8]) -> MotionPhoto {
        guard let offset, offset > 0, offset <= file.count else {
            return MotionPhoto(
                layout: .googleMicroVideo, declaredBytes: offset, video: nil, stillEnd: file.count,
                problem:
                    "the XMP's MicroVideoOffset (\(offset.map(String.init) ?? "none")) does not point into the file")
        }
        let start = file.count - offset
        let end = trailer?.start ?? file.count
        var stillEnd = start
        var layout = MotionPhoto.Layout.googleMicroVideo
        let marker = SamsungTrailer.markerBytes
        // Samsung writes the MicroVideo XMP too, with the offset counting from its MP4; the
        // marker and its entry header (8 bytes before it) belong to the motion part.
        if trailer != nil, start >= marker.count + 8, Array(file[(start - marker.count)..<start]) == marker {
            stillEnd = start - marker.count - 8
            layout = .samsung
        }
        return checked(
            MotionPhoto(layout: layout, declaredBytes: offset, video: start..<max(start, end), stillEnd: stillEnd), file
        )
    }

    private static func fromSamsung(_ entry: SamsungTrailer.Entry, trailer: SamsungTrailer, file: [UInt8])
        -> MotionPhoto
    {
        let stillEnd = trailer.firstDataStart ?? entry.data.lowerBound
        return checked(
            MotionPhoto(layout: .samsung, declaredBytes: entry.payload.count, video: entry.payload, stillEnd: stillEnd),
            file)
    }

    /// Keeps ``video`` only when an MP4 starts there (a box whose type is `ftyp`).
    private static func checked(_ photo: MotionPhoto, _ file: [UInt8]) -> MotionPhoto {
        guard let range = photo.video else { return photo }
        var result = photo
        if range.count < 8 || range.lowerBound < 0 || range.upperBound > file.count
            || Array(file[(range.lowerBound + 4)..<(range.lowerBound + 8)]) != Array("ftyp".utf8)
        {
            result.video = nil
            result.stillEnd = file.count
            result.problem =
                "the metadata says a video of \(photo.declaredBytes ?? range.count) bytes is attached, "
                + "but there is no MP4 where it points (the file was probably shortened by an editor or an upload)"
        } else if let damage = movieDamage(Array(file[range])) {
            result.video = nil
            result.problem = "the attached MP4 (\(range.count) bytes) is incomplete: \(damage)"
        }
        return result
    }

    /// Why an MP4 in memory cannot play: no movie box, or chunk offsets past its end (the
    /// samples were cut out); nil when its structure holds together.
    private static func movieDamage(_ movie: [UInt8]) -> String? {
        guard let top = try? ByteBox.topLevel(of: movie), let moov = top.first(where: { $0.type == "moov" }) else {
            return "it has no movie box"
        }
        if top.contains(where: { $0.end > movie.count }) { return "its last box runs past the end" }
        var tables: [ByteBox] = []
        var pending = [moov]
        while let box = pending.popLast() {
            guard let children = try? ByteBox.children(of: movie, in: box.payloadStart..<box.end) else {
                return "its movie box is damaged"
            }
            for child in children {
                if ["trak", "mdia", "minf", "stbl"].contains(child.type.description) { pending.append(child) }
                if child.type == "stco" || child.type == "co64" { tables.append(child) }
            }
        }
        for table in tables {
            let width = table.type == "co64" ? 8 : 4
            guard table.payloadStart + 8 <= table.end else { continue }
            let count = Int(ByteBox.u32(movie, table.payloadStart + 4))
            for index in 0..<min(count, (table.end - table.payloadStart - 8) / width) {
                let offset = ByteBox.unsigned(movie, table.payloadStart + 8 + index * width, width: width) ?? Int.max
                if offset >= movie.count { return "its samples are not there (cut out of the file)" }
            }
        }
        return nil
    }

    // MARK: HEIF

    /// A HEIC's MP4 is in a top-level `mpvd` box, wherever it lies (Google's put it last;
    /// Samsung's One UI 6 put a `sefd` box after it, whose SEF trailer's `MotionPhoto_Data`
    /// entry is a 12-byte pointer to the box, not the video). Older Samsung HEICs append the
    /// trailer, with the MP4 in it, after the last box.
    private static func findInHEIF(_ file: [UInt8]) -> MotionPhoto? {
        if let boxes = try? ByteBox.topLevel(of: file), let box = boxes.first(where: { $0.type == "mpvd" }) {
            return HEIFMotionBoxes(file: file, boxes: boxes, video: box).photo
        }
        if let trailer = SamsungTrailer(file), let entry = trailer.motionEntry {
            return fromSamsung(entry, trailer: trailer, file: file)
        }
        return nil
    }

    /// The motion photo whose video is at `range` (an `mpvd` box's payload), removed from the
    /// still by `splices`; the video checked as every other layout's is.
    static func heifBox(
        _ layout: Layout, video range: Range<Int>, splices: [Splice], problem: String?, file: [UInt8]
    ) -> MotionPhoto {
        var photo = checked(
            MotionPhoto(layout: layout, declaredBytes: range.count, video: range, stillEnd: file.count), file)
        photo.stillEnd = file.count
        photo.splices = splices
        if photo.problem == nil { photo.problem = problem }
        return photo
    }
}
