import ConvertCore

/// HEIC/HEIF/AVIF: the data of the `Exif` and XMP items, found through ``HeifMeta`` (the one item
/// model every HEIF reader shares) and edited at their length, so no `iloc` offset moves and the
/// coded images stay byte-identical.
enum HeifLocation {
    static func edit(_ data: [UInt8], path: String) throws(ConvertError) -> LocationStripper.Edit {
        let meta: HeifMeta
        do { meta = try HeifMeta(source: MemoryByteSource(bytes: data)) } catch { throw .damagedBoxes(path, error) }
        var edit = LocationStripper.Edit()
        let exif = Set(meta.exifItems)
        for id in (meta.exifItems + meta.xmpItems).sorted() {
            // An item whose data lies (partly) outside the file has nothing here to edit.
            guard let ranges = meta.fileRanges(of: id) else { continue }
            let extents = ranges.map { Int($0.lowerBound)..<Int($0.upperBound) }
            let bytes = extents.flatMap { Array(data[$0]) }
            var cleaned: [UInt8]?
            if exif.contains(id) {
                // The item starts with the offset of the TIFF header after these four bytes.
                guard bytes.count >= 4 else { continue }
                let skip = 4 + Int(ByteBox.u32(bytes, 0))
                guard skip < bytes.count, let tiff = LocationStripper.exifWithoutLocation(Array(bytes[skip...])) else {
                    continue
                }
                cleaned = Array(bytes[..<skip]) + tiff
                if !edit.places.contains(.exif) { edit.places.append(.exif) }
            } else {
                cleaned = LocationStripper.xmpWithoutLocation(bytes)
                if cleaned != nil {
                    for kind in XMP.locationKinds(bytes) where !edit.places.contains(kind) { edit.places.append(kind) }
                }
            }
            guard let cleaned else { continue }
            // Scatter the same-length result back over the item's extents.
            var consumed = 0
            for extent in extents {
                edit.patches.append(
                    .init(offset: extent.lowerBound, bytes: Array(cleaned[consumed..<(consumed + extent.count)])))
                consumed += extent.count
            }
        }
        return edit
    }
}
