/// A HEIF file as offconvert reads it itself, on ``HeifMeta``: which items are images, which
/// are the top-level ones, and for an image its size, transforms, colour, bit depth, auxiliary
/// images, thumbnails and metadata (EXIF, XMP).
///
/// This is how HEVC-coded HEIFs are read (see ``isHEVC(_:)``); libheif 1.15 is left the rest (AV1,
/// derived kinds this reader does not assemble) and refuses iOS 18's files, which add a `tmap`
/// gain-map item, metadata linked to it and auxiliary images of two images. Items and properties
/// it does not know are kept out of the way, never a reason to refuse the file.
package struct HeifFile: Sendable {
    /// The item model the answers are read from.
    package let meta: HeifMeta
    /// The primary item.
    let primaryID: UInt32

    /// The largest metadata item read (an iPhone's EXIF is a few KB; XMP tens of KB).
    private static let maximumMetadataBytes = 16 << 20
    /// Item types that count as images, as libheif 1.15 counts them (so `info` reports the same
    /// image and thumbnail counts); the rest are metadata, `tmap` gain-map recipes, JPEG-coded
    /// thumbnails and other items this reader leaves alone.
    private static let imageTypes: Set<FourCC> = ["hvc1", "grid", "iden", "iovl", "av01"]
    /// The `auxC` types of an alpha image.
    static let alphaTypes: Set<String> = [
        "urn:mpeg:avc:2015:auxid:1", "urn:mpeg:hevc:2015:auxid:1", "urn:mpeg:mpegB:cicp:systems:auxiliary:alpha",
    ]
    private static let depthTypes: Set<String> = [
        "urn:mpeg:hevc:2015:auxid:2", "urn:mpeg:mpegB:cicp:systems:auxiliary:depth",
    ]

    /// Reads the item structure of the file at `path`. Nil when its boxes are not a HEIF item
    /// structure this reader follows (libheif then judges the file); throws when the file cannot
    /// be read, or is over one of ``HeifMeta/Limits`` (named in the message).
    package static func open(path: String) throws(ConvertError) -> HeifFile? {
        let source = try FileByteSource(path: path)
        let meta: HeifMeta
        do { meta = try HeifMeta(source: source) } catch {
            try refuse(error, path: path)
            return nil
        }
        return try HeifFile(meta: meta, path: path)
    }

    /// The file `meta` describes; nil when it has no primary item or no readable property table
    /// (libheif then judges it); throws for a table over one of ``HeifMeta/Limits``.
    package init?(meta: HeifMeta, path: String) throws(ConvertError) {
        if let damage = meta.propertyDamage { try Self.refuse(damage, path: path) }
        guard let primary = meta.primaryID, meta.propertyDamage == nil else { return nil }
        self.meta = meta
        self.primaryID = primary
    }

    /// Throws the error a box problem is to the user: an item table over a limit, or a failed
    /// read; other damage is left to libheif.
    package static func refuse(_ error: BoxError, path: String) throws(ConvertError) {
        switch error {
        case .overLimit:
            throw ConvertError(
                code: .inputLimit, message: "\(path) is not read: \(error.description).", path: path,
                underlying: error.description)
        case .io:
            throw ConvertError(code: .inputUnreadable, message: "\(path) cannot be read.", path: path)
        default:
            return
        }
    }

    /// Whether every item's data (pictures, tiles, EXIF, XMP) lies inside the file: a file cut
    /// short keeps its item table at the front and loses what its `mdat` held last, which only
    /// reading each item would otherwise notice (and a location there would go unseen).
    var isStoredWhole: Bool {
        let size = meta.source.size
        return meta.locations.values.allSatisfy { location in
            location.inIdat
                || location.extents.allSatisfy { extent in
                    let (end, overflow) = extent.offset.addingReportingOverflow(extent.length)
                    return !overflow && end <= size
                }
        }
    }

    /// Whether item `id` is an image coded in HEVC: an `hvc1` item, or a grid of them.
    func isHEVC(_ id: UInt32) -> Bool {
        switch meta.types[id] {
        case "hvc1": return true
        case "grid":
            let tiles = meta.derivedFrom[id] ?? []
            return !tiles.isEmpty && tiles.allSatisfy { meta.types[$0] == "hvc1" }
        default: return false
        }
    }

    /// Items that refer to `id` with a reference of `type` (`thmb`, `auxl`, `cdsc`): the items
    /// whose own reference lists name it, in file order.
    private func referrers(to id: UInt32, type: FourCC) -> [UInt32] {
        guard let byItem = meta.references[type] else { return [] }
        return meta.itemIDs.filter { byItem[$0]?.contains(id) == true }
    }

    /// The images a viewer lists: image items that are not hidden, not thumbnails or auxiliary
    /// images, and not the inputs of a derived image, in file order.
    var topLevelImageIDs: [UInt32] {
        let references = meta.references
        let excluded = Set((references["thmb"] ?? [:]).keys).union((references["auxl"] ?? [:]).keys)
            .union(Self.derivedImageInputs(meta))
        return meta.itemIDs.filter { id in
            meta.types[id].map(Self.imageTypes.contains) == true && !meta.hidden.contains(id) && !excluded.contains(id)
        }
    }

    /// The items that are inputs of a derived image (a grid's tiles, what an `iden` or `iovl`
    /// shows): parts of a picture, not pictures. libheif (1.15, and 1.23 still) lists a grid's
    /// tiles as top-level images when the file does not mark them hidden (libavif's grids), so a
    /// 1×5 grid would be six images; libavif shows one.
    package static func derivedImageInputs(_ meta: HeifMeta) -> Set<UInt32> {
        Set(
            meta.itemIDs.filter { ["grid", "iden", "iovl"].contains(meta.types[$0]) }.flatMap {
                meta.derivedFrom[$0] ?? []
            })
    }

    /// The alpha images of `id` (auxiliary images of an alpha type).
    package func alphaImages(of id: UInt32) -> [UInt32] {
        auxiliaryImages(of: id).filter { Self.alphaTypes.contains($0.type) }.map(\.id)
    }

    private func properties(_ id: UInt32) -> [HeifMeta.Property] {
        (meta.properties[id] ?? []).map(\.property)
    }

    /// The first tile of a grid (where its coded properties are), or the item itself.
    private func codedItem(_ id: UInt32) -> UInt32 {
        meta.types[id] == "grid" ? (meta.derivedFrom[id]?.first ?? id) : id
    }

    /// Width and height as coded (`ispe`), before any transform.
    func codedSize(_ id: UInt32) -> (width: Int, height: Int)? {
        for case .ispe(let width, let height) in properties(id) { return (width, height) }
        return nil
    }

    /// The transforms of item `id` in the order they apply.
    func transforms(_ id: UInt32) -> [YCbCr420Image.Transform] {
        properties(id).compactMap { property in
            switch property {
            case .irot(let turns): .rotate(quarterTurns: turns)
            case .imir(let topToBottom): .mirror(topToBottom: topToBottom)
            default: nil
            }
        }
    }

    /// The size as displayed: the coded size, cropped by `clap` and turned by each quarter turn,
    /// in property order.
    func displayedSize(_ id: UInt32) -> (width: Int, height: Int)? {
        guard var size = codedSize(id) else { return nil }
        for property in properties(id) {
            switch property {
            case .clap(let width, let height) where width > 0 && height > 0:
                size = (min(width, size.width), min(height, size.height))
            case .irot(let turns) where turns % 2 == 1: size = (size.height, size.width)
            default: break
            }
        }
        return size
    }

    /// The ICC profile of item `id` (a grid without its own takes its first tile's).
    func iccProfile(_ id: UInt32) -> [UInt8]? {
        for item in [id, codedItem(id)] {
            for case .icc(let bytes) in properties(item) where !bytes.isEmpty { return bytes }
        }
        return nil
    }

    /// The nclx colour description of item `id` (a grid without its own takes its first tile's).
    package func nclx(_ id: UInt32) -> NCLX? {
        for item in [id, codedItem(id)] {
            for case .nclx(let nclx) in properties(item) { return nclx }
        }
        return nil
    }

    /// The HEVC configuration of item `id` (its first tile's, for a grid).
    func hevcConfiguration(_ id: UInt32) -> HEVCConfiguration? {
        for case .hvcC(let record) in properties(codedItem(id)) { return HEVCConfiguration(record) }
        return nil
    }

    /// Luma bits per sample: the HEVC configuration's, else `pixi`'s.
    package func bitDepth(_ id: UInt32) -> Int? {
        if let configuration = hevcConfiguration(id) { return configuration.lumaBitDepth }
        for item in [id, codedItem(id)] {
            for case .pixi(let bits) in properties(item) where !bits.isEmpty { return bits[0] }
        }
        return nil
    }

    /// The auxiliary images of `id` with their types (URNs).
    package func auxiliaryImages(of id: UInt32) -> [(id: UInt32, type: String)] {
        referrers(to: id, type: "auxl").map { aux in
            var type = ""
            for case .auxC(let urn) in properties(aux) { type = urn }
            return (aux, type)
        }
    }

    /// Whether `id` has an alpha plane (an auxiliary image of alpha type).
    package func hasAlpha(_ id: UInt32) -> Bool {
        auxiliaryImages(of: id).contains { Self.alphaTypes.contains($0.type) }
    }

    /// How many depth images `id` has.
    func depthImageCount(_ id: UInt32) -> Int {
        auxiliaryImages(of: id).filter { Self.depthTypes.contains($0.type) }.count
    }

    /// The types of `id`'s auxiliary images other than alpha and depth (HDR gain maps, ...).
    func otherAuxiliaryTypes(_ id: UInt32) -> [String] {
        auxiliaryImages(of: id).map(\.type).filter { !Self.alphaTypes.contains($0) && !Self.depthTypes.contains($0) }
    }

    /// The thumbnails of `id`.
    package func thumbnails(of id: UInt32) -> [UInt32] {
        referrers(to: id, type: "thmb").filter { meta.types[$0].map(Self.imageTypes.contains) == true }
    }

    /// The EXIF TIFF stream of `id` (its Exif item's offset header removed), if it has one.
    package func exif(_ id: UInt32) -> [UInt8]? {
        let items = Set(meta.exifItems)
        for item in referrers(to: id, type: "cdsc") where items.contains(item) {
            guard let block = try? meta.data(of: item, limit: Self.maximumMetadataBytes), block.count > 4 else {
                continue
            }
            let offset = Int(ByteCursor.u32(block, at: 0))
            guard offset < block.count - 4 else { continue }
            return Array(block[(4 + offset)...])
        }
        return nil
    }

    /// The XMP packet of `id`, if it has one.
    package func xmp(_ id: UInt32) -> [UInt8]? {
        let items = Set(meta.xmpItems)
        for item in referrers(to: id, type: "cdsc") where items.contains(item) {
            if let packet = try? meta.data(of: item, limit: Self.maximumMetadataBytes) { return packet }
        }
        return nil
    }
}
