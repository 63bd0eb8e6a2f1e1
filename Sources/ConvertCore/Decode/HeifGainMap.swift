/// An HDR gain map found in a HEIC, decoded: the Apple auxiliary image
/// (`urn:com:apple:photo:2020:aux:hdrgainmap`) or Samsung's
/// (`urn:com:samsung:photo:2024:aux:hdrgainmap`) as an 8-bit plane turned with the primary, and
/// its parameters in Ultra HDR's terms.
package struct HeifGainMap: Sendable {
    /// The URN of Apple's gain-map auxiliary image.
    fileprivate static let appleType = HeifGainMapType.apple
    /// The most samples a gain map may have (Apple's is a quarter of the photo).
    private static let maximumItemBytes = 64 << 20

    /// The map in Ultra HDR's logarithmic coding, turned and mirrored as the primary is displayed.
    package var plane: GrayPlane
    package var metadata: GainMapMetadata
    /// Who described the map, for the result's note ("Apple").
    package var origin: String
    /// Whether the source's map had three colour channels, made one here (``AVIFGainMapImage``).
    var channelsCombined = false
    /// The HDR transfer ("PQ", "HLG") of a picture the map was computed from (``HDRStill``),
    /// nil for a map read from the file.
    var computedFrom: String? = nil
    /// The auxiliary type a HEIC output gives the map (``HeifGainMapType``).
    var auxiliaryType: String = HeifGainMapType.apple
    /// For a HEIC output of Apple's map: a MakerNote with only the headroom tags, for when the
    /// metadata policy removes the source's (Apple's reader takes the headroom from there).
    var appleMakerNote: [UInt8]?
    /// For a HEIC output of Apple's map that an iOS 18 `tmap` item also describes: that item's
    /// payload (version byte and ISO 21496-1 record), which the output's own `tmap` carries.
    var isoRecord: [UInt8]?

    /// The result's note: "HDR gain map kept (Apple, headroom 1.8 stops)", or "HDR kept as a
    /// gain map computed from the PQ picture (headroom 2.3 stops)".
    var keptNote: String {
        let stops = (metadata.alternateHeadroomStops * 10).rounded() / 10
        if let computedFrom {
            return "HDR kept as a gain map computed from the \(computedFrom) picture (headroom \(stops) stops)"
        }
        let combined = channelsCombined ? "; its three colour channels made one" : ""
        return "HDR gain map kept (\(origin), headroom \(stops) stops\(combined))"
    }

    /// What a HEIC's gain map is, before anything is decoded.
    package enum Presence: Equatable {
        case none
        /// An Apple gain map whose headroom is `stops`.
        case apple(item: UInt32, stops: Double)
        /// A gain map that an ISO 21496-1 `tmap` item describes (iOS 18 writes one beside
        /// Apple's own description of the same map): its values are already logarithmic.
        case iso(item: UInt32, metadata: GainMapMetadata)
        /// A Samsung gain map (`urn:com:samsung:photo:2024:aux:hdrgainmap`), described by Ultra
        /// HDR's `hdrgm:` XMP (on the primary image or on the map's own item) or by a `tmap`
        /// item: its values are logarithmic.
        case samsung(item: UInt32, metadata: GainMapMetadata)
        /// A gain map that cannot be kept, and why.
        case unusable(String)
    }

    /// Whether `file`'s primary image has a gain map with usable parameters: Samsung's by its
    /// own description, then an ISO 21496-1 `tmap` item's (they are the standard's, and need no
    /// table), else Apple's MakerNote.
    package static func presence(in file: HeifFile) -> Presence {
        let primary = file.primaryID
        if let samsung = samsungPresence(in: file) { return samsung }
        if let iso = isoPresence(in: file) { return iso }
        guard let aux = file.auxiliaryImages(of: primary).first(where: { $0.type == appleType }) else {
            // libavif's older files mark a map with the ISO URN but no tmap item to describe it.
            let iso = file.auxiliaryImages(of: primary).contains { $0.type == HeifGainMapType.iso }
            return iso ? .unusable("HDR not kept: no tmap item states the ISO 21496-1 gain map's parameters") : .none
        }
        guard let exif = file.exif(primary), let stops = AppleHeadroom.stops(exif: exif) else {
            return .unusable("HDR not kept: the Apple gain map has no headroom in the MakerNote")
        }
        guard stops > 0 else { return .unusable("HDR not kept: the Apple gain map has no headroom (0 stops)") }
        return .apple(item: aux.id, stops: stops)
    }

    /// A Samsung gain map with its parameters, read where Samsung's phones write them: `hdrgm:`
    /// XMP on the primary (the older ones) or on the map's own item (a Galaxy S25's primary XMP
    /// only names the map), else the `tmap` item whose input the map is. An unusable one when
    /// none has them; nil without a Samsung gain map.
    private static func samsungPresence(in file: HeifFile) -> Presence? {
        let primary = file.primaryID
        guard let aux = file.auxiliaryImages(of: primary).first(where: { $0.type == HeifGainMapType.samsung }) else {
            return nil
        }
        func usable(_ metadata: GainMapMetadata?) -> GainMapMetadata? {
            guard let metadata, metadata.alternateHeadroomStops > 0, metadata.maxStops > metadata.minStops else {
                return nil
            }
            return metadata
        }
        let described = [primary, aux.id].lazy.compactMap { file.xmp($0).flatMap(GainMapMetadata.init(hdrgmXMP:)) }
        let toneMap = isoToneMap(in: file).flatMap { $0.map == aux.id ? GainMapMetadata.spanning($0.channels) : nil }
        guard let metadata = usable(described.first) ?? usable(toneMap) else {
            return .unusable("HDR not kept: the Samsung gain map has no hdrgm: parameters in the XMP or a tmap item")
        }
        return .samsung(item: aux.id, metadata: metadata)
    }

    /// The payload of the file's first `tmap` item (version byte, then the ISO 21496-1 record).
    private static func toneMapRecord(in file: HeifFile) -> [UInt8]? {
        let table = file.meta
        guard let item = table.itemIDs.first(where: { table.types[$0] == "tmap" }) else { return nil }
        return try? table.data(of: item, limit: 4096)
    }

    /// The gain map a `tmap` item describes (see ``isoToneMap(in:)``), with one channel's
    /// parameters for it; nil otherwise.
    private static func isoPresence(in file: HeifFile) -> Presence? {
        guard let toneMap = isoToneMap(in: file), let metadata = GainMapMetadata.spanning(toneMap.channels) else {
            return nil
        }
        return .iso(item: toneMap.map, metadata: metadata)
    }

    /// The first `tmap` item derived from the primary and a gain-map image (`dimg` in that
    /// order) with a version-0 ISO 21496-1 record this reader takes: the map's item and each
    /// channel's parameters. Channels that differ are taken only for an AV1 map, which is
    /// decoded in colour (``AVIFGainMapImage``); an HEVC map is read as luma, one channel.
    private static func isoToneMap(in file: HeifFile) -> (map: UInt32, channels: [GainMapMetadata])? {
        let table = file.meta
        for item in table.itemIDs where table.types[item] == "tmap" {
            guard let inputs = table.derivedFrom[item], inputs.count == 2, inputs[0] == file.primaryID,
                let type = table.types[inputs[1]], ["hvc1", "grid", "av01"].contains(type),
                let record = try? table.data(of: item, limit: 4096), record.first == 0,
                let channels = GainMapMetadata.isoChannels(record: record.dropFirst()),
                type == "av01" || channels.allSatisfy({ $0 == channels[0] }),
                channels[0].alternateHeadroomStops > 0
            else { continue }
            return (inputs[1], channels)
        }
        return nil
    }

    /// Decodes the gain map of `file` (see ``presence(in:)``), or nil when it is not one this
    /// decoder takes (a note then says the HDR was not kept).
    package static func decode(_ file: HeifFile, cancellation: CancellationFlag) throws(ConvertError) -> HeifGainMap? {
        let item: UInt32
        let metadata: GainMapMetadata
        let origin: String
        var table: GainMapTable?
        switch presence(in: file) {
        case .apple(let apple, let stops):
            (item, metadata, origin, table) = (apple, .apple(stops: stops), "Apple", GainMapTable(appleStops: stops))
        case .iso(let iso, let isoMetadata):
            (item, metadata, origin) = (iso, isoMetadata, "ISO 21496-1")
        case .samsung(let samsung, let samsungMetadata):
            (item, metadata, origin) = (samsung, samsungMetadata, "Samsung")
        case .none, .unusable:
            return nil
        }
        // An AV1 map is read in colour, each channel with its own parameters (one for all
        // when the record has one).
        let channels = file.meta.types[item] == "av01" ? isoToneMap(in: file)?.channels ?? [metadata] : nil
        guard var plane = try displayedPlane(file, item: item, channels: channels, coding: metadata, cancellation)
        else { return nil }
        try cancellation.check()
        table?.apply(to: &plane)
        var map = HeifGainMap(plane: plane, metadata: metadata, origin: origin)
        map.channelsCombined = channels.map { list in list.contains { $0 != list[0] } } ?? false
        if origin == "Samsung" {
            map.auxiliaryType = HeifGainMapType.samsung
            // Samsung's newer phones describe the map with a `tmap` item too; a HEIC output keeps it.
            if isoToneMap(in: file)?.map == item { map.isoRecord = toneMapRecord(in: file) }
        }
        return map
    }

    /// The gain map of `file` as a HEIC output stores it: Apple's (also when an iOS 18 `tmap`
    /// describes it) with its values as stored (Apple's coding, whose headroom the MakerNote
    /// gives), or Samsung's; turned as the primary is displayed. Nil when the file has neither
    /// with usable parameters, or the map cannot be decoded.
    static func decodeStored(_ file: HeifFile, cancellation: CancellationFlag) throws(ConvertError) -> HeifGainMap? {
        let primary = file.primaryID
        if case .samsung = presence(in: file) { return try decode(file, cancellation: cancellation) }
        guard let aux = file.auxiliaryImages(of: primary).first(where: { $0.type == appleType }),
            let exif = file.exif(primary), let stops = AppleHeadroom.stops(exif: exif), stops > 0,
            let plane = try displayedPlane(
                file, item: aux.id, channels: nil, coding: .apple(stops: stops), cancellation)
        else { return nil }
        try cancellation.check()
        var map = HeifGainMap(
            plane: plane, metadata: .apple(stops: stops), origin: "Apple",
            appleMakerNote: AppleHeadroom.headroomMakerNote(exif: exif))
        if case .iso(let item, _) = presence(in: file), item == aux.id {
            map.isoRecord = toneMapRecord(in: file)
        }
        return map
    }

    /// The plane of `item` turned and mirrored as it is displayed: an auxiliary image is
    /// displayed as its master is, so the primary's transforms apply to it unless it carries its
    /// own. An HEVC map's luma; an AV1 map's colour channels, described by `channels`, made one
    /// channel coded with `coding` (``AVIFGainMapImage``).
    private static func displayedPlane(
        _ file: HeifFile, item: UInt32, channels: [GainMapMetadata]?, coding: GainMapMetadata,
        _ cancellation: CancellationFlag
    ) throws(ConvertError) -> GrayPlane? {
        let decoded: GrayPlane?
        if let channels {
            decoded = try AVIFGainMapImage.plane(
                file, item: item, channels: channels, target: coding, path: "gain map", cancellation: cancellation
            ).map { GrayPlane(width: $0.width, height: $0.height, pixels: $0.pixels) }
        } else {
            decoded = try lumaPlane(file, item: item)
        }
        guard var plane = decoded else { return nil }
        let own = file.transforms(item)
        for transform in own.isEmpty ? file.transforms(file.primaryID) : own { plane = plane.applying(transform) }
        return plane
    }

    /// The luma samples of HEVC image `item` (a single picture or a grid of them), at 8 bits.
    private static func lumaPlane(_ file: HeifFile, item: UInt32) throws(ConvertError) -> GrayPlane? {
        let table = file.meta
        let tiles: [UInt32]
        var columns = 1
        var size: (width: Int, height: Int)?
        switch table.types[item] {
        case "hvc1":
            tiles = [item]
        case "grid":
            guard let descriptor = try? table.data(of: item, limit: 64), descriptor.count >= 8, descriptor[0] == 0
            else { return nil }
            let wide = descriptor[1] & 1 == 1
            columns = Int(descriptor[3]) + 1
            func field(_ at: Int) -> Int {
                wide
                    ? (0..<4).reduce(0) { $0 << 8 | Int(descriptor[at + $1]) }
                    : Int(descriptor[at]) << 8 | Int(descriptor[at + 1])
            }
            guard descriptor.count >= (wide ? 12 : 8) else { return nil }
            size = (field(4), field(wide ? 8 : 6))
            tiles = table.derivedFrom[item] ?? []
            guard tiles.count == (Int(descriptor[2]) + 1) * columns else { return nil }
        default:
            return nil
        }
        guard !tiles.isEmpty, tiles.count <= 4096, let configuration = file.hevcConfiguration(tiles[0]) else {
            return nil
        }
        let decoder = try HEVCDecoder()
        var plane: GrayPlane?
        var read = 0
        for (index, tile) in tiles.enumerated() {
            guard let data = try? table.data(of: tile, limit: maximumItemBytes - read) else { return nil }
            read += data.count
            let pasted: Bool
            do {
                pasted = try decoder.decode(configuration: configuration, data: data, lumaOnly: true) {
                    picture -> Bool in
                    let (width, height) = size ?? (picture.width, picture.height)
                    if plane == nil {
                        guard width > 0, height > 0, width * height <= maximumItemBytes else { return false }
                        plane = GrayPlane(
                            width: width, height: height, pixels: [UInt8](repeating: 0, count: width * height))
                    }
                    return paste(
                        picture, into: &plane!, x: (index % columns) * picture.width,
                        y: (index / columns) * picture.height)
                }
            } catch {
                return nil
            }
            guard pasted else { return nil }
        }
        return plane
    }

    /// Copies a decoded tile's luma into `plane` at (`x`, `y`), cut at the plane's edges; false
    /// when the samples are not 8 bits.
    private static func paste(_ picture: HEVCPicture, into plane: inout GrayPlane, x: Int, y: Int) -> Bool {
        guard picture.bitDepth == 8 else { return false }
        let width = plane.width
        let rows = max(0, min(picture.height, plane.height - y))
        let count = max(0, min(picture.width, width - x))
        let source = picture.planes[0]
        let stride = picture.strides[0]
        plane.pixels.withUnsafeMutableBufferPointer { target in
            for row in 0..<rows {
                for column in 0..<count { target[(y + row) * width + x + column] = source[row * stride + column] }
            }
        }
        return true
    }
}
