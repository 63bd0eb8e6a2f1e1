/// A still-image format offconvert recognises by its first (or, for TGA, last) bytes but does
/// not read: PCX, PSD, JPEG 2000, TGA, ICO/CUR, PNM. Naming it lets an error say what the file
/// is ("lena.pcx is PCX, which offconvert does not read") instead of calling it unknown, and
/// keeps `info` and the batch triage from handing a still picture to FFmpeg as a video.
package struct ForeignImageFormat: Hashable, Sendable, CustomStringConvertible {
    /// The short id `info` prints (`pcx`, `psd`, `jp2`, ...).
    package let id: String
    /// The name an error message gives it ("PCX", "JPEG 2000").
    package let name: String
    /// The readable name `info` shows ("PCX image", "Windows icon").
    package let formatName: String

    private init(id: String, name: String, formatName: String? = nil) {
        self.id = id
        self.name = name
        self.formatName = formatName ?? "\(name) image"
    }

    package var description: String { id }

    package static let pcx = ForeignImageFormat(id: "pcx", name: "PCX")
    package static let psd = ForeignImageFormat(
        id: "psd", name: "PSD (a Photoshop document)", formatName: "Photoshop document")
    package static let jpeg2000 = ForeignImageFormat(id: "jp2", name: "JPEG 2000")
    package static let tga = ForeignImageFormat(id: "tga", name: "TGA")
    package static let icon = ForeignImageFormat(id: "ico", name: "ICO (a Windows icon)", formatName: "Windows icon")
    package static let cursor = ForeignImageFormat(
        id: "cur", name: "CUR (a Windows cursor)", formatName: "Windows cursor")
    package static let pbm = ForeignImageFormat(id: "pbm", name: "PBM")
    package static let pgm = ForeignImageFormat(id: "pgm", name: "PGM")
    package static let ppm = ForeignImageFormat(id: "ppm", name: "PPM")
    package static let pam = ForeignImageFormat(id: "pam", name: "PAM")

    /// The format named by the first bytes `head` of a file, when it is one of these.
    static func of(head: [UInt8]) -> ForeignImageFormat? {
        func starts(_ magic: [UInt8], at offset: Int = 0) -> Bool {
            head.count >= offset + magic.count && head[offset..<offset + magic.count].elementsEqual(magic)
        }
        func u16(_ at: Int) -> Int { head.count >= at + 2 ? Int(head[at]) | Int(head[at + 1]) << 8 : -1 }
        // PSD (version 1) and PSB (version 2, large documents).
        if starts(Array("8BPS".utf8)), starts([0, 1], at: 4) || starts([0, 2], at: 4) { return .psd }
        // The JP2 signature box, or a bare J2K codestream's SOC and SIZ markers.
        if starts([0, 0, 0, 0x0C, 0x6A, 0x50, 0x20, 0x20, 0x0D, 0x0A, 0x87, 0x0A]) || starts([0xFF, 0x4F, 0xFF, 0x51]) {
            return .jpeg2000
        }
        // PCX: manufacturer 10, a known version, RLE or none, and a pixel depth PCX has.
        if head.count >= 4, head[0] == 0x0A, [0, 2, 3, 4, 5].contains(head[1]), head[2] <= 1,
            [1, 2, 4, 8].contains(head[3])
        {
            return .pcx
        }
        // ICO/CUR: reserved 0, type 1 or 2, an image count, and a first entry whose reserved
        // byte is 0 and whose pixel depth an icon has (MPEG's picture start code is 00 00 01 00
        // too, but its next bytes are not those).
        if starts([0, 0]), head.count >= 14, head[3] == 0, head[2] == 1 || head[2] == 2, (1...512).contains(u16(4)),
            head[9] == 0
        {
            if head[2] == 2 { return .cursor }
            if [0, 1].contains(u16(10)), [0, 1, 2, 4, 8, 16, 24, 32].contains(u16(12)) { return .icon }
        }
        // Netpbm: "P1" to "P7", whitespace and comments, then the width's first digit (a PAM:
        // its first header line's keyword), so a text starting "P1 " is not taken for one.
        if head.count >= 3, head[0] == 0x50, (0x31...0x37).contains(head[1]),
            [0x20, 0x09, 0x0A, 0x0D, 0x23].contains(head[2]), netpbmHeaderFollows(head)
        {
            switch head[1] {
            case 0x31, 0x34: return .pbm
            case 0x32, 0x35: return .pgm
            case 0x33, 0x36: return .ppm
            default: return .pam
            }
        }
        return nil
    }

    /// Whether the bytes after a Netpbm magic number (whitespace and `#` comments skipped)
    /// start the width (a digit) or, for a PAM, a header keyword (a capital letter).
    private static func netpbmHeaderFollows(_ head: [UInt8]) -> Bool {
        var index = 2
        while index < head.count {
            let byte = head[index]
            if byte == 0x23 {
                while index < head.count, head[index] != 0x0A, head[index] != 0x0D { index += 1 }
            } else if [0x20, 0x09, 0x0A, 0x0D].contains(byte) {
                index += 1
            } else {
                return head[1] == 0x37 ? (0x41...0x5A).contains(byte) : (0x30...0x39).contains(byte)
            }
        }
        return false
    }

    /// The format named by the last bytes `tail` of a file: TGA 2.0's footer,
    /// "TRUEVISION-XFILE." and a NUL, in its last 18 bytes.
    static func of(tail: [UInt8]) -> ForeignImageFormat? {
        let footer = Array("TRUEVISION-XFILE.".utf8) + [0]
        return tail.count >= footer.count && tail.suffix(footer.count).elementsEqual(footer) ? .tga : nil
    }
}

extension ConvertError {
    /// The error for a still image in `format`, which offconvert names but does not read.
    package static func foreignImage(_ format: ForeignImageFormat, path: String) -> ConvertError {
        ConvertError(
            code: .unsupportedImageFormat, message: "\(path) is \(format.name), which offconvert does not read.",
            path: path)
    }
}
