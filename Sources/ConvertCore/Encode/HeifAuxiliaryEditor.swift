/// Turns an image item of a HEIF (HEIC or AVIF: the boxes are the same, only the coding differs)
/// that libheif wrote into an auxiliary image of the primary: libheif 1.15 has no API to add one
/// (`heif_context_encode_image` makes a top-level image, `heif_context_encode_thumbnail` a
/// thumbnail), so the encoder writes the map as a second image and this edits the `meta` box
/// around it:
///
/// - the item's `infe` gets the hidden flag (it is no picture of its own);
/// - an `auxC` property with the auxiliary type (a gain map's URN) is appended to `ipco` and
///   associated (essential) with the item in `ipma`, rewritten;
/// - an `auxl` reference item → primary is added to `iref` (made when there is none).
///
/// Every coded byte stays; only the `meta` box grows, so every `iloc` file offset past it moves
/// by as many bytes. Returns nil for a layout this editor does not know (the caller then keeps
/// the file without the map and says so).
enum HeifAuxiliaryEditor {
    /// An ISO 21496-1 `tmap` item to add beside the auxiliary image: a derived image of the
    /// primary and the map (`dimg` in that order), with the primary's size, in an `altr` group
    /// with the primary (readers that do not know it show the primary); its payload (a version
    /// byte and the standard's metadata record) in an `mdat` box appended to the file, and `tmap`
    /// among the `ftyp` brands.
    struct ToneMap {
        var record: [UInt8]
        var width: Int
        var height: Int
    }

    /// `file` with `item` made an auxiliary image of type `type` of `primary`, and `toneMap`
    /// added when given.
    static func makingAuxiliary(
        _ file: [UInt8], item: UInt32, of primary: UInt32, type: String, toneMap: ToneMap? = nil
    ) -> [UInt8]? {
        guard let toneMap else { return makingAuxiliary(file, item: item, of: primary, type: type) }
        guard let withMap = makingAuxiliary(file, item: item, of: primary, type: type) else { return nil }
        // The tmap is a second description of the same map: without it the file still has Apple's.
        return addingToneMap(withMap, toneMap, primary: primary, map: item) ?? withMap
    }

    /// `file` with `item` made an auxiliary image of type `type` of `primary`.
    static func makingAuxiliary(_ file: [UInt8], item: UInt32, of primary: UInt32, type: String) -> [UInt8]? {
        guard let top = try? ByteBox.topLevel(of: file), let meta = top.first(where: { $0.type == "meta" }),
            !meta.large,
            let children = try? ByteBox.children(of: file, in: (meta.payloadStart + 4)..<meta.end)
        else { return nil }
        var body: [UInt8] = []
        var sawReferences = false
        for box in children {
            let bytes = Array(file[box.start..<box.end])
            switch box.type {
            case "iinf":
                guard let edited = hidingItem(bytes, item: item) else { return nil }
                body += edited
            case "iref":
                guard let edited = addingReference(bytes, from: item, to: primary) else { return nil }
                body += edited
                sawReferences = true
            case "iprp":
                guard let edited = addingProperty(bytes, item: item, type: type) else { return nil }
                body += edited
            default:
                body += bytes
            }
        }
        if !sawReferences {
            body += ByteBox.box(
                "iref",
                [0, 0, 0, 0]
                    + ByteBox.box(
                        "auxl", ByteBox.bigEndian16(item) + ByteBox.bigEndian16(1) + ByteBox.bigEndian16(primary)))
        }
        let newMeta = ByteBox.box("meta", Array(file[meta.payloadStart..<(meta.payloadStart + 4)]) + body)
        let grown = newMeta.count - (meta.end - meta.start)
        guard var edited = shiftingLocations(newMeta, past: meta.end, by: grown) else { return nil }
        edited = Array(file[..<meta.start]) + edited + Array(file[meta.end...])
        return edited
    }

