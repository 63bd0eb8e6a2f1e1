import ConvertCore

/// What our ISO-BMFF reader found in an MP4/MOV file's boxes.
struct ISOMovie: Equatable {
    /// `ftyp` major brand.
    var majorBrand: FourCC?
    /// `ftyp` compatible brands.
    var compatibleBrands: [FourCC] = []
    /// Whether a `moov` box exists.
    var hasMovieBox = false
    /// The tracks (`trak` boxes), in file order.
    var tracks: [ISOTrack] = []
    /// ISO 6709 location from `udta/©xyz` or the `com.apple.quicktime.location.ISO6709` key.
    var location: String?
    /// The top-level box that runs past the end of the file, if any.
    var truncatedBox: FourCC?
    /// Damage found in parts that were skipped, as readable sentences.
    var problems: [String] = []
}

/// One `trak` box.
struct ISOTrack: Equatable {
    /// `tkhd` track_ID.
    var trackID: Int?
    /// `hdlr` handler type (`vide`, `soun`, `meta`, `tmcd`, ...).
    var handler: FourCC?
    /// The sample entries of `stsd`.
    var sampleEntries: [ISOSampleEntry] = []
}

/// One sample entry of a `stsd` box, with the boxes inside it that describe colour and HDR.
struct ISOSampleEntry: Equatable {
    /// The entry's format (`hvc1`, `dvh1`, `avc1`, `av01`, `mp4a`, `apac`, `mebx`, ...).
    var format: FourCC
    /// A `dvcC`, `dvvC` or `dvwC` record.
    var dolbyVision: DolbyVisionConfiguration?
    /// The `colr` box (nclx/nclc codes, or an ICC profile's size).
    var color: ColorDescription?
    /// The `mdcv` box.
    var masteringDisplay: MasteringDisplay?
    /// The `clli` box.
    var contentLight: ContentLightLevel?
    /// The picture size a VisualSampleEntry declares (0 for other entries): what the file
    /// claims, whether or not its decoder agrees.
    var declaredWidth = 0
    var declaredHeight = 0
    /// An `lhvC` (layered HEVC, MV-HEVC) or `vexu` (Apple's stereo "video extended usage") box:
    /// a spatial (3D) video, whose second view FFmpeg 5.1 cannot decode.
    var isStereo = false
}

/// Walks `moov/trak/mdia/minf/stbl/stsd` and the movie's user data with a ``BoxReader``.
///
/// Damage inside one track or in the metadata is recorded in ``ISOMovie/problems`` and that part
/// skipped, so one bad box does not hide the rest; damage in the top-level structure throws.
enum MovieBoxScanner {
    /// Sample entries whose layout is a VisualSampleEntry (78 bytes before the child boxes).
    static let visualFormats: Set<FourCC> = [
        "hvc1", "hev1", "dvh1", "dvhe", "avc1", "avc3", "dva1", "dvav", "av01", "dav1", "vp09", "vp08",
        "vvc1", "vvi1", "mp4v", "encv", "apch", "apcn", "apcs", "apco", "ap4h", "jpeg", "mjpa",
    ]

    static func scan(_ reader: BoxReader) throws(BoxError) -> ISOMovie {
        var movie = ISOMovie()
        for box in try reader.children(of: nil, depth: 0) {
            if box.isTruncated { movie.truncatedBox = box.type }
            switch box.type {
            case "ftyp":
                var cursor = ByteCursor(try reader.payloadPrefix(of: box, count: 4096), type: box.type)
                movie.majorBrand = FourCC(rawValue: try cursor.u32())
                try cursor.skip(4)
                while cursor.remaining >= 4 { movie.compatibleBrands.append(FourCC(rawValue: try cursor.u32())) }
            case "moov" where !movie.hasMovieBox:
                movie.hasMovieBox = true
                try scanMovie(box, reader: reader, into: &movie)
            default:
                break
            }
        }
        return movie
    }

    private static func scanMovie(_ moov: BoxHeader, reader: BoxReader, into movie: inout ISOMovie) throws(BoxError) {
        for box in try reader.children(of: moov, depth: 1) {
            do throws(BoxError) {
                switch box.type {
                case "trak": movie.tracks.append(try scanTrack(box, reader: reader))
                case "udta" where movie.location == nil: movie.location = try userDataLocation(box, reader: reader)
                case "meta" where movie.location == nil:
                    movie.location = try metadataLocation(box, reader: reader, depth: 2)
                default: break
                }
            } catch {
                if case .io = error { throw error }
                movie.problems.append("skipped a damaged '\(box.type)' box: \(error)")
            }
        }
    }

