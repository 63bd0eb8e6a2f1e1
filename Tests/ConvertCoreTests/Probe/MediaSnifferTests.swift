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
        // Junk between SOI and the first marker, as djpeg reads it ("extraneous bytes"); SOI
        // followed by no header marker within the window is not a JPEG.
        ([0xFF, 0xD8, 0x00, 0x12, 0x34, 0xFF, 0xE0, 0, 16], .image(.jpeg)),
        ([0xFF, 0xD8, 0x00, 0x00, 0xFF, 0xFF, 0xDB, 0, 67], .image(.jpeg)),
        ([0xFF, 0xD8] + [UInt8](repeating: 0x20, count: 40) + [0xFF, 0xE0], .other),
        ([0xFF, 0xD8, 0x00, 0xFF, 0xD9], .other),
        // OS/2: a 16-byte BITMAPINFOHEADER2, and a bitmap array holding a BMP.
        (Array("BM".utf8) + [0x36, 0x10, 0, 0, 0, 0, 0, 0, 0x1E, 0, 0, 0, 16, 0, 0, 0], .image(.bmp)),
        (
            Array("BA".utf8) + [40, 0, 0, 0] + [UInt8](repeating: 0, count: 8) + Array("BM".utf8)
                + [UInt8](repeating: 0, count: 12) + [12, 0, 0, 0], .image(.bmp)
        ),
        // A still format offconvert names but does not read, then those its own small readers take.
        ([0x0A, 0x05, 0x01, 0x08, 0, 0, 0, 0], .foreignImage(.pcx)),
        (Array("8BPS".utf8) + [0, 1, 0, 0], .image(.psd)),
        ([0, 0, 0, 0x0C, 0x6A, 0x50, 0x20, 0x20, 0x0D, 0x0A, 0x87, 0x0A], .image(.jp2)),
        ([0xFF, 0x4F, 0xFF, 0x51, 0, 0x2F], .image(.j2k)),
        ([0, 0, 1, 0, 1, 0, 64, 64, 0, 0, 1, 0, 32, 0], .image(.ico)),
        ([0, 0, 2, 0, 1, 0, 32, 32, 0, 0, 4, 0, 4, 0], .image(.cur)),
        (Array("P6\n64 48\n255\n".utf8), .image(.ppm)),
        (Array("P5\n# GIMP\n64 48\n".utf8), .image(.pgm)),
        (Array("P7\nWIDTH 64\n".utf8), .image(.pam)),
        (Array("P1 meeting notes".utf8), .other),
        ([0, 0, 1, 0xB3, 0x14, 0, 0xF0, 0x13], .other),
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
