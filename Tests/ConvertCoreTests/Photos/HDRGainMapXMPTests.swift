import Testing

@testable import ConvertCore

/// Issue #55: a gain map's `hdrgm:` parameters are read wherever and however a camera writes
/// them: under any prefix bound to Adobe's namespace (exiftool resolves the URI, not the
/// prefix), as attributes or elements, one value or one per channel, and without the
/// `HDRCapacityMax` some writers leave out.
@Suite("hdrgm XMP: any prefix, any form")
struct HDRGainMapXMPTests {
    static let namespace = "http://ns.adobe.com/hdr-gain-map/1.0/"

    static func packet(_ description: String) -> [UInt8] {
        Array(
            """
            <x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">\
            \(description)</rdf:RDF></x:xmpmeta>
            """.utf8)
    }

    @Test("attributes under another prefix are read, and the usual one still is")
    func anyPrefix() throws {
        let other = try #require(
            GainMapMetadata(
                hdrgmXMP: Self.packet(
                    """
                    <rdf:Description xmlns:HDRGainMap='\(Self.namespace)' HDRGainMap:Version="1.0" \
                    HDRGainMap:GainMapMax="2.3" HDRGainMap:HDRCapacityMax="2.3" HDRGainMap:Gamma="1"/>
                    """)))
        #expect(other.maxStops == 2.3 && other.alternateHeadroomStops == 2.3 && other.minStops == 0)
        let usual = try #require(
            GainMapMetadata(
                hdrgmXMP: Self.packet(
                    """
                    <rdf:Description xmlns:hdrgm="\(Self.namespace)" hdrgm:GainMapMin="0.1" hdrgm:GainMapMax="3" \
                    hdrgm:HDRCapacityMin="0" hdrgm:HDRCapacityMax="2.5"/>
                    """)))
        #expect(usual.minStops == 0.1 && usual.maxStops == 3 && usual.alternateHeadroomStops == 2.5)
    }

    @Test("elements, one value per channel (the first is taken), and a missing HDRCapacityMax")
    func elementsAndDefaults() throws {
        let metadata = try #require(
            GainMapMetadata(
                hdrgmXMP: Self.packet(
                    """
                    <rdf:Description xmlns:gm="\(Self.namespace)">
                      <gm:GainMapMax><rdf:Seq><rdf:li rdf:parseType="Literal">1.75</rdf:li><rdf:li>1.5</rdf:li>\
                    </rdf:Seq></gm:GainMapMax>
                      <gm:Gamma> 1.2</gm:Gamma>
                    </rdf:Description>
                    """)))
        #expect(metadata.maxStops == 1.75)
        #expect(metadata.gamma == 1.2)
        #expect(
            metadata.alternateHeadroomStops == 1.75, "without HDRCapacityMax the map applies in full at its own boost")
        #expect(metadata.baseOffset == 1.0 / 64 && metadata.baseHeadroomStops == 0)
    }

    @Test("an HDR base rendition, and a packet without GainMapMax, give no parameters")
    func refusals() {
        #expect(
            GainMapMetadata(
                hdrgmXMP: Self.packet(
                    """
                    <rdf:Description xmlns:g="\(Self.namespace)" g:GainMapMax="2" g:HDRCapacityMax="2" \
                    g:BaseRenditionIsHDR="True"/>
                    """)) == nil)
        #expect(
            GainMapMetadata(
                hdrgmXMP: Self.packet(#"<rdf:Description xmlns:hdrgm="\#(Self.namespace)" hdrgm:Gamma="1"/>"#))
                == nil)
        // The prefix is the one bound to Adobe's namespace, not any "hdrgm:" text.
        #expect(
            GainMapMetadata(
                hdrgmXMP: Self.packet(#"<rdf:Description xmlns:hdrgm="urn:other" hdrgm:GainMapMax="2"/>"#)) == nil)
    }
}
