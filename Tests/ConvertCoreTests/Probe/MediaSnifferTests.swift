import Testing

@testable import ConvertCore
@testable import ConvertMedia

@Suite("Media sniffer")
struct MediaSnifferTests {
    typealias B = BoxBytes

    static func ftyp(_ major: String, _ compatible: [String]) -> [UInt8] {
        B.box("ftyp", B.code(major) + B.u32(0) + compatible.flatMap(B.code))
    }

    typealias Row = (head: [UInt8], expected: MediaSniffer.Kind)

    static let rows: [Row] = [
        ([0xFF, 0xD8, 0xFF, 0xE1], .image(.jpeg)),
        ([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A], .image(.png)),
        (Array("GIF89a".utf8), .image(.gif)),
        (Array("RIFF".utf8) + [0, 0, 0, 0] + Array("WEBPVP8 ".utf8), .image(.webp)),
        (Array("RIFF".utf8) + [0, 0, 0, 0] + Array("AVI LIST".utf8), .other),
        (ftyp("heic", ["mif1", "heic"]), .image(.heic)),
        (ftyp("mif1", ["mif1", "heic"]), .image(.heic)),
        (ftyp("mif1", ["mif1", "avif"]), .image(.avif)),
        (ftyp("mif1", ["mif1"]), .image(.heif)),
        (ftyp("avif", ["avif", "mif1"]), .image(.avif)),
        (ftyp("MiHE", ["MiHE", "heic"]), .image(.heic)),
        (ftyp("miaf", ["miaf", "avif"]), .image(.avif)),
        (ftyp("isom", ["isom", "avc1"]), .isoMedia(brand: "isom")),
        (ftyp("qt  ", ["qt  "]), .isoMedia(brand: "qt  ")),
        (B.box("wide", []) + B.header("mdat", size: 100), .isoMedia(brand: nil)),
        ([0x1A, 0x45, 0xDF, 0xA3, 0x9F, 0x42, 0x82, 0x84] + Array("webm".utf8), .matroska(isWebM: true)),
        ([0x1A, 0x45, 0xDF, 0xA3, 0x9F, 0x42, 0x82, 0x88] + Array("matroska".utf8), .matroska(isWebM: false)),
        (Array("BM".utf8) + [0x36, 0x10, 0, 0, 0, 0, 0, 0, 0x36, 0, 0, 0, 40, 0, 0, 0], .image(.bmp)),
        (Array("BM".utf8) + [0x36, 0x10, 0, 0, 0, 0, 0, 0, 0x36, 0, 0, 0, 124, 0, 0, 0], .image(.bmp)),
        (Array("BMW is a car maker".utf8), .other),
        ([0x49, 0x49, 0x2A, 0, 8, 0, 0, 0], .image(.tiff)),
        ([0x4D, 0x4D, 0, 0x2A, 0, 0, 0, 8], .image(.tiff)),
        ([0x49, 0x49, 0x2B, 0, 8, 0, 0, 0], .image(.tiff)),
        ([0x4D, 0x4D, 0, 0x2B, 0, 8, 0, 0], .image(.tiff)),
        (Array("hello, world".utf8), .other),
        ([0, 0], .other),
    ]

    @Test("identifies files by their first bytes", arguments: 0..<rows.count)
    func kinds(row: Int) {
        #expect(MediaSniffer.kind(of: Self.rows[row].head) == Self.rows[row].expected)
    }

    @Test("a plain HEIF is decoded as a HEIC; a movie is no photo")
    func photoFormats() {
        #expect(MediaSniffer.kind(of: Self.ftyp("mif1", ["mif1"])).photoFormat == .heic)
        #expect(MediaSniffer.kind(of: Self.ftyp("mif1", ["mif1"])).isHEIF)
        #expect(MediaSniffer.kind(of: Self.ftyp("isom", ["isom", "avc1"])).photoFormat == nil)
        #expect(!MediaSniffer.kind(of: Self.ftyp("isom", ["isom", "avc1"])).isHEIF)
        #expect(MediaSniffer.kind(of: [0xFF, 0xD8, 0xFF, 0xE0]).photoFormat == .jpeg)
    }
}
