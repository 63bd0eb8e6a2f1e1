/// Assembles an Ultra HDR v1.1 JPEG: the primary JPEG with its metadata, `hdrgm:Version` and
/// `Container:Directory` in its XMP, the ISO 21496-1 version record and an MPF index (APP2) of
/// both images; then the gain-map JPEG with its `hdrgm:` XMP and ISO 21496-1 record.
///
/// The segment order is libultrahdr's (EXIF, XMP, ICC, ISO 21496-1, MPF), which Android and
/// Chrome read.
enum UltraHDRWriter {
    private static let mpfSignature: [UInt8] = Array("MPF".utf8) + [0]
    /// An MPF APP2 payload: signature, big-endian TIFF header, an index IFD of 3 entries
    /// (version, image count, the MP entry list), and two 16-byte MP entries.
    private static let mpfPayloadSize = 4 + 8 + 2 + 3 * 12 + 4 + 2 * 16

    /// The Ultra HDR file of `primary` (a JPEG stream as the encoder wrote it, without
    /// metadata) with its `exif`/`xmp`/`iptc`/`icc`, and `gainMap` (a greyscale JPEG stream).
    /// Notes say what metadata could not be kept.
    static func assemble(
        primary: [UInt8], exif: [UInt8]?, xmp: [UInt8]?, iptc: [UInt8]? = nil, icc: [UInt8]?, gainMap: [UInt8],
        metadata: GainMapMetadata
    ) -> (bytes: [UInt8], notes: [String]) {
        let gainMapFile = JPEGMarkers.inserting(
            segment(0xE1, JPEGMarkers.xmpHeader + metadata.gainMapXMP) + segment(0xE2, metadata.isoGainMapPayload),
            into: gainMap)
        let primaryXMP = GainMapMetadata.primaryXMP(merging: xmp, gainMapLength: gainMapFile.count)
        let segments = ImageEncoder.jpegSegments(exif: exif, xmp: primaryXMP, iptc: iptc, icc: icc)
        let placeholder = segment(0xE2, mpfSignature + [UInt8](repeating: 0, count: mpfPayloadSize - 4))
        var file = JPEGMarkers.inserting(
            segments.bytes + segment(0xE2, GainMapMetadata.isoPrimaryPayload) + placeholder, into: primary)
        // The MPF's offsets count from its TIFF header, right after the signature.
        guard
            let mpf = JPEGMarkers.segments(file).first(where: {
                $0.marker == 0xE2 && file[$0.payload].starts(with: mpfSignature)
            })
        else { return (file, segments.notes) }
        let tiffHeader = mpf.payload.lowerBound + 4
        let index = mpfIndex(
            primaryLength: file.count, gainMapLength: gainMapFile.count, gainMapOffset: file.count - tiffHeader)
        file.replaceSubrange(mpf.payload, with: mpfSignature + index)
        return (file + gainMapFile, segments.notes)
    }

    /// One marker segment: FF, marker, 2-byte length, payload.
    private static func segment(_ marker: UInt8, _ payload: [UInt8]) -> [UInt8] {
        let length = payload.count + 2
        return [0xFF, marker, UInt8(length >> 8), UInt8(length & 0xFF)] + payload
    }

    /// The MPF index after the signature (CIPA DC-007): the primary as the baseline image at
    /// offset 0, the gain map as a second image after it.
    private static func mpfIndex(primaryLength: Int, gainMapLength: Int, gainMapOffset: Int) -> [UInt8] {
        func u16(_ value: Int) -> [UInt8] { [UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)] }
        func u32(_ value: Int) -> [UInt8] { [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: value >> $0) } }
        var bytes: [UInt8] = [0x4D, 0x4D, 0x00, 0x2A] + u32(8)
        bytes += u16(3)
        bytes += u16(0xB000) + u16(7) + u32(4) + Array("0100".utf8)  // MPFVersion
        bytes += u16(0xB001) + u16(4) + u32(1) + u32(2)  // NumberOfImages
        let entriesOffset = 8 + 2 + 3 * 12 + 4
        bytes += u16(0xB002) + u16(7) + u32(32) + u32(entriesOffset)  // MPEntry
        bytes += u32(0)  // no next IFD
        let primaryAttributes = 0x0003_0000  // baseline MP primary image, JPEG
        bytes += u32(primaryAttributes) + u32(primaryLength) + u32(0) + u16(0) + u16(0)
        bytes += u32(0) + u32(gainMapLength) + u32(gainMapOffset) + u16(0) + u16(0)
        return bytes
    }
}