    /// `file` (its map already auxiliary) with a `tmap` item, see ``ToneMap``. Needs the
    /// version 0 `iloc` and 16-bit item IDs libheif 1.15 writes; nil otherwise.
    private static func addingToneMap(_ file: [UInt8], _ toneMap: ToneMap, primary: UInt32, map: UInt32) -> [UInt8]? {
        guard let top = try? ByteBox.topLevel(of: file), let meta = top.first(where: { $0.type == "meta" }),
            !meta.large,
            let children = try? ByteBox.children(of: file, in: (meta.payloadStart + 4)..<meta.end),
            let iinf = children.first(where: { $0.type == "iinf" }), file[iinf.payloadStart] == 0,
            let iloc = children.first(where: { $0.type == "iloc" }), file[iloc.payloadStart] == 0,
            !children.contains(where: { $0.type == "grpl" }),
            let entries = try? ByteBox.children(of: file, in: (iinf.payloadStart + 6)..<iinf.end)
        else { return nil }
        let ids = entries.filter { $0.type == "infe" }.map { UInt32(ByteBox.u16(file, $0.payloadStart + 4)) }
        guard let highest = ids.max(), highest + 2 < 0xFFFF else { return nil }
        let tmap = highest + 1
        let sizes = (
            offset: Int(file[iloc.payloadStart + 4] >> 4), length: Int(file[iloc.payloadStart + 4] & 15),
            base: Int(file[iloc.payloadStart + 5] >> 4)
        )
        guard sizes.base == 4 || sizes.base == 8, sizes.length == 4 || sizes.length == 8 else { return nil }
        var body: [UInt8] = []
        for box in children {
            let bytes = Array(file[box.start..<box.end])
            switch box.type {
            case "iinf":
                let count = UInt32(ByteBox.u16(bytes, 12)) + 1
                body += ByteBox.box(
                    "iinf",
                    Array(bytes[8..<12]) + ByteBox.bigEndian16(count) + Array(bytes[14...])
                        + ByteBox.box(
                            "infe",
                            [2, 0, 0, 0] + ByteBox.bigEndian16(tmap) + ByteBox.bigEndian16(0) + Array("tmap".utf8) + [0]
                        ))
            case "iref":
                body += ByteBox.box(
                    "iref",
                    Array(bytes[8...])
                        + ByteBox.box(
                            "dimg",
                            ByteBox.bigEndian16(tmap) + ByteBox.bigEndian16(2) + ByteBox.bigEndian16(primary)
                                + ByteBox.bigEndian16(map)))
            case "iprp":
                guard let edited = addingProperty(bytes, newItem: tmap, width: toneMap.width, height: toneMap.height)
                else { return nil }
                body += edited
            case "iloc":
                let count = UInt32(ByteBox.u16(bytes, 14)) + 1
                // The offset is filled in below, once the new meta's size is known.
                let entry =
                    ByteBox.bigEndian16(tmap) + ByteBox.bigEndian16(0) + [UInt8](repeating: 0, count: sizes.base)
                    + ByteBox.bigEndian16(1)
                    + [UInt8](repeating: 0, count: sizes.offset) + width(UInt64(toneMap.record.count), sizes.length)
                body += ByteBox.box(
                    "iloc", Array(bytes[8..<14]) + ByteBox.bigEndian16(count) + Array(bytes[16...]) + entry)
            default:
                body += bytes
            }
        }
        body += ByteBox.box(
            "grpl",
            ByteBox.box(
                "altr",
                [0, 0, 0, 0] + ByteBox.bigEndian32(tmap + 1) + ByteBox.bigEndian32(2) + ByteBox.bigEndian32(tmap)
                    + ByteBox.bigEndian32(primary)))
        var newMeta = ByteBox.box("meta", Array(file[meta.payloadStart..<(meta.payloadStart + 4)]) + body)
        let grown = newMeta.count - (meta.end - meta.start)
        guard var shifted = shiftingLocations(newMeta, past: meta.end, by: grown) else { return nil }
        // The new entry is the iloc's last; its base offset points into the appended mdat.
        guard let newChildren = try? ByteBox.children(of: shifted, in: 12..<shifted.count),
            let newIloc = newChildren.first(where: { $0.type == "iloc" })
        else { return nil }
        let recordAt = file.count + grown + 8
        let baseAt = newIloc.end - (sizes.length + sizes.offset + 2 + sizes.base)
        guard sizes.base == 8 || recordAt <= Int(UInt32.max) else { return nil }
        shifted.replaceSubrange(baseAt..<(baseAt + sizes.base), with: width(UInt64(recordAt), sizes.base))
        newMeta = shifted
        return addingBrand(
            "tmap",
            to: Array(file[..<meta.start]) + newMeta + Array(file[meta.end...]) + ByteBox.box("mdat", toneMap.record))
    }

