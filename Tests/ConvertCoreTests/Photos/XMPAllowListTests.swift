import Foundation
import Testing

@testable import ConvertCore

/// Issue #54: a shared copy keeps the XMP namespaces it needs and drops the rest, whatever they
/// are called; the output is checked well-formed by Python's XML parser, not by our own.
@Suite("Photos: XMP allow-list for shared copies")
struct XMPAllowListTests {
    /// A Sony Ericsson phone's packet: one description, attribute form, the cell-tower codes as
    /// exiftool names them (MobileCountryCode 460, LocationAreaCode 4236, CellTowerID 50280,
    /// CellGlobalID 460-0-4236-50280) next to camera and date properties; and an unknown vendor.
    static let sonyEricsson = """
        <?xpacket begin="\u{FEFF}" id="W5M0MpCehiHzreSzNTczkc9d"?>
        <x:xmpmeta xmlns:x="adobe:ns:meta/" x:xmptk="XMP Core 4.4.0">
         <rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
          <rdf:Description rdf:about=""
            xmlns:cell="http://developer.sonyericsson.com/cell/1.0/"
            xmlns:tiff="http://ns.adobe.com/tiff/1.0/"
            xmlns:xmp="http://ns.adobe.com/xap/1.0/"
            xmlns:acme="http://example.com/acme/1.0/"
           cell:mcc="460" cell:lac="4236" cell:cellid="50280" cell:cgi="460-0-4236-50280"
           tiff:Make="Sony Ericsson" xmp:CreateDate="2010-05-01T12:00:00" acme:SiteCode="X"/>
         </rdf:RDF>
        </x:xmpmeta>
        \(String(repeating: " ", count: 200))
        <?xpacket end="w"?>
        """

    /// A museum's packet as exiftool writes Darwin Core: one description per namespace, element
    /// form, the location terms in a `dwc:dctermsLocation` structure.
    static let museum = """
        <?xpacket begin='\u{FEFF}' id='W5M0MpCehiHzreSzNTczkc9d'?>
        <x:xmpmeta xmlns:x='adobe:ns:meta/' x:xmptk='Image::ExifTool 12.57'>
        <rdf:RDF xmlns:rdf='http://www.w3.org/1999/02/22-rdf-syntax-ns#'>

         <rdf:Description rdf:about=''
          xmlns:dc='http://purl.org/dc/elements/1.1/'>
          <dc:creator>
           <rdf:Seq>
            <rdf:li>Ann Curator</rdf:li>
           </rdf:Seq>
          </dc:creator>
          <dc:title>
           <rdf:Alt>
            <rdf:li xml:lang='x-default'>Specimen 1042</rdf:li>
           </rdf:Alt>
          </dc:title>
         </rdf:Description>

         <rdf:Description rdf:about=''
          xmlns:dwc='http://rs.tdwg.org/dwc/index.htm'>
          <dwc:dctermsLocation rdf:parseType='Resource'>
           <dwc:country>Australia</dwc:country>
           <dwc:county>Lake Grace</dwc:county>
           <dwc:locality>Dunn Rock Nature Reserve</dwc:locality>
           <dwc:stateProvince>Western Australia</dwc:stateProvince>
           <dwc:verbatimCoordinates>41 05 54S 121 05 34W</dwc:verbatimCoordinates>
          </dwc:dctermsLocation>
         </rdf:Description>

         <rdf:Description rdf:about=''
          xmlns:xmp='http://ns.adobe.com/xap/1.0/'>
          <xmp:Rating>4</xmp:Rating>
         </rdf:Description>
        </rdf:RDF>
        </x:xmpmeta>
        <?xpacket end='w'?>
        """

    static func text(_ packet: [UInt8]?) -> String { String(decoding: packet ?? [], as: UTF8.self) }

    /// Whether Python's XML parser (expat, namespace-aware) accepts `packet`.
    static func wellFormed(_ packet: [UInt8]) throws -> Bool {
        let folder = try Fixtures.temporaryDirectory("xmp-allow")
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("p.xmp")
        try Data(packet).write(to: file)
        let script = """
            import sys, xml.dom.minidom, xml.sax
            xml.dom.minidom.parse(sys.argv[1])
            parser = xml.sax.make_parser(); parser.setFeature(xml.sax.handler.feature_namespaces, True)
            parser.parse(sys.argv[1])
            """
        return try PhotoReference.run("python3", ["-c", script, file.path]).status == 0
    }

