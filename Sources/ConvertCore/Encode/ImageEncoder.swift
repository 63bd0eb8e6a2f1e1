import FoundationEssentials
import Glibc

/// Encodes upright bitmaps to the output formats, embedding the ICC profile, EXIF and XMP each
/// format can carry.
enum ImageEncoder {
    /// Notes about metadata a format could not carry.
    struct Written {
        package var notes: [String]
    }

    /// Encodes a JPEG entirely in memory (used directly by the target-size search).
    static func jpegBytes(
        _ bitmap: Bitmap, quality: Int, subsampling: JPEGSubsampling = .s420, exif: [UInt8]?, xmp: [UInt8]?,
        iptc: [UInt8]? = nil
    ) throws(ConvertError) -> (bytes: [UInt8], notes: [String]) {
        precondition(!bitmap.hasAlpha, "alpha is flattened before JPEG encoding")
        let encoder = try TurboJPEGHandle.compressor()
        let stream = try encoder.encodeRGB(
            bitmap.eightBitSamples, width: bitmap.width, height: bitmap.height, quality: quality,
            subsampling: subsampling)
        let segments = jpegSegments(exif: exif, xmp: xmp, iptc: iptc, icc: bitmap.icc)
        return (JPEGMarkers.inserting(segments.bytes, into: stream), segments.notes)
    }

    /// The APP segments for a JPEG's metadata, and notes on anything that could not be carried.
    static func jpegSegments(
        exif: [UInt8]?, xmp: [UInt8]?, iptc: [UInt8]? = nil, icc: [UInt8]?
    ) -> (bytes: [UInt8], notes: [String]) {
        var exif = exif
        var notes: [String] = []
        // An APP1 segment holds at most 64 KiB. Big EXIF blocks are big because of the IFD1
        // thumbnail (Xiaomi: 190 KB): rebuilding without it keeps every tag.
        if let block = exif, block.count > JPEGMarkers.maxEXIFBytes, let parsed = Exif(tiff: block) {
            exif = parsed.rebuilt(keepLocation: true, keepIdentifiers: true)
            notes.append("EXIF thumbnail removed to fit JPEG")
        }
        var segments = JPEGMarkers.appSegments(exif: exif, xmp: xmp, icc: icc)
        if let iptc, !iptc.isEmpty {
            let payload = IPTC.app13Payload(iptc)
            if payload.count <= 65533 {
                segments.bytes +=
                    [0xFF, 0xED, UInt8((payload.count + 2) >> 8), UInt8((payload.count + 2) & 0xFF)] + payload
            } else {
                segments.dropped.append("IPTC")
            }
        }
        return (segments.bytes, notes + segments.dropped.map { "\($0) too large for JPEG, not copied" })
    }

    /// Writes `bitmap` as `format` to `path` (a staged temporary file). `displayPath` names the
    /// output in errors.
    /// `heifBitDepth` (8 or 10) applies to HEIC and AVIF only.
    package static func write(
        _ bitmap: Bitmap, format: PhotoFormat, quality: Int, lossless: Bool, heifBitDepth: Int = 8, exif: [UInt8]?,
        xmp: [UInt8]?, iptc: [UInt8]? = nil, pngText: [PNGText.Entry] = [], to path: String, displayPath: String
    ) throws(ConvertError) -> Written {
        switch format {
        case .jpeg:
            let (bytes, notes) = try jpegBytes(bitmap, quality: quality, exif: exif, xmp: xmp, iptc: iptc)
            try writeFile(bytes, to: path, displayPath: displayPath)
            return Written(notes: notes)
        case .png:
            // A 16-bit PNG only when the source had more than 8 bits: otherwise it doubles the
            // size and adds nothing.
            let output = bitmap.sourceBitDepth > 8 ? bitmap.toSixteenBit() : bitmap.toEightBit()
            try PNGCodec.encode(output, exif: exif, xmp: xmp, texts: pngText, to: path, displayPath: displayPath)
            return Written(notes: [])
        case .webp:
            let bytes = try WebPCodec.encode(bitmap, quality: quality, lossless: lossless, exif: exif, xmp: xmp)
            try writeFile(bytes, to: path, displayPath: displayPath)
            return Written(notes: [])
        case .heic, .avif:
            try HeifEncoding.encode(
                bitmap, format: format == .heic ? .heic : .avif, quality: quality, bitDepth: heifBitDepth, exif: exif,
                xmp: xmp, to: path, displayPath: displayPath)
            return Written(notes: [])
        case .jxl:
            let bytes = try JXLCodec.encode(bitmap, quality: quality, lossless: lossless, exif: exif, xmp: xmp)
            try writeFile(bytes, to: path, displayPath: displayPath)
            return Written(notes: [])
        case .gif, .bmp, .tiff, .tga, .pnm, .ico, .psd, .jp2:
            throw ConvertError(
                code: .outputUnsupported,
                message: "\(format.rawValue.uppercased()) photos cannot be written, only read.")
        }
    }

    /// Whether `format` can store an alpha channel.
    static func supportsAlpha(_ format: PhotoFormat) -> Bool { format.storesAlpha }

    /// Writes `bytes` to the (already created) file at `path`.
    static func writeFile(_ bytes: [UInt8], to path: String, displayPath: String) throws(ConvertError) {
        try writeFile(pieces: [bytes[...]], to: path, displayPath: displayPath)
    }

    /// Writes `pieces` one after another to the file at `path`: a JPEG stream and the segments
    /// that go inside it, say, without joining them into one more copy of the photo first.
    static func writeFile(pieces: [ArraySlice<UInt8>], to path: String, displayPath: String) throws(ConvertError) {
        let fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC)
        guard fd >= 0 else { throw .fileSystem(errno, action: "write", path: displayPath) }
        defer { close(fd) }
        for bytes in pieces {
            if let failure = RawFile.write(bytes, to: fd) {
                throw .fileSystem(failure, action: "write", path: displayPath)
            }
        }
    }
}