    /// `file` with `brand` among its `ftyp` box's compatible brands (libavif looks for a gain
    /// map only in a file that lists `tmap`); unchanged when the brand is there or the file does
    /// not start with `ftyp`. The box grows by four bytes, so every `iloc` file offset moves too.
    private static func addingBrand(_ brand: String, to file: [UInt8]) -> [UInt8] {
        guard let top = try? ByteBox.topLevel(of: file), let ftyp = top.first, ftyp.type == "ftyp", !ftyp.large,
            ftyp.end - ftyp.payloadStart >= 8, (ftyp.end - ftyp.payloadStart) % 4 == 0,
            let meta = top.first(where: { $0.type == "meta" }), !meta.large
        else { return file }
        let code = Array(brand.utf8)
        let brands = stride(from: ftyp.payloadStart + 8, to: ftyp.end, by: 4).map { Array(file[$0..<($0 + 4)]) }
        guard !brands.contains(code),
            let shifted = shiftingLocations(Array(file[meta.start..<meta.end]), past: 0, by: 4)
        else { return file }
        let newFtyp = ByteBox.box("ftyp", Array(file[ftyp.payloadStart..<ftyp.end]) + code)
        return newFtyp + Array(file[ftyp.end..<meta.start]) + shifted + Array(file[meta.end...])
    }

    /// `iprp` with an `ispe` of `width`×`height` appended to `ipco` and associated with the new
    /// item `newItem` (the highest ID, so its `ipma` entry goes last).
    private static func addingProperty(_ iprp: [UInt8], newItem: UInt32, width: Int, height: Int) -> [UInt8]? {
        guard let children = try? ByteBox.children(of: iprp, in: 8..<iprp.count),
            let ipco = children.first(where: { $0.type == "ipco" }),
            let count = try? ByteBox.children(of: iprp, in: ipco.payloadStart..<ipco.end).count
        else { return nil }
        let ispe = ByteBox.box(
            "ispe", [0, 0, 0, 0] + ByteBox.bigEndian32(UInt32(width)) + ByteBox.bigEndian32(UInt32(height)))
        let index = count + 1
        var body: [UInt8] = []
        for child in children {
            let bytes = Array(iprp[child.start..<child.end])
            switch child.type {
            case "ipco":
                body += ByteBox.box("ipco", Array(iprp[child.payloadStart..<child.end]) + ispe)
            case "ipma":
                guard bytes.count >= 16, bytes[8] == 0 else { return nil }
                let wide = bytes[11] & 1 == 1
                guard wide || index <= 0x7F else { return nil }
                let entries = ByteBox.u32(bytes, 12) + 1
                let link: [UInt8] = wide ? ByteBox.bigEndian16(UInt32(index)) : [UInt8(index)]
                body += ByteBox.box(
                    "ipma",
                    Array(bytes[8..<12]) + ByteBox.bigEndian32(entries) + Array(bytes[16...])
                        + ByteBox.bigEndian16(newItem) + [1] + link)
            default:
                body += bytes
            }
        }
        return ByteBox.box("iprp", body)
    }

    // MARK: The boxes

