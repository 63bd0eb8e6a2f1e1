import Foundation
import Testing

@testable import ConvertCore

/// The readers of a PNG's colour and text chunks (issue #55), on chunks built here from the
/// PNG 3rd edition's layouts: the precedence of cICP, iCCP, sRGB and gAMA/cHRM, chunks libpng
/// would discard, and the metadata policy's treatment of text.
@Suite("PNG colour and text chunks")
struct PNGChunkTests {
    static func chunk(_ kind: String, _ body: [UInt8], breakCRC: Bool = false) -> [UInt8] {
        let typed = Array(kind.utf8) + body
        var crc = CRC32.checksum(typed)
        if breakCRC { crc ^= 1 }
        return withUnsafeBytes(of: UInt32(body.count).bigEndian, Array.init) + typed
            + withUnsafeBytes(of: crc.bigEndian, Array.init)
    }

    static func png(_ chunks: [[UInt8]]) -> [UInt8] {
        [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
            + chunk("IHDR", [0, 0, 0, 1, 0, 0, 0, 1, 8, 2, 0, 0, 0]) + chunks.joined() + chunk("IDAT", [])
            + chunk("IEND", [])
    }

    static func gama(_ value: UInt32) -> [UInt8] { chunk("gAMA", withUnsafeBytes(of: value.bigEndian, Array.init)) }

    @Test("cICP outranks iCCP, iCCP outranks sRGB, sRGB outranks gAMA")
    func precedence() {
        let cicp = Self.chunk("cICP", [12, 13, 0, 1])
        let iccp = Self.chunk("iCCP", Array("x\0\0".utf8))
        let srgb = Self.chunk("sRGB", [0])
        let p3 = NCLX(primaries: 12, transfer: 13, matrix: 0, fullRange: true)
        #expect(PNGColorChunks(Self.png([Self.gama(62500), srgb, iccp, cicp])).description == .cicp(p3))
        #expect(PNGColorChunks(Self.png([Self.gama(62500), srgb, iccp])).description == .icc)
        #expect(PNGColorChunks(Self.png([Self.gama(62500), srgb])).description == .sRGB)
        #expect(
            PNGColorChunks(Self.png([Self.gama(62500)])).description
                == .gammaAndChromaticities(gamma: 0.625, chromaticities: nil))
    }

    @Test("a gAMA of 1/2.2 alone is sRGB; a chunk with a wrong CRC, a zero gamma or a cICP with a matrix is left out")
    func discarded() {
        #expect(PNGColorChunks(Self.png([Self.gama(45455)])).description == .sRGB)
        #expect(
            PNGColorChunks(Self.png([Self.chunk("gAMA", [0, 0, 0xF4, 0x24], breakCRC: true)])).description == .sRGB)
        #expect(PNGColorChunks(Self.png([Self.gama(0)])).description == .sRGB)
        #expect(PNGColorChunks(Self.png([Self.chunk("cICP", [12, 13, 1, 1])])).cicp == nil)
    }

    @Test("the profile built from gAMA and cHRM is named for them and is an RGB profile lcms2 reads")
    func profile() throws {
        let icc = try #require(ColorProfiles.icc(gamma: 0.625, chromaticities: nil))
        #expect(ColorProfiles.describe(icc) == "PNG gAMA/cHRM (gamma 1.6)")
        #expect(ColorProfiles.channelCount(icc) == 3)
    }

    static let texts = [
        PNGText.Entry(kind: .text, keyword: "Title", text: Array("Harbour".utf8)),
        PNGText.Entry(kind: .text, keyword: "Comment", text: Array("scanner".utf8)),
        PNGText.Entry(
            kind: .internationalText, keyword: "Author", language: "de", translatedKeyword: "Autor",
            text: Array("Zoë".utf8)),
        PNGText.Entry(kind: .compressedText, keyword: "Copyright", text: [0xA9, 0x20, 0x5A]),
    ]

    @Test("text entries survive the shim's serialisation")
    func serialisation() {
        #expect(PNGText.entries(PNGText.serialised(Self.texts)) == Self.texts)
        // A keyword is Latin-1: its bytes come back as they were.
        let latin = PNGText.entries([0, 0x47, 0xE9, 0x6F, 0, 0, 0, 0x78, 0])
        #expect(latin.first?.keyword == "Géo" && PNGText.serialised(latin) == [0, 0x47, 0xE9, 0x6F, 0, 0, 0, 0x78, 0])
        #expect(Self.texts[3].string == "© Z")
    }

    @Test("the policy keeps all text, the standard keywords or none; other formats get them as dc: XMP")
    func policy() throws {
        #expect(OutputMetadata(exif: nil, xmp: nil, pngText: Self.texts, policy: .keep).pngText == Self.texts)
        let shared = OutputMetadata(exif: nil, xmp: nil, pngText: Self.texts, policy: .shareSafe)
        #expect(shared.pngText.map(\.keyword) == ["Title", "Author", "Copyright"])
        #expect(shared.notes == ["PNG text removed (Comment)"])
        #expect(OutputMetadata(exif: nil, xmp: nil, pngText: Self.texts, policy: .strip).pngText.isEmpty)
        #expect(shared.carried(by: .png).pngText == shared.pngText && shared.carried(by: .png).xmp == nil)
        let jpeg = shared.carried(by: .jpeg)
        let packet = String(decoding: try #require(jpeg.xmp), as: UTF8.self)
        #expect(jpeg.pngText.isEmpty)
        #expect(
            packet.contains("<dc:title><rdf:Alt><rdf:li xml:lang=\"x-default\">Harbour</rdf:li></rdf:Alt></dc:title>"))
        #expect(packet.contains("<dc:creator><rdf:Seq><rdf:li>Zoë</rdf:li></rdf:Seq></dc:creator>"))
        #expect(
            packet.contains("<dc:rights><rdf:Alt><rdf:li xml:lang=\"x-default\">© Z</rdf:li></rdf:Alt></dc:rights>"))
        #expect(!packet.contains("scanner"))
    }
}