    @Test(
        "unknown namespaces go whole, with their declarations; allowed properties stay; the note names them",
        .enabled(if: PhotoReference.has("python3")))
    func removesUnknown() throws {
        let sony = XMPAllowList.filtered(Array(Self.sonyEricsson.utf8), keepLocation: false)
        let kept = Self.text(sony.packet)
        for gone in ["cell:", "acme:", "sonyericsson", "example.com", "460", "SiteCode"] {
            #expect(!kept.contains(gone), "\(gone) in \(kept)")
        }
        #expect(kept.contains("tiff:Make=\"Sony Ericsson\"") && kept.contains("xmp:CreateDate=\"2010-05-01T12:00:00\""))
        // The packet's padding and wrapper are the source's.
        #expect(kept.contains(String(repeating: " ", count: 200) + "\n<?xpacket end=\"w\"?>"))
        #expect(sony.notes == ["XMP: 2 namespaces removed (acme, cell)"])
        #expect(try Self.wellFormed(try #require(sony.packet)))

        let museum = XMPAllowList.filtered(Array(Self.museum.utf8), keepLocation: false)
        let left = Self.text(museum.packet)
        #expect(!left.contains("dwc") && !left.contains("41 05 54S") && !left.contains("Dunn Rock"), "\(left)")
        #expect(left.contains("Specimen 1042") && left.contains("Ann Curator") && left.contains("<xmp:Rating>4"))
        // The description that held only Darwin Core goes with it: three became two.
        #expect(left.components(separatedBy: "<rdf:Description").count == 3)
        #expect(museum.notes == ["XMP: 1 namespace removed (dwc)"])
        #expect(try Self.wellFormed(try #require(museum.packet)))
    }

    @Test("with the location kept, the location terms of cell: and dwc: stay; the unknown vendor still goes")
    func keepLocation() throws {
        let sony = XMPAllowList.filtered(Array(Self.sonyEricsson.utf8), keepLocation: true)
        let kept = Self.text(sony.packet)
        #expect(kept.contains("cell:cgi=\"460-0-4236-50280\"") && kept.contains("xmlns:cell="))
        #expect(!kept.contains("acme"))
        #expect(sony.notes == ["XMP: 1 namespace removed (acme)"])
        let museum = XMPAllowList.filtered(Array(Self.museum.utf8), keepLocation: true)
        #expect(Self.text(museum.packet).contains("41 05 54S 121 05 34W"))
        #expect(museum.notes.isEmpty)
        #expect(museum.packet == Array(Self.museum.utf8))
    }

    @Test(
        "a packet with nothing to remove is returned byte for byte, gain-map, motion and photo-sphere declarations included"
    )
    func untouched() {
        let packet = Array(
            """
            <x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">\
            <rdf:Description rdf:about="" xmlns:hdrgm="http://ns.adobe.com/hdr-gain-map/1.0/" \
            xmlns:GContainer="http://ns.google.com/photos/1.0/container/" \
            xmlns:Item="http://ns.google.com/photos/1.0/container/item/" \
            xmlns:GCamera="http://ns.google.com/photos/1.0/camera/" \
            xmlns:HDRGainMap="http://ns.apple.com/HDRGainMap/1.0/" xmlns:xmpMM="http://ns.adobe.com/xap/1.0/mm/" \
            xmlns:stEvt="http://ns.adobe.com/xap/1.0/sType/ResourceEvent#" \
            xmlns:GPano="http://ns.google.com/photos/1.0/panorama/" GPano:ProjectionType="equirectangular" \
            hdrgm:Version="1.0" GCamera:MotionPhoto="1" HDRGainMap:HDRGainMapVersion="65536">\
            <GContainer:Directory><rdf:Seq><rdf:li rdf:parseType="Resource">\
            <GContainer:Item Item:Semantic="Primary" Item:Mime="image/jpeg"/></rdf:li></rdf:Seq></GContainer:Directory>\
            <xmpMM:History><rdf:Seq><rdf:li stEvt:action="saved" stEvt:when="2024-01-01"/></rdf:Seq></xmpMM:History>\
            </rdf:Description></rdf:RDF></x:xmpmeta>
            """.utf8)
        let filtered = XMPAllowList.filtered(packet, keepLocation: false)
        #expect(filtered.packet == packet)
        #expect(filtered.notes.isEmpty)
    }

