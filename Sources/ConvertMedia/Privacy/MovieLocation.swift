import ConvertCore
internal import FFmpegLayer

/// MP4/MOV: location boxes cut out of the movie box, which keeps its size through a `free` box
/// added at its end, so every chunk offset into `mdat` stays valid and every packet identical.
enum MovieLocation {
    /// Box types that are containers of the metadata edited here.
    private static let containers: Set<FourCC> = ["moov", "trak", "udta", "meta"]
    /// `udta` children that hold a location.
    private static let locationBoxes: Set<FourCC> = ["\u{A9}xyz", "loci"]

    static func edit(path: String) throws(ConvertError) -> LocationStripper.Edit {
        try edit(source: FileByteSource(path: path), path: path)
    }

    /// The edit of the MP4 in `source` (a whole file, or the MP4 inside a motion photo), its
    /// patch offsets counted from the start of `source`.
    static func edit(source: some ByteSource, path: String) throws(ConvertError) -> LocationStripper.Edit {
        let topLevel: [BoxHeader]
        // Top-level headers only: `mdat` is never read.
        do { topLevel = try BoxReader(source: source).children(of: nil, depth: 0) } catch {
            throw ConvertError.damagedBoxes(path, error)
        }
        guard let box = topLevel.first(where: { $0.type == "moov" && !$0.isTruncated }) else {
            throw ConvertError(code: .inputTruncated, message: "\(path) has no movie box ('moov').", path: path)
        }
        guard box.size <= 256 << 20 else {
            throw ConvertError(code: .inputCorrupt, message: "\(path) has an implausibly large movie box.", path: path)
        }
        let moov = (start: Int(box.offset), size: Int(box.size))
        var bytes = try read(source, at: UInt64(moov.start), count: moov.size, path: path)
        guard bytes.count == moov.size else {
            throw ConvertError(code: .inputTruncated, message: "\(path) is cut short inside its movie box.", path: path)
        }
        var edit = LocationStripper.Edit()
        // One removal per pass, re-walking after each: boxes move as earlier ones are cut. The
        // bound stops a hostile file from looping; a real one has a handful of location boxes.
        do {
            for _ in 0..<256 {
                guard let root = try ByteBox.children(of: bytes, in: 0..<bytes.count).first,
                    let (target, ancestors, place) = try findRemovable(in: bytes, box: root, ancestors: [])
                else { break }
                remove(target, ancestors: ancestors, root: root, from: &bytes)
                if !edit.places.contains(place) { edit.places.append(place) }
            }
        } catch {
            throw ConvertError.damagedBoxes(path, error)
        }
        if !edit.places.isEmpty { edit.patches.append(.init(offset: moov.start, bytes: bytes)) }
        return edit
    }

    private static func read(_ source: some ByteSource, at offset: UInt64, count: Int, path: String)
        throws(ConvertError) -> [UInt8]
    {
        do { return try source.read(at: offset, count: count) } catch {
            throw ConvertError(
                code: .inputUnreadable, message: "\(path) cannot be read.", path: path,
                underlying: error.description)
        }
    }

    /// The first box under `box` that records a location, with its containers (outermost first,
    /// `box` included) and a name for where it was.
    private static func findRemovable(
        in bytes: [UInt8], box: ByteBox, ancestors: [ByteBox]
    ) throws(BoxError) -> (ByteBox, [ByteBox], LocationSource)? {
        guard ancestors.count < 16, containers.contains(box.type) else { return nil }
        let chain = ancestors + [box]
        var payload = box.payloadStart
        // An MP4 `meta` is a full box (version and flags first); a QuickTime one is not, and
        // starts directly with its `hdlr` box, whose size is never zero.
        if box.type == "meta", payload + 4 <= box.end, ByteBox.u32(bytes, payload) == 0 { payload += 4 }
        let children = try ByteBox.children(of: bytes, in: payload..<box.end)
        if box.type == "udta" {
            for child in children {
                if locationBoxes.contains(child.type) { return (child, chain, .container) }
                if child.type == "XMP_", XMP.hasLocation(Array(bytes[child.payloadStart..<child.end])) {
                    return (child, chain, .xmp)
                }
            }
        }
        if box.type == "meta", let ilst = children.first(where: { $0.type == "ilst" }) {
            let keys = children.first(where: { $0.type == "keys" }).map { keyNames(bytes, $0) } ?? [:]
            for item in try ByteBox.children(of: bytes, in: ilst.payloadStart..<ilst.end) {
                let index = Int(ByteBox.u32(bytes, item.start + 4))
                if item.type == "\u{A9}xyz" || keys[index].map(Metadata.isLocation) == true {
                    return (item, chain + [ilst], .container)
                }
            }
        }
        for child in children {
            if let found = try findRemovable(in: bytes, box: child, ancestors: chain) { return found }
        }
        return nil
    }

    /// The names of a QuickTime `keys` box, by their 1-based index.
    private static func keyNames(_ bytes: [UInt8], _ keys: ByteBox) -> [Int: String] {
        var names: [Int: String] = [:]
        var cursor = keys.payloadStart + 8
        var index = 1
        while cursor + 8 <= keys.end, index <= 10_000 {
            let size = Int(ByteBox.u32(bytes, cursor))
            guard size >= 8, cursor + size <= keys.end else { break }
            names[index] = String(decoding: bytes[(cursor + 8)..<(cursor + size)], as: UTF8.self)
            cursor += size
            index += 1
        }
        return names
    }

    /// Cuts `target` out: every container between the movie box and it shrinks by its size, and a
    /// `free` box of that size is added at the end of the movie box, whose size stays the same.
    private static func remove(_ target: ByteBox, ancestors: [ByteBox], root: ByteBox, from bytes: inout [UInt8]) {
        let removed = target.end - target.start
        for ancestor in ancestors where ancestor.start != root.start {
            if ancestor.large {
                let size = ByteBox.u64(bytes, ancestor.start + 8) - UInt64(removed)
                for index in 0..<8 {
                    bytes[ancestor.start + 8 + index] = UInt8((size >> (8 * UInt64(7 - index))) & 0xFF)
                }
            } else if ByteBox.u32(bytes, ancestor.start) != 0 {
                let size = ByteBox.u32(bytes, ancestor.start) - UInt32(removed)
                for index in 0..<4 { bytes[ancestor.start + index] = UInt8((size >> (8 * UInt32(3 - index))) & 0xFF) }
            }
        }
        bytes.removeSubrange(target.start..<target.end)
        let free: [UInt8] =
            [
                UInt8((removed >> 24) & 0xFF), UInt8((removed >> 16) & 0xFF), UInt8((removed >> 8) & 0xFF),
                UInt8(removed & 0xFF),
            ] + Array("free".utf8) + [UInt8](repeating: 0, count: removed - 8)
        bytes.insert(contentsOf: free, at: root.end - removed)
    }
}
