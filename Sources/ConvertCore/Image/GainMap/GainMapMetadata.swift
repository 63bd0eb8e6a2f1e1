import Foundation

/// The parameters of an HDR gain map as Ultra HDR v1.1 and ISO 21496-1 state them (logarithmic
/// gain, SDR base), and how they are written: `hdrgm:` XMP and the ISO 21496-1 binary record.
package struct GainMapMetadata: Sendable, Equatable {
    /// log2 of the smallest and largest boost a gain-map value of 0 and 1 stand for.
    package var minStops: Double = 0
    package var maxStops: Double
    package var gamma: Double = 1
    /// Offsets added to the SDR and HDR values before and after the boost (Apple's formula has none).
    package var baseOffset: Double = 0
    package var alternateOffset: Double = 0
    /// Display headroom (stops) at which the boost starts and is applied in full.
    package var baseHeadroomStops: Double = 0
    package var alternateHeadroomStops: Double

    /// Apple's gain map is `hdr = sdr × (1 + (headroom − 1) × gain)`: a boost between 1× and the
    /// headroom, with no offsets; in Ultra HDR's log form that is a boost from 0 to `stops` stops.
    package static func apple(stops: Double) -> GainMapMetadata {
        GainMapMetadata(maxStops: stops, alternateHeadroomStops: stops)
    }

    /// The ISO 21496-1 namespace that starts the APP2 segment (NUL-terminated).
    package static let isoNamespace: [UInt8] = Array("urn:iso:std:iso:ts:21496:-1".utf8) + [0]
    package static let hdrgmNamespace = "http://ns.adobe.com/hdr-gain-map/1.0/"

    /// The primary image's ISO 21496-1 payload: only the versions (minimum 0, writer 0), which
    /// says "this file has an ISO gain map".
    package static let isoPrimaryPayload: [UInt8] = isoNamespace + [0, 0, 0, 0]

    /// The gain-map image's ISO 21496-1 payload: versions, flags (one channel, the base image's
    /// colour space, a common denominator), then every value as a fraction over it.
    package var isoGainMapPayload: [UInt8] {
        let denominator: Int64 = 1_000_000
        func fraction(_ value: Double) -> [UInt8] {
            let scaled = UInt32(bitPattern: Int32(clamping: Int64((value * Double(denominator)).rounded())))
            return [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: scaled >> UInt32($0)) }
        }
        let useBaseColourSpace: UInt8 = 0x40
        let commonDenominator: UInt8 = 0x08
        var bytes = Self.isoNamespace + [0, 0, 0, 0, useBaseColourSpace | commonDenominator]
        bytes += fraction(1)  // the denominator itself: 1_000_000
        bytes += fraction(baseHeadroomStops) + fraction(alternateHeadroomStops)
        bytes += fraction(minStops) + fraction(maxStops) + fraction(gamma) + fraction(baseOffset) + fraction(alternateOffset)
        return bytes
    }

    /// The `hdrgm:` description of the gain-map image (Ultra HDR v1.1: values in stops).
    package var gainMapXMP: [UInt8] {
        func number(_ value: Double) -> String { String(format: "%.6f", value) }
        let description = """
            <rdf:Description rdf:about="" xmlns:hdrgm="\(Self.hdrgmNamespace)" hdrgm:Version="1.0" \
            hdrgm:GainMapMin="\(number(minStops))" hdrgm:GainMapMax="\(number(maxStops))" hdrgm:Gamma="\(number(gamma))" \
            hdrgm:OffsetSDR="\(number(baseOffset))" hdrgm:OffsetHDR="\(number(alternateOffset))" \
            hdrgm:HDRCapacityMin="\(number(baseHeadroomStops))" hdrgm:HDRCapacityMax="\(number(alternateHeadroomStops))" \
            hdrgm:BaseRenditionIsHDR="False"/>
            """
        return Array(Self.packet(description).utf8)
    }

    /// The primary image's XMP: `packet` (the photo's own, or none) with a description added that
    /// names the gain map (`hdrgm:Version`, `Container:Directory` with its length in bytes).
    package static func primaryXMP(merging packet: [UInt8]?, gainMapLength: Int) -> [UInt8] {
        let description = """
            <rdf:Description rdf:about="" xmlns:Container="http://ns.google.com/photos/1.0/container/" \
            xmlns:Item="http://ns.google.com/photos/1.0/container/item/" xmlns:hdrgm="\(hdrgmNamespace)" hdrgm:Version="1.0">\
            <Container:Directory><rdf:Seq>\
            <rdf:li rdf:parseType="Resource"><Container:Item Item:Semantic="Primary" Item:Mime="image/jpeg"/></rdf:li>\
            <rdf:li rdf:parseType="Resource"><Container:Item Item:Semantic="GainMap" Item:Mime="image/jpeg" Item:Length="\(gainMapLength)"/></rdf:li>\
            </rdf:Seq></Container:Directory></rdf:Description>
            """
        let closing = Array("</rdf:RDF>".utf8)
        if let packet, let at = lastRange(of: closing, in: packet) {
            return Array(packet[..<at]) + Array(description.utf8) + Array(packet[at...])
        }
        return Array(Self.packet(description).utf8)
    }

    private static func packet(_ description: String) -> String {
        """
        <?xpacket begin="\u{FEFF}" id="W5M0MpCehiHzreSzNTczkc9d"?><x:xmpmeta xmlns:x="adobe:ns:meta/">\
        <rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">\(description)</rdf:RDF></x:xmpmeta><?xpacket end="w"?>
        """
    }

    private static func lastRange(of needle: [UInt8], in haystack: [UInt8]) -> Int? {
        guard haystack.count >= needle.count else { return nil }
        for start in stride(from: haystack.count - needle.count, through: 0, by: -1)
        where haystack[start] == needle[0] && Array(haystack[start..<(start + needle.count)]) == needle {
            return start
        }
        return nil
    }
}
