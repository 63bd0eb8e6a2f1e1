import FoundationEssentials

/// The gain map of a JPEG that carries one as a second image (Ultra HDR from Pixel and Samsung,
/// ISO 21496-1 from iPhone 16, Apple's own before iOS 18): where it is, from the primary's MPF
/// index (CIPA DC-007), and its parameters, from its ISO 21496-1 APP2 record, else its `hdrgm:`
/// XMP, else (an image whose XMP names Apple's gain-map URN) the primary's Apple MakerNote.
struct JPEGGainMap: Sendable {
    /// The gain-map JPEG's bytes (SOI to EOI) within the file.
    package var range: Range<Int>
    package var metadata: GainMapMetadata
    /// Whose description was read, for notes and `info`: "ISO 21496-1", "Ultra HDR" or "Apple".
    package var origin: String
    /// For Apple's map: the headroom in stops (its samples are in Apple's linear coding, which
    /// ``GainMapTable`` turns into the logarithmic one) and a MakerNote with only the headroom
    /// tags, for a HEIC output that keeps the map as Apple's. Nil for the other origins.
    var apple: (stops: Double, makerNote: [UInt8]?)?

    /// The note of an output that keeps the map: "HDR gain map kept (Ultra HDR, headroom 2.2 stops)".
    var keptNote: String {
        "HDR gain map kept (\(origin), headroom \((metadata.alternateHeadroomStops * 10).rounded() / 10) stops)"
    }

    /// The gain map of JPEG `data`, or nil when it has none this reader understands (no MPF
    /// second image, or one with neither an ISO record nor `hdrgm:` parameters).
    static func locate(_ data: [UInt8]) -> JPEGGainMap? {
        let others = MPFIndex(data)?.others ?? []
        for entry in others {
            guard let (metadata, origin) = parameters(Array(data[entry.range])) else { continue }
            return JPEGGainMap(range: entry.range, metadata: metadata, origin: origin)
        }
        // Apple's map describes itself only by its XMP's auxiliary type; its headroom is in the
        // primary's MakerNote, read as the HEIC path reads it (``AppleHeadroom``).
        guard let entry = others.first(where: { isApple(Array(data[$0.range])) }),
            let exif = JPEGMarkers.metadata(data).exif, let stops = AppleHeadroom.stops(exif: exif), stops > 0
        else { return nil }
        return JPEGGainMap(
            range: entry.range, metadata: .apple(stops: stops), origin: "Apple",
            apple: (stops, AppleHeadroom.headroomMakerNote(exif: exif)))
    }

    /// Whether gain-map JPEG `image`'s XMP names Apple's auxiliary type
    /// (`apdi:AuxiliaryImageType`, as an attribute or an element).
    private static func isApple(_ image: [UInt8]) -> Bool {
        guard let xmp = JPEGMarkers.metadata(image).xmp else { return false }
        let text = String(decoding: xmp, as: UTF8.self)
        return text.contains("AuxiliaryImageType") && text.contains(HeifGainMapType.apple)
    }

    /// The parameters in a gain-map JPEG's own segments: ISO 21496-1 first (the standard), then
    /// Ultra HDR's `hdrgm:` XMP.
    package static func parameters(_ image: [UInt8]) -> (GainMapMetadata, String)? {
        let segments = JPEGMarkers.segments(image)
        for segment in segments
        where segment.marker == 0xE2 && image[segment.payload].starts(with: GainMapMetadata.isoNamespace) {
            let record = image[segment.payload].dropFirst(GainMapMetadata.isoNamespace.count)
            if let metadata = GainMapMetadata(isoRecord: record) { return (metadata, "ISO 21496-1") }
        }
        guard let xmp = JPEGMarkers.metadata(image).xmp, let metadata = GainMapMetadata(hdrgmXMP: xmp) else {
            return nil
        }
        return (metadata, "Ultra HDR")
    }
}

extension GainMapMetadata {
    /// The parameters of an Ultra HDR gain-map image's `hdrgm:` XMP (attributes or elements;
    /// Ultra HDR v1.0's defaults where one is missing: minimum 0, gamma 1, offsets 1/64,
    /// capacity minimum 0). The namespace is found by its URI, whatever prefix the writer bound
    /// it to (exiftool reads it so). Without `HDRCapacityMax`, which some writers leave out, the
    /// map applies in full at its own largest boost (`GainMapMax`). Nil without
    /// `GainMapMax`, or for an HDR base rendition.
    package init?(hdrgmXMP packet: [UInt8]) {
        let text = String(decoding: packet, as: UTF8.self)
        // A packet that never declares the namespace gets the usual prefix; one that binds
        // `hdrgm` to something else does not.
        guard
            let prefix = Self.prefix(of: Self.hdrgmNamespace, in: text)
                ?? (text.contains("xmlns:hdrgm=") ? nil : "hdrgm")
        else { return nil }
        func value(_ name: String) -> Double? {
            for pattern in ["\(prefix):\(name)=\"", "\(prefix):\(name)='", "<\(prefix):\(name)>"] {
                guard let start = text.firstRange(of: pattern) else { continue }
                let rest = text[start.upperBound...].drop { $0 == " " || $0 == "\n" || $0 == "\r" || $0 == "\t" }
                let number = rest.prefix { "0123456789.-+eE".contains($0) }
                if let parsed = Double(number) { return parsed }
                // A per-channel value (rdf:Seq): the first channel's.
                if let li = rest.firstRange(of: "<rdf:li"), let close = rest[li.upperBound...].firstIndex(of: ">") {
                    return Double(rest[rest.index(after: close)...].prefix { "0123456789.-+eE".contains($0) })
                }
            }
            return nil
        }
        guard let maximum = value("GainMapMax") else { return nil }
        if text.contains("\(prefix):BaseRenditionIsHDR=\"True\"") { return nil }
        self.init(
            minStops: value("GainMapMin") ?? 0, maxStops: maximum, gamma: value("Gamma") ?? 1,
            baseOffset: value("OffsetSDR") ?? 1.0 / 64,
            alternateOffset: value("OffsetHDR") ?? 1.0 / 64, baseHeadroomStops: value("HDRCapacityMin") ?? 0,
            alternateHeadroomStops: value("HDRCapacityMax") ?? maximum)
        guard gamma > 0 else { return nil }
    }

    /// The prefix `text` binds `namespace` to (`xmlns:PREFIX="namespace"`), nil when it does not.
    static func prefix(of namespace: String, in text: String) -> String? {
        for quote in ["\"", "'"] {
            guard let binding = text.firstRange(of: "=\(quote)\(namespace)\(quote)") else { continue }
            let before = text[..<binding.lowerBound]
            guard let colon = before.lastIndex(of: ":") else { continue }
            let name = before[before.index(after: colon)...]
            guard before[..<colon].hasSuffix("xmlns"), !name.isEmpty,
                name.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" || $0 == "-" || $0 == "." })
            else { continue }
            return String(name)
        }
        return nil
    }
}
