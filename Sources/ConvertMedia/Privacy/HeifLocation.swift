import ConvertCore
/// HEIC/HEIF/AVIF: the data of the `Exif` and XMP items, found through `meta/iinf` and
/// `meta/iloc` and edited at their length, so no `iloc` offset moves and the coded images stay
/// byte-identical.
enum HeifLocation {
    /// Where an item's bytes are: file ranges, in order.
    private typealias Extents = [Range<Int>]

    static func edit(_ data: [UInt8], path: String) throws(ConvertError) -> LocationStripper.Edit {
        func damaged(_ what: String) -> ConvertError {
            ConvertError(.input, key: "input.corrupt", message: "\(path) is damaged: \(what).", path: path)
        }
        let topLevel: [ByteBox]
        do { topLevel = try ByteBox.topLevel(of: data) } catch { throw damaged(error.description) }
        guard let meta = topLevel.first(where: { $0.type == "meta" }), meta.payloadStart + 4 <= meta.end
        else { throw damaged("it has no 'meta' box") }
        let children: [ByteBox]
        do { children = try ByteBox.children(of: data, in: (meta.payloadStart + 4)..<meta.end) } catch {
            throw damaged(error.description)
        }
        guard let iinf = children.first(where: { $0.type == "iinf" }), let iloc = children.first(where: { $0.type == "iloc" })
        else { throw damaged("its 'meta' box has no item list") }
        let idatStart = children.first(where: { $0.type == "idat" })?.payloadStart
        let kinds = try itemKinds(data, iinf, damaged: damaged)
        let locations = try itemLocations(data, iloc, idatStart: idatStart, damaged: damaged)

        var edit = LocationStripper.Edit()
        for (id, kind) in kinds.sorted(by: { $0.key < $1.key }) {
            guard let extents = locations[id], extents.allSatisfy({ $0.upperBound <= data.count }) else { continue }
            let bytes = extents.flatMap { Array(data[$0]) }
            var cleaned: [UInt8]?
            switch kind {
            case .exif:
                // The item starts with the offset of the TIFF header after these four bytes.
                guard bytes.count >= 4 else { continue }
                let skip = 4 + Int(ByteBox.u32(bytes, 0))
                guard skip < bytes.count, let tiff = LocationStripper.exifWithoutLocation(Array(bytes[skip...])) else { continue }
                cleaned = Array(bytes[..<skip]) + tiff
                if !edit.places.contains("EXIF GPS") { edit.places.append("EXIF GPS") }
            case .xmp:
                cleaned = LocationStripper.xmpWithoutLocation(bytes)
                if cleaned != nil && !edit.places.contains("XMP") { edit.places.append("XMP") }
            }
            guard let cleaned else { continue }
            // Scatter the same-length result back over the item's extents.
            var consumed = 0
            for extent in extents {
                edit.patches.append(.init(offset: extent.lowerBound, bytes: Array(cleaned[consumed..<(consumed + extent.count)])))
                consumed += extent.count
            }
        }
        return edit
    }

    private enum Kind { case exif, xmp }

    /// The Exif and XMP items of `iinf`, by item id.
    private static func itemKinds(
        _ data: [UInt8], _ iinf: ByteBox, damaged: (String) -> ConvertError
    ) throws(ConvertError) -> [Int: Kind] {
        guard iinf.payloadStart + 6 <= iinf.end else { throw damaged("its item list is cut short") }
        let version = data[iinf.payloadStart]
        let entriesStart = iinf.payloadStart + 4 + (version == 0 ? 2 : 4)
        guard entriesStart <= iinf.end else { throw damaged("its item list is cut short") }
        var kinds: [Int: Kind] = [:]
        let entries: [ByteBox]
        do { entries = try ByteBox.children(of: data, in: entriesStart..<iinf.end) } catch {
            throw damaged(error.description)
        }
        for infe in entries where infe.type == "infe" {
            let at = infe.payloadStart
            guard at + 4 <= infe.end, data[at] >= 2 else { continue }
            let idWidth = data[at] == 2 ? 2 : 4
            guard at + 4 + idWidth + 2 + 4 <= infe.end else { continue }
            let id = ByteBox.unsigned(data, at + 4, width: idWidth) ?? 0
            let typeAt = at + 4 + idWidth + 2
            let type = String(decoding: data[typeAt..<(typeAt + 4)], as: UTF8.self)
            if type == "Exif" {
                kinds[id] = .exif
            } else if type == "mime" {
                // item_name NUL, content_type NUL
                var cursor = typeAt + 4
                while cursor < infe.end && data[cursor] != 0 { cursor += 1 }
                cursor += 1
                var typeEnd = cursor
                while typeEnd < infe.end && data[typeEnd] != 0 { typeEnd += 1 }
                guard cursor <= typeEnd else { continue }
                if String(decoding: data[cursor..<typeEnd], as: UTF8.self) == "application/rdf+xml" { kinds[id] = .xmp }
            }
        }
        return kinds
    }

    /// Every item's extents from `iloc` (construction methods 0, file offsets, and 1, `idat`).
    private static func itemLocations(
        _ data: [UInt8], _ iloc: ByteBox, idatStart: Int?, damaged: (String) -> ConvertError
    ) throws(ConvertError) -> [Int: Extents] {
        var cursor = iloc.payloadStart
        guard cursor + 8 <= iloc.end else { throw damaged("its item locations are cut short") }
        let version = data[cursor]
        cursor += 4
        let offsetSize = Int(data[cursor] >> 4), lengthSize = Int(data[cursor] & 0x0F)
        let baseSize = Int(data[cursor + 1] >> 4)
        let indexSize = version == 1 || version == 2 ? Int(data[cursor + 1] & 0x0F) : 0
        cursor += 2
        let countWidth = version < 2 ? 2 : 4
        guard let itemCount = ByteBox.unsigned(data, cursor, width: countWidth) else { throw damaged("its item locations are cut short") }
        cursor += countWidth
        var result: [Int: Extents] = [:]
        for _ in 0..<min(itemCount, 100_000) {
            let idWidth = version < 2 ? 2 : 4
            guard let id = ByteBox.unsigned(data, cursor, width: idWidth) else { throw damaged("its item locations are cut short") }
            cursor += idWidth
            var method = 0
            if version == 1 || version == 2 {
                guard let value = ByteBox.unsigned(data, cursor, width: 2) else { throw damaged("its item locations are cut short") }
                method = value & 0x0F
                cursor += 2
            }
            cursor += 2  // data_reference_index
            guard let base = ByteBox.unsigned(data, cursor, width: baseSize),
                let extentCount = ByteBox.unsigned(data, cursor + baseSize, width: 2)
            else { throw damaged("its item locations are cut short") }
            cursor += baseSize + 2
            var extents: Extents = []
            for _ in 0..<extentCount {
                cursor += indexSize
                guard let offset = ByteBox.unsigned(data, cursor, width: offsetSize),
                    let length = ByteBox.unsigned(data, cursor + offsetSize, width: lengthSize)
                else { throw damaged("its item locations are cut short") }
                cursor += offsetSize + lengthSize
                let origin: Int
                switch method {
                case 0: origin = 0
                case 1:
                    guard let idatStart else { throw damaged("an item refers to a missing 'idat' box") }
                    origin = idatStart
                default: continue  // item-relative data: never used for Exif/XMP
                }
                let (start, overflow) = (origin + base).addingReportingOverflow(offset)
                guard !overflow, length > 0, start <= Int.max - length else { continue }
                extents.append(start..<(start + length))
            }
            guard iloc.end >= cursor else { throw damaged("its item locations are cut short") }
            result[id] = extents
        }
        return result
    }
}
