import FoundationEssentials

/// The gain map of a JPEG that carries one as a second image (Ultra HDR from Pixel and Samsung,
/// ISO 21496-1 from iPhone 16): where it is, from the primary's MPF index (CIPA DC-007), and
/// its parameters, from its ISO 21496-1 APP2 record or else its `hdrgm:` XMP.
struct JPEGGainMap: Sendable {
    /// The gain-map JPEG's bytes (SOI to EOI) within the file.
    package var range: Range<Int>
    package var metadata: GainMapMetadata
    /// Whose description was read, for notes and `info`: "ISO 21496-1" or "Ultra HDR".
    package var origin: String

    /// The note of an output that keeps the map: "HDR gain map kept (Ultra HDR, headroom 2.2 stops)".
    var keptNote: String {
        "HDR gain map kept (\(origin), headroom \((metadata.alternateHeadroomStops * 10).rounded() / 10) stops)"
    }

    /// The gain map of JPEG `data`, or nil when it has none this reader understands (no MPF
    /// second image, or one with neither an ISO record nor `hdrgm:` parameters).
    static func locate(_ data: [UInt8]) -> JPEGGainMap? {
        for entry in MPFIndex(data)?.others ?? [] {
            guard let (metadata, origin) = parameters(Array(data[entry.range])) else { continue }
            return JPEGGainMap(range: entry.range, metadata: metadata, origin: origin)
        }
        return nil
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
    /// capacity minimum 0). Nil without `hdrgm:GainMapMax` and `hdrgm:HDRCapacityMax`, or for
    /// an HDR base rendition.
    package init?(hdrgmXMP packet: [UInt8]) {
        let text = String(decoding: packet, as: UTF8.self)
        func value(_ name: String) -> Double? {
            for pattern in ["hdrgm:\(name)=\"", "hdrgm:\(name)='", "<hdrgm:\(name)>"] {
                guard let start = text.firstRange(of: pattern) else { continue }
                let rest = text[start.upperBound...]
                let number = rest.prefix { "0123456789.-+eE".contains($0) }
                if let parsed = Double(number) { return parsed }
                // A per-channel value (rdf:Seq): the first channel's.
                if let li = rest.firstRange(of: "<rdf:li>") {
                    return Double(rest[li.upperBound...].prefix { "0123456789.-+eE".contains($0) })
                }
            }
            return nil
        }
        guard let maximum = value("GainMapMax"), let capacity = value("HDRCapacityMax") else { return nil }
        if text.contains("hdrgm:BaseRenditionIsHDR=\"True\"") { return nil }
        self.init(
            minStops: value("GainMapMin") ?? 0, maxStops: maximum, gamma: value("Gamma") ?? 1,
            baseOffset: value("OffsetSDR") ?? 1.0 / 64,
            alternateOffset: value("OffsetHDR") ?? 1.0 / 64, baseHeadroomStops: value("HDRCapacityMin") ?? 0,
            alternateHeadroomStops: capacity)
        guard gamma > 0 else { return nil }
    }
}