    @Test(
        "every RDF form of an unknown property goes: element, empty element, parseType, typed node, default namespace",
        .enabled(if: PhotoReference.has("python3")))
    func forms() throws {
        let packet = Array(
            """
            <x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
            <rdf:Description rdf:about="" xmlns:dc="http://purl.org/dc/elements/1.1/" \
            xmlns:v="http://vendor.example/1/" v:a='x>y' dc:format="image/jpeg">
             <v:b/>
             <v:c rdf:parseType="Resource"><v:c><v:c>nested</v:c></v:c></v:c>
             <v:d xmlns:w="http://other.example/"><w:e>deep</w:e></v:d>
             <!-- a comment -->
             <dc:description><rdf:Alt><rdf:li xml:lang="x-default">kept</rdf:li></rdf:Alt></dc:description>
            </rdf:Description>
            <v:Thing rdf:about="" xmlns:v="http://vendor.example/1/" v:f="1"/>
            <rdf:Description rdf:about="" xmlns="http://default.example/"><g>default</g></rdf:Description>
            <rdf:Description rdf:about="" xmlns:xmp="http://ns.adobe.com/xap/1.0/" \
            xmlns:xmpGImg="http://ns.adobe.com/xap/1.0/g/img/" xmp:Rating="3">\
            <xmp:Thumbnails><rdf:Alt><rdf:li rdf:parseType="Resource"><xmpGImg:image>/9j/4AAQ</xmpGImg:image>\
            </rdf:li></rdf:Alt></xmp:Thumbnails></rdf:Description>
            </rdf:RDF></x:xmpmeta>
            """.utf8)
        let filtered = XMPAllowList.filtered(packet, keepLocation: false)
        let text = Self.text(filtered.packet)
        for gone in [
            "v:", "vendor.example", "x>y", "nested", "deep", "other.example", "comment", "default.example",
            ">default<", "Thumbnails", "xmpGImg", "/9j/",
        ] {
            #expect(!text.contains(gone), "\(gone) in \(text)")
        }
        #expect(
            text.contains("dc:format=\"image/jpeg\"") && text.contains(">kept<") && text.contains("xmp:Rating=\"3\""))
        // A default namespace has no prefix: the note names its URI.
        #expect(
            filtered.notes == ["XMP: 2 namespaces removed (http://default.example/, v)", "XMP thumbnail removed"])
        #expect(try Self.wellFormed(try #require(filtered.packet)))
    }

    @Test(
        "hostile packets finish quickly and come out well-formed or not at all",
        .enabled(if: PhotoReference.has("python3")))
    func hostile() throws {
        let head = """
            <x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">\
            <rdf:Description rdf:about="" xmlns:v="http://vendor.example/" xmlns:dc="http://purl.org/dc/elements/1.1/">
            """
        let tail = "</rdf:Description></rdf:RDF></x:xmpmeta>"
        let dropped: [(String, String)] = [
            ("unclosed tags", head + String(repeating: "<v:a>", count: 20000) + tail),
            ("unclosed description", String(head.dropLast(0)) + "<dc:title>t</dc:title>"),
            ("mismatched end", head + "<v:a></v:b>" + tail),
            ("nesting deeper than any packet", head + String(repeating: "<dc:x>", count: 5000) + tail),
            ("a < in a value", head.replacingOccurrences(of: "rdf:about=\"\"", with: "rdf:about=\"<\"") + tail),
            ("an unbound prefix", head + "<q:a>1</q:a>" + tail),
            ("no namespaces at all", "<x:xmpmeta><exif:GPSLatitude>1</exif:GPSLatitude></x:xmpmeta>"),
            ("a DOCTYPE", "<!DOCTYPE x [<!ENTITY a \"aaaa\">]>" + head + "<dc:t>&a;</dc:t>" + tail),
            ("an unknown entity", head + "<dc:t>&a;</dc:t>" + tail),
            (
                "duplicate attributes",
                head.replacingOccurrences(of: "rdf:about=\"\"", with: "v:a=\"1\" v:a=\"2\"") + tail
            ),
            ("text among properties", head + "secret" + tail),
            (
                "an attribute without quotes",
                head.replacingOccurrences(of: "rdf:about=\"\"", with: "rdf:about=x") + tail
            ),
            ("a tag cut off", head + "<v:a v:b=\"1"),
            ("not UTF-8", head + "<dc:t>\u{FFFD}</dc:t>" + tail),
        ]
        for (label, packet) in dropped {
            var bytes = Array(packet.utf8)
            if label == "not UTF-8" { bytes += [0xC3, 0x28] }
            let filtered = XMPAllowList.filtered(bytes, keepLocation: false)
            #expect(filtered.packet == nil, "\(label): \(Self.text(filtered.packet))")
            #expect(filtered.notes == ["unreadable XMP dropped"], "\(label)")
        }
        // Well-formed but huge or odd: edited, and still well-formed.
        let edited: [(String, String, String)] = [
            (
                "a '>' inside values",
                head.replacingOccurrences(of: "rdf:about=\"\"", with: "rdf:about=\"\" dc:t=\"a>b\" v:q='>'") + tail,
                "a>b"
            ),
            (
                "nested same-name elements",
                head + "<v:a><v:a><v:a>x</v:a></v:a></v:a><dc:t><v:a>in a kept value</v:a></dc:t>" + tail,
                "in a kept value"
            ),
            (
                "20 000 unknown properties",
                head + String(repeating: "<v:a/>", count: 20000) + "<dc:t>k</dc:t>" + tail, "k"
            ),
            (
                "20 000 unknown attributes on one description",
                head.replacingOccurrences(
                    of: "rdf:about=\"\"",
                    with: (0..<20000).map { "v:a\($0)=\"1\"" }.joined(separator: " ") + " dc:t=\"k\"") + tail,
                "dc:t=\"k\""
            ),
        ]
        for (label, packet, kept) in edited {
            let filtered = XMPAllowList.filtered(Array(packet.utf8), keepLocation: false)
            let output = try #require(filtered.packet, "\(label)")
            #expect(Self.text(output).contains(kept), "\(label)")
            #expect(try Self.wellFormed(output), "\(label)")
            #expect(filtered.notes == ["XMP: 1 namespace removed (v)"], "\(label)")
        }
        // A hostile prefix is cut short in the note.
        let long = String(repeating: "p", count: 5000)
        let named = XMPAllowList.filtered(
            Array((head + "<\(long):a xmlns:\(long)=\"u:\">1</\(long):a>" + tail).utf8), keepLocation: false)
        #expect(named.notes == ["XMP: 1 namespace removed (\(String(repeating: "p", count: 24))…)"])
    }

    @Test("the work is linear in the packet: 4N unknown properties or unclosed tags cost about 4 times N")
    func scaling() {
        let head = """
            <x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">\
            <rdf:Description rdf:about="" xmlns:v="http://vendor.example/" v:k="1" \
            xmlns:dc="http://purl.org/dc/elements/1.1/">
            """
        let tail = "<dc:t>k</dc:t></rdf:Description></rdf:RDF></x:xmpmeta>"
        let shapes: [(String, (Int) -> String)] = [
            ("elements", { head + String(repeating: "<v:a><v:b>x</v:b></v:a>", count: $0) + tail }),
            (
                "attributes",
                { count in
                    let attributes = (0..<count).map { "v:a\($0)='>'" }.joined(separator: " ")
                    return head.replacingOccurrences(of: "v:k=\"1\"", with: attributes) + tail
                }
            ),
            ("unclosed at the end", { head + String(repeating: "<v:a/>", count: $0) + "<dc:t>" }),
        ]
        for (label, make) in shapes {
            // As HostileRegressionTests does: the best of three in this thread's CPU time, so a
            // loaded machine's preemption is not counted; linear work gives about 4, quadratic 16.
            func best(_ count: Int) -> Duration {
                let input = Array(make(count).utf8)
                return (0..<3).map { _ in
                    let started = cpuTime()
                    _ = XMPAllowList.filtered(input, keepLocation: true)
                    return cpuTime() - started
                }.min() ?? .zero
            }
            let (small, large) = (best(2500), best(10000))
            #expect(large < small * 9, "\(label): 4N took \(large), N took \(small)")
        }
    }

    @Test("shared copies filter by the allow-list and say so; --keep-metadata keeps it all; strip drops it")
    func policies() {
        let packet = Array(Self.sonyEricsson.utf8)
        let shared = OutputMetadata(exif: nil, xmp: packet, policy: .shareSafe)
        #expect(!Self.text(shared.xmp).contains("acme") && !Self.text(shared.xmp).contains("cell"))
        #expect(shared.notes == ["location removed", "XMP: 2 namespaces removed (acme, cell)"])
        let located = OutputMetadata(exif: nil, xmp: packet, policy: .keepLocation)
        #expect(Self.text(located.xmp).contains("cell:mcc=\"460\"") && !Self.text(located.xmp).contains("acme"))
        #expect(located.notes == ["location kept", "XMP: 1 namespace removed (acme)"])
        let kept = OutputMetadata(exif: nil, xmp: packet, policy: .keep)
        #expect(Self.text(kept.xmp).contains("acme:SiteCode=\"X\"") && Self.text(kept.xmp).contains("cell:mcc"))
        #expect(OutputMetadata(exif: nil, xmp: packet, policy: .strip).xmp == nil)
        let unreadable = OutputMetadata(exif: nil, xmp: Array("<x:xmpmeta>".utf8), policy: .shareSafe)
        #expect(unreadable.xmp == nil && unreadable.notes == ["unreadable XMP dropped"])
    }
}

/// The CPU time the calling thread has used.
private func cpuTime() -> Duration {
    var now = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now)
    return .seconds(now.tv_sec) + .nanoseconds(now.tv_nsec)
}
