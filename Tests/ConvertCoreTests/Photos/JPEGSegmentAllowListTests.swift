import Foundation
import Testing

@testable import ConvertCore

/// Issue #54: when a JPEG's own bytes go into a shared copy, only the APP segments a viewer needs
/// stay; the rest go, named as exiftool names them. The fixture is a real FLIR thermal photo
/// (five FLIR APP1 segments beside EXIF) with segments of other kinds spliced in.
@Suite("Photos: JPEG APP segment allow-list for shared copies")
struct JPEGSegmentAllowListTests {
    /// A whole segment: marker, big-endian length, payload.
    static func segment(_ marker: UInt8, _ payload: [UInt8]) -> [UInt8] {
        [0xFF, marker, UInt8((payload.count + 2) >> 8), UInt8((payload.count + 2) & 0xFF)] + payload
    }

    /// Adobe's APP14 as libjpeg writes it: version 100, no flags, transform 1 (YCbCr).
    static let adobe = segment(0xEE, Array("Adobe".utf8) + [0, 100, 0, 0, 0, 0, 1])
    static let icc = segment(0xE2, Array("ICC_PROFILE\0".utf8) + [1, 1] + [UInt8](repeating: 7, count: 40))
    static let mpf = segment(0xE2, Array("MPF\0".utf8) + [0x49, 0x49, 0x2A, 0, 8, 0, 0, 0])
    static let iso = segment(0xE2, Array("urn:iso:std:iso:ts:21496:-1\0".utf8) + [0, 0, 0, 0])
    static let ducky = segment(0xEC, Array("Ducky".utf8) + [0, 1, 0, 4, 0, 0, 0, 80, 0, 0])
    static let jumbf = segment(0xEB, Array("JP".utf8) + [0, 1, 0, 0, 0, 1])
    static let unknown = segment(0xE9, Array("ACME\0location".utf8))
    static let comment = [0xFF, 0xFE, 0, 7] + Array("hello".utf8)

    /// The FLIR photo with every kind of segment above after its JFIF APP0.
    static func fixture() throws -> [UInt8] {
        let flir = try [UInt8](
            Data(contentsOf: Fixtures.media.appendingPathComponent("photos/location/flir-iphone-gps.jpg")))
        let extras = [adobe, icc, mpf, iso, ducky, jumbf, unknown, comment].flatMap { $0 }
        return JPEGMarkers.inserting(extras, into: flir)
    }

    @Test("keeps JFIF, ICC, MPF, ISO 21496-1, Adobe and non-APP markers; drops the rest and names it")
    func filters() throws {
        let source = try Self.fixture()
        let filtered = JPEGSegmentAllowList.filtered(source)
        let kept = JPEGMarkers.segments(filtered.jpeg).map { filtered.jpeg[$0.whole] }.map(Array.init)
        let before = JPEGMarkers.segments(source)
        #expect(before.filter { $0.marker == 0xE1 }.count == 6, "the fixture's EXIF and five FLIR segments")
        for wanted in [Self.adobe, Self.icc, Self.mpf, Self.iso, Self.comment] {
            #expect(kept.contains(wanted))
        }
        #expect(kept.first?.starts(with: [0xFF, 0xE0, 0, 16] + Array("JFIF".utf8)) == true)
        #expect(!kept.contains { [0xE1, 0xE9, 0xEB, 0xEC].contains($0[1]) })
        // The tables, the frame and the scan are the source's bytes.
        let scan = { (bytes: [UInt8]) in bytes[(JPEGMarkers.scanStart(bytes) ?? 0)...] }
        #expect(scan(filtered.jpeg) == scan(source))
        // In file order: the spliced segments sit before the FLIR ones.
        let flir = [String](repeating: "FLIR APP1", count: 5)
        #expect(filtered.removed == ["Ducky APP12", "JUMBF APP11", "APP9 (ACME)"] + flir)
        #expect(
            filtered.notes == ["8 vendor segments removed (Ducky APP12, JUMBF APP11, APP9 (ACME), 5 FLIR APP1)"])
    }

    @Test("EXIF, XMP and Photoshop go unnamed (the caller writes them again); extended XMP has a note of its own")
    func rewrittenAndExtended() {
        let exif = Self.segment(0xE1, Array("Exif\0\0".utf8) + [0x4D, 0x4D, 0, 0x2A, 0, 0, 0, 8, 0, 0])
        let xmp = Self.segment(0xE1, Array("http://ns.adobe.com/xap/1.0/\0<x/>".utf8))
        let extended = Self.segment(0xE1, Array("http://ns.adobe.com/xmp/extension/\0".utf8) + [1, 2, 3])
        let photoshop = Self.segment(0xED, Array("Photoshop 3.0\0".utf8) + Array("8BIM".utf8))
        let jpeg = [0xFF, 0xD8] + exif + xmp + extended + photoshop + [0xFF, 0xDA, 0, 2, 0xFF, 0xD9]
        let filtered = JPEGSegmentAllowList.filtered(jpeg)
        #expect(filtered.jpeg == [0xFF, 0xD8, 0xFF, 0xDA, 0, 2, 0xFF, 0xD9])
        #expect(filtered.notes == ["extended XMP removed"])
    }

    @Test("an iPhone 16's gain-map JPEG keeps JFIF, MPF, ISO 21496-1 and ICC byte for byte; Apple's APP10 goes")
    func iPhone() throws {
        let jpeg = try [UInt8](Data(contentsOf: Fixtures.media.appendingPathComponent("photos/hdr/iphone16-crop.jpg")))
        let filtered = JPEGSegmentAllowList.filtered(jpeg)
        #expect(filtered.removed == ["APP10 (AROT)"])
        #expect(filtered.jpeg == JPEGMarkers.removing(markers: [0xE1, 0xEA], from: jpeg))
        let kept = JPEGMarkers.removing(markers: [0xE1, 0xED, 0xEA], from: jpeg)
        #expect(JPEGSegmentAllowList.filtered(kept) == .init(jpeg: kept))
    }

    @Test(
        "names follow exiftool's JPEG table",
        arguments: [
            (UInt8(0xE0), "JFXX\0\u{10}", "JFXX APP0"), (0xE2, "FPXR\0", "FPXR APP2"), (0xE3, "META\0\0", "Meta APP3"),
            (0xE5, "RMETA\0", "RMETA APP5"), (0xE6, "GoPro\0", "GoPro APP6"), (0xE7, "HUAWEI\0\0", "Huawei APP7"),
            (0xEC, "[picture info]\r\nType=1", "PictureInfo APP12"), (0xED, "Adobe_CM", "Adobe_CM APP13"),
            (0xEE, "Photo", "APP14 (Photo)"), (0xE4, "\u{1}\u{2}", "APP4"), (0xEF, "Q 80", "GraphicConverter APP15"),
        ])
    func names(marker: UInt8, payload: String, name: String) {
        #expect(JPEGSegmentAllowList.decision(marker: marker, payload: Array(payload.utf8)[...]) == .remove(name))
    }
}
