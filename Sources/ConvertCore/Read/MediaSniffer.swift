import FoundationEssentials

/// Identifies a file by its first bytes, never by its name: a JPEG called `.heic` is a JPEG. The
/// one sniffer: the batch triage, the photo decoder, the probe and the motion/Live readers all ask it.
package enum MediaSniffer {
    /// What the first bytes say.
    package enum Kind: Equatable, Sendable {
        /// A still image (or a HEIF image sequence).
        case image(ImageFormat)
        /// An ISO base media file (MP4, MOV, 3GP...) that is not a still image, with its `ftyp`
        /// major brand (nil for an old QuickTime movie without `ftyp`).
        case isoMedia(brand: FourCC?)
        /// An EBML (Matroska) file; `isWebM` when its DocType is `webm`.
        case matroska(isWebM: Bool)
        /// A still image in a format offconvert names but does not read (PCX): a photo to every
        /// caller, refused by the decoder with its name.
        case foreignImage(ForeignImageFormat)
        /// Anything else: left to FFmpeg's probing.
        case other

        /// The photo format the engine decodes it as; nil when it is not a still image.
        package var photoFormat: PhotoFormat? {
            if case .image(let format) = self { format.photoFormat } else { nil }
        }

        /// Whether it is a HEIF item file (HEIC, HEIF, AVIF).
        var isHEIF: Bool {
            if case .image(let format) = self { format.isHEIF } else { false }
        }
    }

    /// The short ids of image formats (``MediaInfo/format``).
    package static let imageFormats: Set<String> = Set(ImageFormat.all.map(\.id))

    /// Brands of an `ftyp` that make the file a HEIF/AVIF still image (or image sequence): a
    /// coding brand as the major brand decides; a structural one (`mif1`, `msf1`, `mif2`, `miaf`,
    /// `MiHE`) looks at the compatible brands for the coding.
    private static let heicBrands: Set<FourCC> = ["heic", "heix", "heim", "heis", "hevc", "hevx"]
    private static let avifBrands: Set<FourCC> = ["avif", "avis"]
    private static let heifBrands: Set<FourCC> = ["mif1", "msf1", "mif2", "miaf", "MiHE"]

    /// Top-level box types that start an ISO file without an `ftyp` (old QuickTime movies).
    private static let quickTimeStarts: Set<FourCC> = ["moov", "mdat", "wide", "free", "skip", "pnot"]

    /// Classifies `head`, the first bytes of a file (64 or more when the file has them; 12 are
    /// enough for a HEIF's major brand).
    package static func kind(of head: [UInt8]) -> Kind {
        func starts(_ magic: [UInt8], at offset: Int = 0) -> Bool {
            head.count >= offset + magic.count && Array(head[offset..<offset + magic.count]) == magic
        }
        if starts([0xFF, 0xD8]), startsJPEGSegment(head) { return .image(.jpeg) }
        if starts([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return .image(.png) }
        if starts(Array("GIF87a".utf8)) || starts(Array("GIF89a".utf8)) { return .image(.gif) }
        if starts(Array("RIFF".utf8)) && starts(Array("WEBP".utf8), at: 8) { return .image(.webp) }
        // TIFF's byte order mark and 42 (43 for BigTIFF) in that order.
        if starts([0x49, 0x49, 0x2A, 0]) || starts([0x4D, 0x4D, 0, 0x2A]) || starts([0x49, 0x49, 0x2B, 0])
            || starts([0x4D, 0x4D, 0, 0x2B])
        {
            return .image(.tiff)
        }
        // "BM" alone is two bytes any file may start with: the info header's size must be one
        // a bitmap has too.
        if starts(Array("BM".utf8)), head.count >= 18,
            BMPDecoder.infoHeaderSizes.contains(head[14..<18].reversed().reduce(0) { $0 << 8 | Int($1) })
        {
            return .image(.bmp)
        }
        // An OS/2 bitmap array: a 14-byte `BA` header, then the first bitmap's own file header.
        if starts(Array("BA".utf8)), starts(Array("BM".utf8), at: 14), head.count >= 32,
            BMPDecoder.infoHeaderSizes.contains(head[28..<32].reversed().reduce(0) { $0 << 8 | Int($1) })
        {
            return .image(.bmp)
        }
        // A bare JPEG XL codestream, or the ISOBMFF container's 12-byte `JXL ` signature box.
        if starts([0xFF, 0x0A]) || starts([0, 0, 0, 0x0C] + Array("JXL ".utf8) + [0x0D, 0x0A, 0x87, 0x0A]) {
            return .image(.jxl)
        }
        if starts([0x1A, 0x45, 0xDF, 0xA3]) {
            // The EBML header (DocType among its first elements) fits in the first 64 bytes.
            let isWebM = head.prefix(64).windows(of: Array("webm".utf8))
            return .matroska(isWebM: isWebM)
        }
        if head.count >= 12, FourCC(rawValue: ByteCursor.u32(head, at: 4)) == "ftyp" {
            let declared = Int(ByteCursor.u32(head, at: 0))
            var brands = [FourCC(rawValue: ByteCursor.u32(head, at: 8))]
            var offset = 16
            while offset + 4 <= min(head.count, max(declared, 16)) {
                brands.append(FourCC(rawValue: ByteCursor.u32(head, at: offset)))
                offset += 4
            }
            let major = brands[0]
            if heicBrands.contains(major) { return .image(.heic) }
            if avifBrands.contains(major) { return .image(.avif) }
            if heifBrands.contains(major) {
                if brands.contains(where: { heicBrands.contains($0) }) { return .image(.heic) }
                if brands.contains(where: { avifBrands.contains($0) }) { return .image(.avif) }
                return .image(.heif)
            }
            return .isoMedia(brand: major)
        }
        if head.count >= 8, quickTimeStarts.contains(FourCC(rawValue: ByteCursor.u32(head, at: 4))) {
            return .isoMedia(brand: nil)
        }
        if let still = StillSignature.format(head: head) { return .image(still) }
        if let foreign = ForeignImageFormat.of(head: head) { return .foreignImage(foreign) }
        return .other
    }

    /// Classifies the file at `path` whose first bytes are `head`: as ``kind(of:)`` does, and
    /// for content it does not name, by the file's last bytes and name too (a TGA has no magic
    /// number: it is told by its 2.0 footer, or by a plausible header under a TGA name).
    package static func kind(of head: [UInt8], path: String) -> Kind {
        let kind = kind(of: head)
        guard kind == .other,
            StillSignature.isTGA(head: head, tail: RawFile.tail(of: path, count: 26), path: path)
        else { return kind }
        return .image(.tga)
    }

    /// How many stray bytes may sit between a JPEG's SOI and its first marker for the file to
    /// be taken as a JPEG. libjpeg skips any number (warning "N extraneous bytes before marker");
    /// a window keeps two bytes that happen to be SOI from claiming any file.
    static let jpegStrayWindow = 32

    /// Whether `head` (starting with SOI) has a marker that opens a JPEG's headers right after
    /// SOI or after at most ``jpegStrayWindow`` stray bytes: an APPn, DQT, DHT, SOFn, DRI or COM
    /// marker (fill bytes 0xFF before it allowed).
    private static func startsJPEGSegment(_ head: [UInt8]) -> Bool {
        var index = 2
        while index < min(head.count, 2 + jpegStrayWindow) {
            if head[index] == 0xFF {
                // A file cut to three bytes, FF D8 FF, stays a JPEG (a damaged one).
                guard index + 1 < head.count else { return index == 2 }
                let marker = head[index + 1]
                if marker == 0xFF {
                    index += 1
                    continue
                }
                if index == 2 || opensHeaders(marker) { return true }
            }
            index += 1
        }
        return false
    }

    /// Whether `marker` can be the first of a JPEG's header segments.
    private static func opensHeaders(_ marker: UInt8) -> Bool {
        (0xE0...0xEF).contains(marker) || marker == 0xDB || marker == 0xC4 || marker == 0xDD || marker == 0xFE
            || ((0xC0...0xCF).contains(marker) && ![0xC4, 0xC8, 0xCC].contains(marker))
    }
}

extension Collection where Element == UInt8 {
    /// Whether `needle` occurs anywhere in this collection.
    package func windows(of needle: [UInt8]) -> Bool {
        let bytes = Array(self)
        guard bytes.count >= needle.count, !needle.isEmpty else { return false }
        return (0...(bytes.count - needle.count)).contains { Array(bytes[$0..<$0 + needle.count]) == needle }
    }
}