    /// `iinf` with the hidden flag (bit 0 of an `infe`'s flags, version 2 or 3) set on `item`.
    private static func hidingItem(_ iinf: [UInt8], item: UInt32) -> [UInt8]? {
        guard iinf.count >= 14 else { return nil }
        var out = iinf
        let entriesStart = 8 + 4 + (iinf[8] == 0 ? 2 : 4)
        guard let entries = try? ByteBox.children(of: iinf, in: entriesStart..<iinf.count) else { return nil }
        for entry in entries where entry.type == "infe" && entry.end - entry.payloadStart >= 8 {
            let version = iinf[entry.payloadStart]
            guard version >= 2 else { continue }
            let id =
                version == 2
                ? UInt32(ByteBox.u16(iinf, entry.payloadStart + 4)) : ByteBox.u32(iinf, entry.payloadStart + 4)
            guard id == item else { continue }
            out[entry.payloadStart + 3] |= 1
            return out
        }
        return nil
    }

    /// `iref` with an `auxl` reference `from` → `to` appended.
    private static func addingReference(_ iref: [UInt8], from: UInt32, to: UInt32) -> [UInt8]? {
        guard iref.count >= 12 else { return nil }
        let wide = iref[8] != 0
        func id(_ value: UInt32) -> [UInt8] { wide ? ByteBox.bigEndian32(value) : ByteBox.bigEndian16(value) }
        return ByteBox.box("iref", Array(iref[8...]) + ByteBox.box("auxl", id(from) + ByteBox.bigEndian16(1) + id(to)))
    }

    /// `iprp` with an `auxC` property naming `type` appended to `ipco` and associated with `item`.
    private static func addingProperty(_ iprp: [UInt8], item: UInt32, type: String) -> [UInt8]? {
        addingProperty(iprp, ByteBox.box("auxC", [0, 0, 0, 0] + Array(type.utf8) + [0]), to: item, essential: true)
    }

    /// `iprp` with `property` (a whole box) appended to `ipco` and associated with `item`.
    static func addingProperty(_ iprp: [UInt8], _ property: [UInt8], to item: UInt32, essential: Bool) -> [UInt8]? {
        guard let children = try? ByteBox.children(of: iprp, in: 8..<iprp.count),
            let ipco = children.first(where: { $0.type == "ipco" }),
            let count = try? ByteBox.children(of: iprp, in: ipco.payloadStart..<ipco.end).count
        else { return nil }
        let index = count + 1
        var body: [UInt8] = []
        for child in children {
            switch child.type {
            case "ipco":
                body += ByteBox.box("ipco", Array(iprp[child.payloadStart..<child.end]) + property)
            case "ipma":
                guard
                    let edited = associating(
                        Array(iprp[child.start..<child.end]), item: item, index: index, essential: essential)
                else {
                    return nil
                }
                body += edited
            default:
                body += Array(iprp[child.start..<child.end])
            }
        }
        return ByteBox.box("iprp", body)
    }

