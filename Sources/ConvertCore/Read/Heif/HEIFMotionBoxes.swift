/// The motion part of a HEIC whose MP4 is in a top-level `mpvd` box, and how to take it out:
/// the `mpvd` box removed, and a `sefd` box (Samsung's SEF trailer) rebuilt without its
/// `MotionPhoto_` entries (dropped when nothing else is left in it). Every other byte stays.
///
/// Removing a box moves everything after it, so the box is removed only when no item's data
/// lies after it (the `iloc` offsets would point at the wrong bytes); Google and Samsung both
/// write it after the image data.
struct HEIFMotionBoxes {
    /// The motion photo, its splices included.
    let photo: MotionPhoto

    init(file: [UInt8], boxes: [ByteBox], video box: ByteBox) {
        let video = box.payloadStart..<box.end
        let sefd = boxes.last(where: { $0.type == "sefd" })
        let trailer = sefd.flatMap { SamsungTrailer(file, end: $0.end) }
        let layout: MotionPhoto.Layout = trailer?.motionEntry == nil ? .heifBox : .samsungHEIF
        guard Self.itemDataEnd(file) <= box.start else {
            photo = MotionPhoto.heifBox(
                layout, video: video, splices: [],
                problem: "the photo's data lies after the video, so the video can be extracted but not removed",
                file: file)
            return
        }
        var splices = [MotionPhoto.Splice(range: box.start..<box.end, replacement: [])]
        if let sefd, let trailer, let edit = Self.trailerEdit(file, sefd, trailer) {
            splices.append(edit)
        }
        photo = MotionPhoto.heifBox(layout, video: video, splices: splices, problem: nil, file: file)
    }

    /// The `sefd` box without its motion entries: rebuilt from the others, or removed; nil
    /// when it holds no readable trailer or no motion entry.
    private static func trailerEdit(_ file: [UInt8], _ sefd: ByteBox, _ trailer: SamsungTrailer) -> MotionPhoto.Splice?
    {
        guard !sefd.large, trailer.entries.allSatisfy({ $0.data.lowerBound >= sefd.payloadStart }),
            trailer.entries.contains(where: \.isMotion)
        else { return nil }
        guard let rebuilt = trailer.rebuilt(from: file, keeping: { !$0.isMotion }) else {
            return MotionPhoto.Splice(range: sefd.start..<sefd.end, replacement: [])
        }
        let size = rebuilt.count + 8
        let header =
            [
                UInt8(truncatingIfNeeded: size >> 24), UInt8(truncatingIfNeeded: size >> 16),
                UInt8(truncatingIfNeeded: size >> 8), UInt8(truncatingIfNeeded: size),
            ] + Array("sefd".utf8)
        return MotionPhoto.Splice(range: sefd.start..<sefd.end, replacement: header + rebuilt)
    }

    /// Where the last byte any item's data occupies ends (`idat` items count as their `meta`
    /// box); the end of the file when the items cannot be read, so nothing is moved.
    private static func itemDataEnd(_ file: [UInt8]) -> Int {
        guard let meta = try? HeifMeta(source: MemoryByteSource(bytes: file)) else { return file.count }
        var end = 0
        for id in meta.locations.keys {
            guard let ranges = meta.fileRanges(of: id) else { return file.count }
            for range in ranges { end = max(end, Int(range.upperBound)) }
        }
        return end
    }
}