    private static func scanTrack(_ trak: BoxHeader, reader: BoxReader) throws(BoxError) -> ISOTrack {
        var track = ISOTrack()
        let children = try reader.children(of: trak, depth: 2)
        if let tkhd = children.first(where: { $0.type == "tkhd" }) {
            var cursor = ByteCursor(try reader.payloadPrefix(of: tkhd, count: 24), type: tkhd.type)
            let version = try cursor.u8()
            try cursor.skip(3 + (version == 1 ? 16 : 8))
            track.trackID = Int(try cursor.u32())
        }
        guard let mdia = children.first(where: { $0.type == "mdia" }) else { return track }
        let mediaChildren = try reader.children(of: mdia, depth: 3)
        if let hdlr = mediaChildren.first(where: { $0.type == "hdlr" }) {
            var cursor = ByteCursor(try reader.payloadPrefix(of: hdlr, count: 12), type: hdlr.type)
            try cursor.skip(8)
            track.handler = FourCC(rawValue: try cursor.u32())
        }
        guard let minf = mediaChildren.first(where: { $0.type == "minf" }),
            let stbl = try reader.child("stbl", of: minf, depth: 4),
            let stsd = try reader.child("stsd", of: stbl, depth: 5)
        else { return track }
        track.sampleEntries = try sampleEntries(stsd, handler: track.handler, reader: reader)
        return track
    }

    /// Parses the entries of a `stsd` box from a bounded in-memory copy of its payload.
    static func sampleEntries(_ stsd: BoxHeader, handler: FourCC?, reader: BoxReader) throws(BoxError)
        -> [ISOSampleEntry]
    {
        let payload = try reader.payload(of: stsd)
        // Offsets in `inner` are offsets in the payload; the virtual parent skips version, flags
        // and entry_count.
        let inner = BoxReader(source: MemoryByteSource(bytes: payload))
        let list = BoxHeader(type: "stsd", offset: 0, headerSize: 8, size: UInt64(payload.count), isTruncated: false)
        guard payload.count >= 8 else { throw .truncatedPayload(type: "stsd") }
        var entries: [ISOSampleEntry] = []
        for box in try inner.children(of: list, depth: 6) {
            var entry = ISOSampleEntry(format: box.type)
            let fixedFields: UInt64
            if handler == "vide" || visualFormats.contains(box.type) {
                fixedFields = 78
                // VisualSampleEntry: 6 reserved, data_reference_index, 16 pre-defined/reserved, then width, height.
                let prefix = try inner.payloadPrefix(of: box, count: 28)
                if prefix.count == 28 {
                    entry.declaredWidth = Int(prefix[24]) << 8 | Int(prefix[25])
                    entry.declaredHeight = Int(prefix[26]) << 8 | Int(prefix[27])
                }
            } else if handler == "soun" {
                // AudioSampleEntry: 28 bytes; QuickTime sound descriptions version 1 and 2 add 16
                // and 36 bytes. The version is the first 16 bits after data_reference_index.
                let prefix = try inner.payloadPrefix(of: box, count: 10)
                let version = prefix.count == 10 ? (UInt16(prefix[8]) << 8 | UInt16(prefix[9])) : 0
                fixedFields = 28 + (version == 1 ? 16 : version == 2 ? 36 : 0)
            } else {
                entries.append(entry)
                continue
            }
            guard box.payloadSize > fixedFields else {
                entries.append(entry)
                continue
            }
            var fields = box
            fields.headerSize += fixedFields
            for child in try inner.children(of: fields, depth: 7) {
                switch child.type {
                case "dvcC", "dvvC", "dvwC":
                    entry.dolbyVision = try dolbyVision(child, reader: inner)
                case "colr":
                    entry.color = try color(child, reader: inner) ?? entry.color
                case "mdcv":
                    entry.masteringDisplay = try masteringDisplay(child, reader: inner)
                case "lhvC", "vexu":
                    entry.isStereo = true
                case "clli":
                    var cursor = ByteCursor(try inner.payloadPrefix(of: child, count: 4), type: child.type)
                    entry.contentLight = ContentLightLevel(
                        maxCLL: Int(try cursor.u16()), maxFALL: Int(try cursor.u16()))
                default:
                    break
                }
            }
            entries.append(entry)
        }
        return entries
    }

