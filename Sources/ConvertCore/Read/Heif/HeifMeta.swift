/// The one model of a HEIF/AVIF file's `meta` box: the primary item, each item's type, name flags
/// and content type (`iinf`), where its bytes are (`iloc`, `idat`), every reference between items
/// (`iref`: `dimg` grid tiles and `tmap` inputs, `thmb`, `auxl`, `cdsc` metadata links, ...), each
/// item's properties (`ipco`/`ipma`) in order, and its EXIF and XMP items.
///
/// Built once per input through ``BoxReader`` and read by everything that looks inside a HEIF:
/// ``HeifFile`` (the YCbCr decoder, the probe, the gain-map reader), the location stripper, the
/// motion-photo editor and the Live Photo pairing. libheif 1.15 refuses files from iOS 18 on (a
/// `tmap` gain-map item, metadata linked to it, an auxiliary image of two images), while this
/// model keeps what it does not know as plain items and lets the caller ignore them. A hostile
/// size is refused, never trusted; tables longer than ``Limits`` are refused with the limit named.
///
/// Only `iinf` and `iloc` are required: the location stripper edits a file whose primary item
/// or property table it has no use for. A missing `pitm` leaves ``primaryID`` nil, and damage in
/// `iprp` is kept in ``propertyDamage`` for ``HeifFile``, which needs the properties, to judge.
package struct HeifMeta: Sendable {
    /// The parses of watched files (tests prove with it that a conversion reads its input once).
    package static let parses = FileReadCounter()

    /// Bounds on a file's tables: far above what phones and cameras write (an iPhone photo has
    /// about 70 items, a 200 MP Samsung grid under 1,000), far below what exhausts memory.
    enum Limits {
        package static let items = 50_000
        static let references = 200_000
        package static let properties = 20_000
        static let associations = 500_000
    }

    /// A property of an item, the kinds the YCbCr decoder acts on; the rest are ``other``.
    package enum Property: Equatable, Sendable {
        /// Image spatial extents: the coded width and height.
        case ispe(width: Int, height: Int)
        /// Rotation anticlockwise by `quarterTurns` × 90°.
        case irot(quarterTurns: Int)
        /// Mirroring: `topToBottom` swaps top and bottom, otherwise left and right. The bit is
        /// HEIF Amendment 2's `mode` (0 top-to-bottom, 1 left-to-right), as iPhones and libheif
        /// write and read it, not the 2017 text's `axis`, which said the opposite.
        case imir(topToBottom: Bool)
        /// The HEVC decoder configuration record.
        case hvcC([UInt8])
        /// The AV1 codec configuration record (an AVIF gain-map image is decoded from it and its
        /// item's data, see ``HeifGainMap``).
        case av1C([UInt8])
        /// A clean-aperture crop to `width` × `height` (rounded as libheif rounds), which the YCbCr
        /// decoder does not apply.
        case clap(width: Int, height: Int)
        /// Colour information: an ICC profile (`prof`, `rICC`).
        case icc([UInt8])
        /// Colour information: nclx code points.
        case nclx(NCLX)
        /// Pixel information: bits per channel.
        case pixi([Int])
        /// The type of an auxiliary image (a URN such as `urn:com:apple:photo:2020:aux:hdrgainmap`).
        case auxC(String)
        /// Any other property.
        case other(FourCC)
    }

    /// One property association: the property and whether the item declares it essential.
    package struct Association: Sendable {
        package var property: Property
        var essential: Bool
    }

    /// Where an item's bytes are: file offsets, or offsets into `idat`.
    package struct Location: Sendable {
        var inIdat: Bool
        package var extents: [(offset: UInt64, length: UInt64)]
    }

    /// The primary item (`pitm`); nil when the file names none.
    let primaryID: UInt32?
    /// Item types, in `iinf` order (``itemIDs``).
    package let types: [UInt32: FourCC]
    let itemIDs: [UInt32]
    /// Items whose `infe` flags mark them hidden (grid tiles, most metadata).
    package let hidden: Set<UInt32>
    /// The content type of `mime` items (`application/rdf+xml` for XMP).
    fileprivate let contentTypes: [UInt32: String]
    package let locations: [UInt32: Location]
    /// Every `iref` reference: by type, each item's referenced items in order.
    let references: [FourCC: [UInt32: [UInt32]]]
    package let properties: [UInt32: [Association]]
    /// Why `iprp` could not be read (missing, damaged, or over a limit); nil when it was.
    let propertyDamage: BoxError?

    /// `dimg` references: a derived image's source items, in order.
    var derivedFrom: [UInt32: [UInt32]] { references["dimg"] ?? [:] }
    /// Where the `idat` payload starts and how long it is.
    private let idat: (offset: UInt64, length: UInt64)?
    /// The bytes the model was read from, for the items' data (none once ``detached()``).
    package private(set) var source: any ByteSource
    /// The size of the file when it was read.
    package let fileSize: UInt64
    /// The types of the file's top-level boxes, in order (an `mpvd` makes a motion photo).
    package let topLevelTypes: [FourCC]
    /// Whether the model was ``detached()`` from its file (and must be ``rebound(to:)`` to read data).
    private(set) var isDetached = false

    /// Reads the `meta` box of the file in `source`.
    package init(source: any ByteSource) throws(BoxError) {
        let reader = BoxReader(source: source)
        self.source = source
        fileSize = source.size
        let topLevel = try reader.children(of: nil, depth: 0)
        topLevelTypes = topLevel.map(\.type)
        guard let meta = topLevel.first(where: { $0.type == "meta" }),
            meta.payloadSize >= 4
        else { throw .truncatedPayload(type: "meta") }
        // meta is a full box: its children start after version and flags.
        let body = BoxHeader(
            type: meta.type, offset: meta.offset + 4, headerSize: meta.headerSize, size: meta.size - 4,
            isTruncated: false)
        let children = try reader.children(of: body, depth: 1)
        func find(_ type: FourCC) -> BoxHeader? { children.first { $0.type == type } }

        guard let iinf = find("iinf"), let iloc = find("iloc") else { throw .truncatedPayload(type: "meta") }
        primaryID = try find("pitm").map { pitm throws(BoxError) in
            var cursor = ByteCursor(try reader.payloadPrefix(of: pitm, count: 8), type: "pitm")
            let version = try cursor.u8()
            try cursor.skip(3)
            return version == 0 ? UInt32(try cursor.u16()) : try cursor.u32()
        }
        let entries = try Self.itemEntries(reader, iinf)
        itemIDs = entries.map(\.id)
        types = Dictionary(entries.map { ($0.id, $0.type) }, uniquingKeysWith: { first, _ in first })
        hidden = Set(entries.filter(\.hidden).map(\.id))
        contentTypes = Dictionary(
            entries.compactMap { entry in entry.contentType.map { (entry.id, $0) } },
            uniquingKeysWith: { first, _ in first })
        locations = try Self.itemLocations(try reader.payload(of: iloc))
        references = try find("iref").map { box throws(BoxError) in try Self.references(reader, box) } ?? [:]
        do throws(BoxError) {
            guard let iprp = find("iprp") else { throw .truncatedPayload(type: "iprp") }
            properties = try Self.itemProperties(reader, iprp)
            propertyDamage = nil
        } catch {
            if case .io = error { throw error }
            properties = [:]
            propertyDamage = error
        }
        idat = find("idat").map { ($0.payloadOffset, $0.payloadSize) }
        Self.parses.count(source)
    }

    /// The same model without its source (a file descriptor a waiting batch item must not
    /// hold); items' data reads give nothing until it is ``rebound(to:)``.
    package func detached() -> HeifMeta {
        var copy = self
        copy.source = MemoryByteSource(bytes: [])
        copy.isDetached = true
        return copy
    }

    /// The same model reading its items' data from `source`, the same file opened again (the
    /// caller checked that its size is still ``fileSize``).
    func rebound(to source: any ByteSource) -> HeifMeta {
        var copy = self
        copy.source = source
        copy.isDetached = false
        return copy
    }

    /// The `Exif` items, in file order.
    package var exifItems: [UInt32] { itemIDs.filter { types[$0] == "Exif" } }

    /// The XMP items (`mime` items of type `application/rdf+xml`), in file order.
    package var xmpItems: [UInt32] {
        itemIDs.filter { types[$0] == "mime" && contentTypes[$0] == "application/rdf+xml" }
    }

    /// Where item `id`'s bytes are in the file, extent by extent (`idat` offsets resolved), for
    /// editing them in place; nil when its location is missing or points outside the file.
    package func fileRanges(of id: UInt32) -> [Range<UInt64>]? {
        guard let location = locations[id] else { return nil }
        var ranges: [Range<UInt64>] = []
        for extent in location.extents {
            var start = extent.offset
            if location.inIdat {
                guard let idat, extent.offset <= idat.length, extent.length <= idat.length - extent.offset else {
                    return nil
                }
                start = idat.offset + extent.offset
            }
            let (end, overflow) = start.addingReportingOverflow(extent.length)
            guard extent.length > 0, !overflow, end <= source.size else { return nil }
            ranges.append(start..<end)
        }
        return ranges
    }

    /// The bytes of item `id`, its extents joined; nil when its location is missing or of a kind
    /// this reader does not follow (another item, an external file, "to the end").
    package func data(of id: UInt32, limit: Int) throws(BoxError) -> [UInt8]? {
        guard let location = locations[id] else { return nil }
        var bytes: [UInt8] = []
        for extent in location.extents {
            var start = extent.offset
            var end = extent.offset &+ extent.length
            if location.inIdat {
                guard let idat, extent.offset <= idat.length, extent.length <= idat.length - extent.offset else {
                    return nil
                }
                start = idat.offset + extent.offset
                end = start + extent.length
            }
            guard extent.length > 0, end > start, end <= source.size,
                UInt64(bytes.count) + extent.length <= UInt64(limit)
            else { return nil }
            var position = start
            while position < end {
                let chunk = try source.read(
                    at: position, count: Int(min(UInt64(BoxLimits.maximumRead), end - position)))
                guard !chunk.isEmpty else { throw .truncatedPayload(type: "iloc") }
                bytes += chunk
                position += UInt64(chunk.count)
            }
        }
        return bytes
    }

    /// One `infe` entry.
    private struct Entry {
        var id: UInt32
        var type: FourCC
        var hidden: Bool
        var contentType: String?
    }

    private static func itemEntries(_ reader: BoxReader, _ iinf: BoxHeader) throws(BoxError) -> [Entry] {
        let version = try reader.payloadPrefix(of: iinf, count: 1).first ?? 0
        let skip: UInt64 = version == 0 ? 6 : 8
        guard iinf.size >= iinf.headerSize + skip else { throw .truncatedPayload(type: "iinf") }
        let body = BoxHeader(
            type: iinf.type, offset: iinf.offset + skip, headerSize: iinf.headerSize, size: iinf.size - skip,
            isTruncated: false)
        var entries: [Entry] = []
        for infe in try reader.children(of: body, depth: 2) where infe.type == "infe" {
            guard entries.count < Limits.items else { throw .overLimit(what: "items", limit: Limits.items) }
            var cursor = ByteCursor(try reader.payload(of: infe), type: "infe")
            let version = try cursor.u8()
            guard version >= 2 else { continue }
            let flags = UInt32(try cursor.u8()) << 16 | UInt32(try cursor.u16())
            let id = version == 2 ? UInt32(try cursor.u16()) : try cursor.u32()
            try cursor.skip(2)
            let type = FourCC(rawValue: try cursor.u32())
            var contentType: String?
            if type == "mime" {
                _ = cursor.string()  // item_name
                contentType = cursor.string()
            }
            entries.append(Entry(id: id, type: type, hidden: flags & 1 == 1, contentType: contentType))
        }
        return entries
    }

    private static func itemLocations(_ payload: [UInt8]) throws(BoxError) -> [UInt32: Location] {
        var cursor = ByteCursor(payload, type: "iloc")
        let version = try cursor.u8()
        try cursor.skip(3)
        let sizes = try cursor.u16()
        let offsetSize = Int(sizes >> 12)
        let lengthSize = Int((sizes >> 8) & 15)
        let baseSize = Int((sizes >> 4) & 15)
        let indexSize = version >= 1 ? Int(sizes & 15) : 0
        let count = version < 2 ? Int(try cursor.u16()) : Int(try cursor.u32())
        guard count <= Limits.items else { throw .overLimit(what: "items", limit: Limits.items) }
        var locations: [UInt32: Location] = [:]
        for _ in 0..<count {
            let id = version < 2 ? UInt32(try cursor.u16()) : try cursor.u32()
            let method = version >= 1 ? try cursor.u16() & 15 : 0
            let reference = try cursor.u16()
            let base = try cursor.unsigned(width: baseSize)
            let extentCount = Int(try cursor.u16())
            var extents: [(UInt64, UInt64)] = []
            for _ in 0..<extentCount {
                _ = try cursor.unsigned(width: indexSize)
                let offset = try cursor.unsigned(width: offsetSize)
                let length = try cursor.unsigned(width: lengthSize)
                extents.append((base &+ offset, length))
            }
            // Only this file's bytes and idat: method 2 (another item) and external data
            // references are left to libheif.
            guard reference == 0, method <= 1 else { continue }
            locations[id] = Location(inIdat: method == 1, extents: extents)
        }
        return locations
    }

    private static func references(_ reader: BoxReader, _ iref: BoxHeader) throws(BoxError) -> [FourCC: [UInt32:
        [UInt32]]]
    {
        let version = try reader.payloadPrefix(of: iref, count: 1).first ?? 0
        guard iref.payloadSize >= 4 else { throw .truncatedPayload(type: "iref") }
        let body = BoxHeader(
            type: iref.type, offset: iref.offset + 4, headerSize: iref.headerSize, size: iref.size - 4,
            isTruncated: false)
        var references: [FourCC: [UInt32: [UInt32]]] = [:]
        var total = 0
        for reference in try reader.children(of: body, depth: 2) {
            var cursor = ByteCursor(try reader.payload(of: reference), type: reference.type)
            func id() throws(BoxError) -> UInt32 { version == 0 ? UInt32(try cursor.u16()) : try cursor.u32() }
            let from = try id()
            let count = Int(try cursor.u16())
            total += count
            guard total <= Limits.references else {
                throw .overLimit(what: "item references", limit: Limits.references)
            }
            var targets: [UInt32] = []
            for _ in 0..<count { targets.append(try id()) }
            references[reference.type, default: [:]][from, default: []] += targets
        }
        return references
    }

    private static func itemProperties(_ reader: BoxReader, _ iprp: BoxHeader) throws(BoxError) -> [UInt32:
        [Association]]
    {
        let boxes = try reader.children(of: iprp, depth: 2)
        guard let ipco = boxes.first(where: { $0.type == "ipco" }) else { throw .truncatedPayload(type: "iprp") }
        var catalogue: [Property] = []
        for box in try reader.children(of: ipco, depth: 3) {
            guard catalogue.count < Limits.properties else {
                throw .overLimit(what: "item properties", limit: Limits.properties)
            }
            catalogue.append(try property(reader, box))
        }
        var total = 0
        var associations: [UInt32: [Association]] = [:]
        for ipma in boxes where ipma.type == "ipma" {
            var cursor = ByteCursor(try reader.payload(of: ipma), type: "ipma")
            let version = try cursor.u8()
            let flags = UInt32(try cursor.u8()) << 16 | UInt32(try cursor.u16())
            let wide = flags & 1 == 1
            let count = Int(try cursor.u32())
            for _ in 0..<count {
                let id = version < 1 ? UInt32(try cursor.u16()) : try cursor.u32()
                let links = Int(try cursor.u8())
                total += links
                guard total <= Limits.associations else {
                    throw .overLimit(what: "property associations", limit: Limits.associations)
                }
                var list: [Association] = []
                for _ in 0..<links {
                    let value = wide ? Int(try cursor.u16()) : Int(try cursor.u8())
                    let essential = wide ? value & 0x8000 != 0 : value & 0x80 != 0
                    let index = wide ? value & 0x7FFF : value & 0x7F
                    // Index 0 means "no property"; one past the catalogue is a damaged file.
                    guard index > 0 else { continue }
                    guard index <= catalogue.count else { throw .truncatedPayload(type: "ipma") }
                    list.append(Association(property: catalogue[index - 1], essential: essential))
                }
                associations[id, default: []] += list
            }
        }
        return associations
    }

    private static func property(_ reader: BoxReader, _ box: BoxHeader) throws(BoxError) -> Property {
        switch box.type {
        case "ispe":
            var cursor = ByteCursor(try reader.payloadPrefix(of: box, count: 12), type: box.type)
            try cursor.skip(4)
            return .ispe(width: Int(try cursor.u32()), height: Int(try cursor.u32()))
        case "irot":
            var cursor = ByteCursor(try reader.payloadPrefix(of: box, count: 1), type: box.type)
            return .irot(quarterTurns: Int(try cursor.u8() & 3))
        case "imir":
            var cursor = ByteCursor(try reader.payloadPrefix(of: box, count: 1), type: box.type)
            return .imir(topToBottom: try cursor.u8() & 1 == 0)
        case "hvcC": return .hvcC(try reader.payload(of: box))
        case "av1C": return .av1C(try reader.payload(of: box))
        case "clap":
            var cursor = ByteCursor(try reader.payloadPrefix(of: box, count: 16), type: box.type)
            func fraction() throws(BoxError) -> Int {
                let numerator = Int(try cursor.u32())
                let denominator = Int(try cursor.u32())
                return denominator > 0 ? (numerator + denominator / 2) / denominator : 0
            }
            return .clap(width: try fraction(), height: try fraction())
        case "colr": return try color(reader, box)
        case "pixi":
            var cursor = ByteCursor(try reader.payloadPrefix(of: box, count: 5 + 255), type: box.type)
            try cursor.skip(4)
            var bits: [Int] = []
            for _ in 0..<Int(try cursor.u8()) { bits.append(Int(try cursor.u8())) }
            return .pixi(bits)
        case "auxC":
            var cursor = ByteCursor(try reader.payload(of: box), type: box.type)
            try cursor.skip(4)
            return .auxC(cursor.string() ?? "")
        default: return .other(box.type)
        }
    }

    /// A `colr` box: nclx code points or an ICC profile; another colour type is ``other``.
    private static func color(_ reader: BoxReader, _ box: BoxHeader) throws(BoxError) -> Property {
        var cursor = ByteCursor(try reader.payload(of: box), type: box.type)
        let kind = FourCC(rawValue: try cursor.u32())
        switch kind {
        case "nclx":
            let primaries = Int(try cursor.u16())
            let transfer = Int(try cursor.u16())
            let matrix = Int(try cursor.u16())
            let fullRange = try cursor.u8() & 0x80 != 0
            return .nclx(NCLX(primaries: primaries, transfer: transfer, matrix: matrix, fullRange: fullRange))
        case "prof", "rICC": return .icc(cursor.rest())
        default: return .other(box.type)
        }
    }
}

extension ByteCursor {
    /// A null-terminated UTF-8 string (the terminator consumed), or nil at the end of the payload.
    /// A string the payload ends without terminating is taken whole.
    package mutating func string() -> String? {
        guard remaining > 0 else { return nil }
        var text: [UInt8] = []
        while let byte = try? u8(), byte != 0 { text.append(byte) }
        return String(decoding: text, as: UTF8.self)
    }

    /// A big-endian unsigned field of 0, 1, 2, 4 or 8 bytes (`iloc`'s variable-size fields);
    /// other widths are a damaged box.
    package mutating func unsigned(width: Int) throws(BoxError) -> UInt64 {
        switch width {
        case 0: return 0
        case 1: return UInt64(try u8())
        case 2: return UInt64(try u16())
        case 4: return UInt64(try u32())
        case 8: return try u64()
        default: throw .truncatedPayload(type: type)
        }
    }
}