    /// `ipma` rewritten with property `index` (`essential` or not) added to `item`'s associations;
    /// with 15-bit indices when the new one does not fit in 7 bits.
    private static func associating(_ ipma: [UInt8], item: UInt32, index: Int, essential: Bool) -> [UInt8]? {
        guard ipma.count >= 16 else { return nil }
        let version = ipma[8]
        let wideIndex = ipma[11] & 1 == 1
        let count = Int(ByteBox.u32(ipma, 12))
        var at = 16
        var entries: [(item: UInt32, links: [UInt16])] = []
        for _ in 0..<count {
            guard at + (version == 0 ? 3 : 5) <= ipma.count else { return nil }
            let id = version == 0 ? UInt32(ByteBox.u16(ipma, at)) : ByteBox.u32(ipma, at)
            at += version == 0 ? 2 : 4
            let links = Int(ipma[at])
            at += 1
            guard at + links * (wideIndex ? 2 : 1) <= ipma.count else { return nil }
            var raw: [UInt16] = []
            for _ in 0..<links {
                if wideIndex {
                    raw.append(ByteBox.u16(ipma, at))
                    at += 2
                } else {
                    raw.append(UInt16(ipma[at] & 0x80) << 8 | UInt16(ipma[at] & 0x7F))
                    at += 1
                }
            }
            entries.append((id, raw))
        }
        guard let position = entries.firstIndex(where: { $0.item == item }), index < 0x8000,
            entries[position].links.count < 255
        else { return nil }
        entries[position].links.append((essential ? 0x8000 : 0) | UInt16(index))
        let wide = wideIndex || index > 0x7F
        var payload = ByteBox.bigEndian32(UInt32(entries.count))
        for entry in entries {
            payload += version == 0 ? ByteBox.bigEndian16(entry.item) : ByteBox.bigEndian32(entry.item)
            payload.append(UInt8(entry.links.count))
            for link in entry.links {
                payload += wide ? ByteBox.bigEndian16(UInt32(link)) : [UInt8(link >> 8 & 0x80) | UInt8(link & 0x7F)]
            }
        }
        let flags = UInt32(ipma[9]) << 16 | UInt32(ipma[10]) << 8 | UInt32(ipma[11]) | (wide ? 1 : 0)
        return ByteBox.box("ipma", ByteBox.bigEndian32(UInt32(version) << 24 | flags) + payload)
    }

    /// `meta` (a whole box) with every `iloc` file offset (construction method 0) at or past
    /// `end` (the old end of `meta`) moved by `delta` bytes.
    static func shiftingLocations(_ meta: [UInt8], past end: Int, by delta: Int) -> [UInt8]? {
        guard let children = try? ByteBox.children(of: meta, in: 12..<meta.count),
            let iloc = children.first(where: { $0.type == "iloc" }), iloc.end - iloc.payloadStart >= 8
        else { return nil }
        var out = meta
        let version = meta[iloc.payloadStart]
        var at = iloc.payloadStart + 4
        let offsetSize = Int(meta[at] >> 4)
        let lengthSize = Int(meta[at] & 15)
        let baseSize = Int(meta[at + 1] >> 4)
        let indexSize = version >= 1 ? Int(meta[at + 1] & 15) : 0
        at += 2
        guard let count = ByteBox.unsigned(meta, at, width: version < 2 ? 2 : 4) else { return nil }
        at += version < 2 ? 2 : 4
        func shift(_ position: Int, width: Int) -> Bool {
            guard width > 0 else { return true }
            guard let value = ByteBox.unsigned(out, position, width: width) else { return false }
            guard value >= end else { return true }
            let moved = UInt64(value + delta)
            guard width == 8 || moved <= UInt64(UInt32.max) else { return false }
            for byte in 0..<width {
                out[position + byte] = UInt8(truncatingIfNeeded: moved >> (8 * UInt64(width - 1 - byte)))
            }
            return true
        }
        for _ in 0..<count {
            at += version < 2 ? 2 : 4
            var method = 0
            if version >= 1 {
                guard at + 2 <= iloc.end else { return nil }
                method = Int(meta[at + 1] & 15)
                at += 2
            }
            at += 2
            let baseAt = at
            guard let base = ByteBox.unsigned(meta, at, width: baseSize) else { return nil }
            at += baseSize
            guard let extents = ByteBox.unsigned(meta, at, width: 2) else { return nil }
            at += 2
            if method == 0, baseSize > 0, base > 0, !shift(baseAt, width: baseSize) { return nil }
            for _ in 0..<extents {
                at += indexSize
                if method == 0, baseSize == 0 || base == 0, !shift(at, width: offsetSize) { return nil }
                at += offsetSize + lengthSize
                guard at <= iloc.end else { return nil }
            }
        }
        return out
    }

    // MARK: Writing

    private static func width(_ value: UInt64, _ bytes: Int) -> [UInt8] {
        (0..<bytes).map { UInt8(truncatingIfNeeded: value >> (8 * UInt64(bytes - 1 - $0))) }
    }
}