    /// A `dvcC`/`dvvC`/`dvwC` payload: version major/minor, then profile (7 bits), level (6),
    /// rpu/el/bl flags (1 each), then the compatibility id in the next byte's high nibble.
    static func dolbyVision(_ box: BoxHeader, reader: BoxReader) throws(BoxError) -> DolbyVisionConfiguration {
        var cursor = ByteCursor(try reader.payloadPrefix(of: box, count: 5), type: box.type)
        let major = try cursor.u8()
        let minor = try cursor.u8()
        let bits = try cursor.u16()
        let compatibility = try cursor.u8() >> 4
        return DolbyVisionConfiguration(
            versionMajor: Int(major), versionMinor: Int(minor), profile: Int(bits >> 9), level: Int((bits >> 3) & 0x3F),
            rpuPresent: bits & 0x4 != 0, enhancementLayerPresent: bits & 0x2 != 0, baseLayerPresent: bits & 0x1 != 0,
            baseLayerCompatibilityID: Int(compatibility), configurationBox: box.type.description)
    }

    /// A `colr` payload: `nclx` (codes and full-range flag), QuickTime `nclc` (codes only), or an
    /// ICC profile (`prof`, `rICC`). Unknown colour types are ignored.
    static func color(_ box: BoxHeader, reader: BoxReader) throws(BoxError) -> ColorDescription? {
        var cursor = ByteCursor(try reader.payloadPrefix(of: box, count: 11), type: box.type)
        let kind = FourCC(rawValue: try cursor.u32())
        switch kind {
        case "nclx", "nclc":
            let primaries = ColorPrimaries(code: Int(try cursor.u16()))
            let transfer = TransferCharacteristics(code: Int(try cursor.u16()))
            let matrix = MatrixCoefficients(code: Int(try cursor.u16()))
            var range = ColorRange.unspecified
            if kind == "nclx" { range = try cursor.u8() & 0x80 != 0 ? .full : .limited }
            return ColorDescription(primaries: primaries, transfer: transfer, matrix: matrix, range: range)
        case "prof", "rICC":
            return ColorDescription(iccProfileBytes: Int(box.payloadSize) - 4)
        default:
            return nil
        }
    }

    /// An `mdcv` payload (ISO/IEC 23001-17, same layout as the HEVC SEI): three primaries in
    /// green, blue, red order in 0.00002 steps, the white point, then max and min luminance in
    /// 0.0001 cd/m².
    static func masteringDisplay(_ box: BoxHeader, reader: BoxReader) throws(BoxError) -> MasteringDisplay {
        var cursor = ByteCursor(try reader.payloadPrefix(of: box, count: 24), type: box.type)
        var points: [Chromaticity] = []
        for _ in 0..<4 {
            let x = Double(try cursor.u16()) * 0.00002
            let y = Double(try cursor.u16()) * 0.00002
            points.append(Chromaticity(x: x, y: y))
        }
        let maxLuminance = Double(try cursor.u32()) * 0.0001
        let minLuminance = Double(try cursor.u32()) * 0.0001
        return MasteringDisplay(
            red: points[2], green: points[0], blue: points[1], whitePoint: points[3],
            minLuminance: minLuminance, maxLuminance: maxLuminance)
    }

    /// `udta/©xyz`: a 16-bit length, a 16-bit language code, then the ISO 6709 text.
    private static func userDataLocation(_ udta: BoxHeader, reader: BoxReader) throws(BoxError) -> String? {
        for box in try reader.children(of: udta, depth: 2) {
            if box.type == "©xyz" {
                var cursor = ByteCursor(try reader.payloadPrefix(of: box, count: 260), type: box.type)
                let length = Int(try cursor.u16())
                try cursor.skip(2)
                return text(try cursor.take(min(length, cursor.remaining)))
            }
            if box.type == "meta", let found = try metadataLocation(box, reader: reader, depth: 3) {
                return found
            }
        }
        return nil
    }

    static let locationKey = "com.apple.quicktime.location.ISO6709"

    /// A QuickTime `meta` box (`hdlr` mdta, `keys`, `ilst`): the value of the ISO 6709 location key.
    private static func metadataLocation(_ meta: BoxHeader, reader: BoxReader, depth: Int) throws(BoxError) -> String? {
        try MovieKeys.value(locationKey, meta: meta, reader: reader, depth: depth)
    }

    /// Text from a file: UTF-8 (invalid bytes replaced), cut at a NUL, trimmed.
    private static func text(_ bytes: [UInt8]) -> String {
        let cut = bytes.prefix { $0 != 0 }
        let decoded = String(decoding: cut, as: UTF8.self)
        return String(decoded.drop { $0.isWhitespace }.reversed().drop { $0.isWhitespace }.reversed())
    }
}
