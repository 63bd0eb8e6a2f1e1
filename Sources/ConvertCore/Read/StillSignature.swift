/// The signatures of the still formats read by offconvert's own small readers (PSD, JPEG 2000,
/// ICO/CUR, Netpbm, TGA): a file's first bytes, or for a TGA, which has no magic number, its
/// 2.0 footer or a plausible header under a TGA name.
enum StillSignature {
    /// The format named by the first bytes `head` of a file, when it is one of these (TGA aside).
    static func format(head: [UInt8]) -> ImageFormat? {
        func starts(_ magic: [UInt8], at offset: Int = 0) -> Bool {
            head.count >= offset + magic.count && head[offset..<offset + magic.count].elementsEqual(magic)
        }
        func u16(_ at: Int) -> Int { head.count >= at + 2 ? Int(head[at]) | Int(head[at + 1]) << 8 : -1 }
        // PSD (version 1) and PSB (version 2, large documents).
        if starts(Array("8BPS".utf8)), starts([0, 1], at: 4) || starts([0, 2], at: 4) { return .psd }
        // The JP2 signature box, or a bare J2K codestream's SOC and SIZ markers.
        if starts([0, 0, 0, 0x0C, 0x6A, 0x50, 0x20, 0x20, 0x0D, 0x0A, 0x87, 0x0A]) { return .jp2 }
        if starts([0xFF, 0x4F, 0xFF, 0x51]) { return .j2k }
        // ICO/CUR: reserved 0, type 1 or 2, an image count, and a first entry whose reserved
        // byte is 0 and whose pixel depth an icon has (MPEG's picture start code is 00 00 01 00
        // too, but its next bytes are not those).
        if starts([0, 0]), head.count >= 14, head[3] == 0, head[2] == 1 || head[2] == 2, (1...512).contains(u16(4)),
            head[9] == 0
        {
            if head[2] == 2 { return .cur }
            if [0, 1].contains(u16(10)), [0, 1, 2, 4, 8, 16, 24, 32].contains(u16(12)) { return .ico }
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

    /// The extensions a TGA goes by (Truevision's own: .icb, .vda, .vst).
    static let tgaExtensions: Set<String> = ["tga", "icb", "vda", "vst"]

    /// Whether the file named `path`, whose first bytes are `head` and last bytes `tail`, is a
    /// TGA: TGA 2.0's footer ("TRUEVISION-XFILE." and a NUL in its last 18 bytes) says so; a file
    /// without it (most TGAs) is one when its name says TGA and its header is one TGA allows.
    static func isTGA(head: [UInt8], tail: [UInt8]?, path: String) -> Bool {
        let footer = Array("TRUEVISION-XFILE.".utf8) + [0]
        if let tail, tail.count >= footer.count, tail.suffix(footer.count).elementsEqual(footer),
            TGADecoder.plausibleHeader(head)
        {
            return true
        }
        let name = PathText.lastComponent(path)
        return tgaExtensions.contains(PathText.fileExtension(name).lowercased()) && TGADecoder.plausibleHeader(head)
    }
}
