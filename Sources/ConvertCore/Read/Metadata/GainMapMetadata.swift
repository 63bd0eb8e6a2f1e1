import FoundationEssentials
import Glibc

/// The parameters of an HDR gain map as Ultra HDR v1.1 and ISO 21496-1 state them (logarithmic
/// gain, SDR base), and how they are written: `hdrgm:` XMP and the ISO 21496-1 binary record.
package struct GainMapMetadata: Sendable, Equatable {
    /// log2 of the smallest and largest boost a gain-map value of 0 and 1 stand for.
    var minStops: Double = 0
    var maxStops: Double
    package var gamma: Double = 1
    /// Offsets added to the SDR and HDR values before and after the boost (Apple's formula has none).
    var baseOffset: Double = 0
    var alternateOffset: Double = 0
    /// Display headroom (stops) at which the boost starts and is applied in full.
    var baseHeadroomStops: Double = 0
    var alternateHeadroomStops: Double

    /// Apple's gain map is `hdr = sdr × (1 + (headroom − 1) × gain)`: a boost between 1× and the
    /// headroom, with no offsets; in Ultra HDR's log form that is a boost from 0 to `stops` stops.
    package static func apple(stops: Double) -> GainMapMetadata {
        GainMapMetadata(maxStops: stops, alternateHeadroomStops: stops)
    }

    /// Whether the map brightens anything: some Pixel files carry a flat one (GainMapMax 0),
    /// which is not worth keeping.
    package var brightens: Bool { alternateHeadroomStops > 0 && maxStops > minStops }

    /// The 8-bit map value that stands for no boost (log boost 0), for bars added around a
    /// padded picture: `((0 − min) / (max − min))^gamma`.
    var noBoostCode: UInt8 {
        guard maxStops > minStops else { return 0 }
        let recovery = max(0, min(1, -minStops / (maxStops - minStops)))
        return UInt8((pow(recovery, gamma) * 255).rounded())
    }

    /// The ISO 21496-1 namespace that starts the APP2 segment (NUL-terminated).
    static let isoNamespace: [UInt8] = Array("urn:iso:std:iso:ts:21496:-1".utf8) + [0]
    static let hdrgmNamespace = "http://ns.adobe.com/hdr-gain-map/1.0/"

    /// The primary image's ISO 21496-1 payload: only the versions (minimum 0, writer 0), which
    /// says "this file has an ISO gain map".
    static let isoPrimaryPayload: [UInt8] = isoNamespace + [0, 0, 0, 0]

    /// The gain-map image's ISO 21496-1 payload: the namespace, then the record with a common
    /// denominator (as libultrahdr writes it).
    var isoGainMapPayload: [UInt8] { Self.isoNamespace + isoRecord(commonDenominator: true) }

    /// The record of a HEIF `tmap` item (after its version byte, 0): every fraction with its own
    /// denominator, the one form libavif reads (it takes the flags byte as multichannel, base
    /// colour space and six reserved bits, so a common denominator there reads as truncated).
    var toneMapItemRecord: [UInt8] { isoRecord(commonDenominator: false) }

    /// The ISO 21496-1 metadata record: versions, flags (one channel, the base image's colour
    /// space, and whether a common denominator follows), then every value as a fraction over
    /// 1 000 000.
    private func isoRecord(commonDenominator: Bool) -> [UInt8] {
        let denominator: Int64 = 1_000_000
        let over = [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: UInt32(denominator) >> UInt32($0)) }
        func fraction(_ value: Double) -> [UInt8] {
            let scaled = UInt32(bitPattern: Int32(clamping: Int64((value * Double(denominator)).rounded())))
            return [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: scaled >> UInt32($0)) }
                + (commonDenominator ? [] : over)
        }
        let useBaseColorSpace: UInt8 = 0x40
        let commonFlag: UInt8 = commonDenominator ? 0x08 : 0
        var bytes: [UInt8] = [0, 0, 0, 0, useBaseColorSpace | commonFlag]
        if commonDenominator { bytes += over }
        bytes += fraction(baseHeadroomStops) + fraction(alternateHeadroomStops)
        bytes +=
            fraction(minStops) + fraction(maxStops) + fraction(gamma) + fraction(baseOffset) + fraction(alternateOffset)
        return bytes
    }

    /// The `hdrgm:` description of the gain-map image (Ultra HDR v1.1: values in stops).
    var gainMapXMP: [UInt8] { Array(Self.packet(hdrgmDescription).utf8) }

    /// A HEIC primary's XMP that describes its Samsung gain map: `packet` (the photo's own, or
    /// none) with the `hdrgm:` description added.
    func samsungPrimaryXMP(merging packet: [UInt8]?) -> [UInt8] {
        let closing = Array("</rdf:RDF>".utf8)
        if let packet, let at = Self.lastRange(of: closing, in: packet) {
            return Array(packet[..<at]) + Array(hdrgmDescription.utf8) + Array(packet[at...])
        }
        return gainMapXMP
    }

    private var hdrgmDescription: String {
        func number(_ value: Double) -> String { fixed(value, digits: 6) }
        return """
            <rdf:Description rdf:about="" xmlns:hdrgm="\(Self.hdrgmNamespace)" hdrgm:Version="1.0" \
            hdrgm:GainMapMin="\(number(minStops))" hdrgm:GainMapMax="\(number(maxStops))" hdrgm:Gamma="\(number(gamma))" \
            hdrgm:OffsetSDR="\(number(baseOffset))" hdrgm:OffsetHDR="\(number(alternateOffset))" \
            hdrgm:HDRCapacityMin="\(number(baseHeadroomStops))" hdrgm:HDRCapacityMax="\(number(alternateHeadroomStops))" \
            hdrgm:BaseRenditionIsHDR="False"/>
            """
    }

    /// The primary image's XMP: `packet` (the photo's own, or none) with a description added that
    /// names the gain map (`hdrgm:Version`, `Container:Directory` with its length in bytes).
    static func primaryXMP(merging packet: [UInt8]?, gainMapLength: Int) -> [UInt8] {
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

extension GainMapMetadata {
    /// The parameters of an ISO 21496-1 metadata record (what follows the APP2 namespace, or a
    /// `tmap` item after its version byte), see ``isoChannels(record:)``. Nil for a record this
    /// writer cannot carry as one channel over an SDR base: one ``isoChannels(record:)`` refuses,
    /// or channels that differ.
    package init?(isoRecord bytes: some Collection<UInt8>) {
        guard let channels = Self.isoChannels(record: bytes), channels.allSatisfy({ $0 == channels[0] }) else {
            return nil
        }
        self = channels[0]
    }

    /// The parameters of each channel (one or three) of an ISO 21496-1 metadata record: minimum
    /// and writer versions (2 bytes each), flags (0x80 multichannel, 0x40 base colour space,
    /// 0x04 backward direction, 0x08 a common denominator), the base and alternate headroom,
    /// then per channel the map's minimum, maximum, gamma and both offsets, each a fraction.
    /// Nil for a newer minimum version, an HDR base image, a zero denominator, a gamma that is
    /// not positive, a maximum below the minimum, or a short record.
    package static func isoChannels(record bytes: some Collection<UInt8>) -> [GainMapMetadata]? {
        var cursor = Array(bytes)[...]
        func u16() -> UInt32? {
            guard cursor.count >= 2 else { return nil }
            defer { cursor = cursor.dropFirst(2) }
            return UInt32(cursor[cursor.startIndex]) << 8 | UInt32(cursor[cursor.startIndex + 1])
        }
        func u32() -> UInt32? {
            guard let high = u16(), let low = u16() else { return nil }
            return high << 16 | low
        }
        guard let minimumVersion = u16(), minimumVersion == 0, u16() != nil, let flags = cursor.first else {
            return nil
        }
        cursor = cursor.dropFirst()
        guard flags & 0x04 == 0 else { return nil }
        let channels = flags & 0x80 != 0 ? 3 : 1
        let common: UInt32? = flags & 0x08 != 0 ? u32() : nil
        if flags & 0x08 != 0, common == nil { return nil }
        // A fraction: its numerator (signed where the value may be negative), then its
        // denominator unless the record has a common one.
        func fraction(signed: Bool) -> Double? {
            guard let numerator = u32(), let denominator = common ?? u32(), denominator != 0 else { return nil }
            return (signed ? Double(Int32(bitPattern: numerator)) : Double(numerator)) / Double(denominator)
        }
        guard let base = fraction(signed: false), let alternate = fraction(signed: false) else { return nil }
        var perChannel: [GainMapMetadata] = []
        for _ in 0..<channels {
            var values: [Double] = []
            for signed in [true, true, false, true, true] {
                guard let value = fraction(signed: signed) else { return nil }
                values.append(value)
            }
            guard values[2] > 0, values[1] >= values[0] else { return nil }
            perChannel.append(
                GainMapMetadata(
                    minStops: values[0], maxStops: values[1], gamma: values[2], baseOffset: values[3],
                    alternateOffset: values[4], baseHeadroomStops: base, alternateHeadroomStops: alternate))
        }
        return perChannel
    }

    /// One channel's parameters that span `channels`' boosts: the lowest minimum and highest
    /// maximum, their gamma when they share one (else 1), the mean offsets. A map whose channels
    /// are combined into one (``AVIFGainMapImage``) is coded with it.
    package static func spanning(_ channels: [GainMapMetadata]) -> GainMapMetadata? {
        guard let first = channels.first else { return nil }
        guard !channels.allSatisfy({ $0 == first }) else { return first }
        let count = Double(channels.count)
        return GainMapMetadata(
            minStops: channels.map(\.minStops).min() ?? 0, maxStops: channels.map(\.maxStops).max() ?? 0,
            gamma: channels.allSatisfy { $0.gamma == first.gamma } ? first.gamma : 1,
            baseOffset: channels.map(\.baseOffset).reduce(0, +) / count,
            alternateOffset: channels.map(\.alternateOffset).reduce(0, +) / count,
            baseHeadroomStops: first.baseHeadroomStops, alternateHeadroomStops: first.alternateHeadroomStops)
    }
}
