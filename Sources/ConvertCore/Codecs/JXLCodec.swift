import FoundationEssentials
import Glibc

/// JPEG XL through libjxl 0.7: decode (first frame, upright), encode from pixels (VarDCT at a
/// distance or modular lossless), and lossless recompression of a JPEG file.
enum JXLCodec {
    /// libjxl's own effort default (cjxl's `-e 7`): the speed/size trade-off cjxl is compared at.
    static let effort = 7

    /// The Butteraugli distance `--quality` asks for, with the mapping cjxl 0.7 uses for its
    /// `-q` (and libjxl's GIMP plugin): 0.1 + (100 − q) × 0.09 from 30 up (q 90 → 1.0, cjxl's
    /// default and "visually lossless"; q 100 → 0.1), and 6.4 + 2.5^((30 − q) / 5) / 6.25 below,
    /// capped at 15. cjxl also reads `-q 100` as lossless; offconvert asks for `--lossless`.
    static func distance(quality: Int) -> Float {
        let q = Double(min(100, max(1, quality)))
        let distance = q >= 30 ? 0.1 + (100 - q) * 0.09 : 6.4 + pow(2.5, (30 - q) / 5) / 6.25
        return Float(min(15, distance))
    }

    private static var threads: Int { ProcessInfo.processInfo.activeProcessorCount }

    /// A decoded JPEG XL with its metadata and notes.
    struct Decoded {
        var bitmap: Bitmap
        var exif: [UInt8]?
        var xmp: [UInt8]?
        var notes: [String]
        /// The nclx of pixels coded in PQ or HLG (``JXLImage/hdrCoding``).
        var hdrCoding: NCLX?
    }

    /// Decodes the first frame of `data` to upright pixels (libjxl applies the codestream's
    /// orientation), tagged with the profile they are in.
    static func decode(_ data: [UInt8], maxPixels: Int, path: String) throws(ConvertError) -> Decoded {
        let image = try JXLDecoder(threads: threads).read(data, pixels: true, maxPixels: maxPixels, path: path)
        guard let bitmap = image.bitmap else {
            throw ConvertError(code: .inputCorrupt, message: "\(path) is damaged: it has no picture.", path: path)
        }
        return Decoded(
            bitmap: bitmap, exif: image.exif, xmp: image.xmp,
            notes: image.isAnimated ? ["first frame of the animation only"] : [],
            hdrCoding: image.hdrCoding)
    }

    /// The header, colour and metadata of `data`, without decoding the pixels.
    static func header(_ data: [UInt8], path: String) throws(ConvertError) -> JXLImage {
        try JXLDecoder(threads: 1).read(data, pixels: false, maxPixels: Int.max, path: path)
    }

    /// Encodes `bitmap`: 16 bits per sample in the file when the source had more than 8, else 8; ICC kept (sRGB when none); EXIF and XMP as boxes.
    static func encode(_ bitmap: Bitmap, quality: Int, lossless: Bool, exif: [UInt8]?, xmp: [UInt8]?)
        throws(ConvertError) -> [UInt8]
    {
        // 10- and 12-bit sources are written at 16 bits: given 16-bit input with a smaller
        // `bits_per_sample`, libjxl 0.7 stored other colours (ten-bit.heic's mean colour
        // #B9D9FD came back as #D1D5D0 lossy and with blue wrapped round lossless).
        let deep = bitmap.sourceBitDepth > 8
        let bits = deep ? 16 : 8
        let pixels = deep ? bitmap.toSixteenBit() : bitmap.toEightBit()
        // Lossless keeps the ICC byte for byte (no XYB, so libjxl's Display P3 misreading does not arise).
        let isDisplayP3 = bitmap.icc.flatMap(ColorProfiles.describe) == "Display P3"
        return try JXLEncoder(threads: threads).encode(
            pixels, bitDepth: bits, coding: lossless ? .lossless : .lossy(distance: distance(quality: quality)),
            color: !lossless && isDisplayP3 ? .displayP3 : .icc, effort: effort, exif: exif, xmp: xmp)
    }

    /// Encodes `bitmap` (16-bit samples in `transfer` over the primaries of nclx code point
    /// `primaries`) at 16 bits with a colour encoding that names them; EXIF and XMP as boxes.
    static func encodeHDR(
        _ bitmap: Bitmap, transfer: HDRTransfer, primaries: Int, quality: Int, lossless: Bool, exif: [UInt8]?,
        xmp: [UInt8]?
    ) throws(ConvertError) -> [UInt8] {
        try JXLEncoder(threads: threads).encode(
            bitmap.toSixteenBit(), bitDepth: 16,
            coding: lossless ? .lossless : .lossy(distance: distance(quality: quality)),
            color: .hdr(transfer, primaries: primaries), effort: effort, exif: exif, xmp: xmp)
    }

    /// Recompresses a JPEG file so that `djxl` gives back exactly `jpeg`; nil when libjxl cannot
    /// represent this JPEG (then the caller encodes pixels instead).
    static func recompress(jpeg: [UInt8]) throws(ConvertError) -> [UInt8]? {
        try JXLEncoder(threads: threads).recompressJPEG(jpeg, effort: effort)
    }
}
