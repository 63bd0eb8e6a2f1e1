internal import CHeif

/// Owns a `heif_encoder` (an x265 or AV1 encoder plugin instance); freed with `heif_encoder_release`.
final class HeifEncoderHandle {
    fileprivate let pointer: OpaquePointer

    /// The default encoder for `compression`, or an `.unsupported` error naming what is missing.
    init(context: HeifContext, format: HeifEncoding.Format) throws(ConvertError) {
        let compression = format == .heic ? heif_compression_HEVC : heif_compression_AV1
        guard heif_have_encoder_for_format(compression) != 0 else {
            throw ConvertError(
                code: .outputEncoderMissing,
                message: format == .heic
                    ? "HEIC output needs libheif's x265 (HEVC) encoder plugin, which this system lacks (install libheif's x265 support, e.g. the libheif1 package built with libx265)."
                    : "AVIF output needs an AV1 encoder plugin for libheif (aom, rav1e or SVT-AV1), which this system lacks."
            )
        }
        var encoder: OpaquePointer?
        try context.withContext { (raw) throws(ConvertError) in
            try Heif.check(
                heif_context_get_encoder_for_format(raw, compression, &encoder), "encode", path: context.path)
        }
        guard let encoder else {
            throw ConvertError(code: .outputEncoderMissing, message: "No \(format.rawValue) encoder is available.")
        }
        pointer = encoder
    }

    deinit { heif_encoder_release(pointer) }
}

/// Owns a `heif_image` built for encoding; released with `heif_image_release`.
final class HeifImageForEncoding {
    fileprivate let pointer: OpaquePointer

    /// An RGB(A) image of `bitmap` at `bitDepth` (8 or 10) bits per channel.
    init(_ bitmap: Bitmap, bitDepth: Int, path: String) throws(ConvertError) {
        precondition(bitDepth == 8 || bitDepth == 10, "HEIF images are written at 8 or 10 bits")
        let deep = bitDepth > 8
        // Deep samples go in as big-endian 16-bit words holding the value in the low bits, the
        // layout heif-enc feeds libheif from 16-bit PNGs.
        let chroma =
            deep
            ? (bitmap.hasAlpha ? heif_chroma_interleaved_RRGGBBAA_BE : heif_chroma_interleaved_RRGGBB_BE)
            : (bitmap.hasAlpha ? heif_chroma_interleaved_RGBA : heif_chroma_interleaved_RGB)
        var image: OpaquePointer?
        try Heif.check(
            heif_image_create(Int32(bitmap.width), Int32(bitmap.height), heif_colorspace_RGB, chroma, &image), "encode",
            path: path)
        guard let image else {
            throw ConvertError(code: .internalMemory, message: "Out of memory.", path: path)
        }
        pointer = image
        try Heif.check(
            heif_image_add_plane(
                image, heif_channel_interleaved, Int32(bitmap.width), Int32(bitmap.height), Int32(bitDepth)),
            "encode", path: path)
        var stride: Int32 = 0
        guard let plane = heif_image_get_plane(image, heif_channel_interleaved, &stride) else {
            throw ConvertError(code: .internalMemory, message: "Out of memory.", path: path)
        }
        let planeStride = Int(stride)
        let rows = bitmap.height
        let rowSamples = bitmap.width * bitmap.channels
        if deep {
            guard case .sixteen(let samples) = bitmap.toSixteenBit().samples else {
                preconditionFailure("toSixteenBit() stores 16-bit samples")
            }
            let maxValue = UInt32((1 << bitDepth) - 1)
            for y in 0..<rows {
                let target: UnsafeMutablePointer<UInt8> = plane + y * planeStride
                for i in 0..<rowSamples {
                    // Full-range 16-bit to `bitDepth` bits, rounded to nearest.
                    let value = (UInt32(samples[y * rowSamples + i]) * maxValue + 32767) / 65535
                    target[i * 2] = UInt8(value >> 8)
                    target[i * 2 + 1] = UInt8(value & 0xFF)
                }
            }
        } else {
            let pixels = bitmap.eightBitSamples
            pixels.withUnsafeBytes { (source: UnsafeRawBufferPointer) in
                guard let base = source.baseAddress else { return }
                for y in 0..<rows {
                    let target: UnsafeMutablePointer<UInt8> = plane + y * planeStride
                    UnsafeMutableRawPointer(target).copyMemory(from: base + y * rowSamples, byteCount: rowSamples)
                }
            }
        }
        if let icc = bitmap.icc, !icc.isEmpty {
            try Heif.check(heif_image_set_raw_color_profile(image, "prof", icc, icc.count), "encode", path: path)
        }
    }

    /// An 8-bit monochrome image of `plane` (a gain map).
    init(gray plane: GrayPlane, path: String) throws(ConvertError) {
        var image: OpaquePointer?
        try Heif.check(
            heif_image_create(
                Int32(plane.width), Int32(plane.height), heif_colorspace_monochrome, heif_chroma_monochrome, &image),
            "encode", path: path)
        guard let image else {
            throw ConvertError(code: .internalMemory, message: "Out of memory.", path: path)
        }
        pointer = image
        try Heif.check(
            heif_image_add_plane(image, heif_channel_Y, Int32(plane.width), Int32(plane.height), 8), "encode",
            path: path)
        var stride: Int32 = 0
        guard let target = heif_image_get_plane(image, heif_channel_Y, &stride) else {
            throw ConvertError(code: .internalMemory, message: "Out of memory.", path: path)
        }
        plane.pixels.withUnsafeBytes { (source: UnsafeRawBufferPointer) in
            guard let base = source.baseAddress else { return }
            for y in 0..<plane.height {
                UnsafeMutableRawPointer(target + y * Int(stride)).copyMemory(
                    from: base + y * plane.width, byteCount: plane.width)
            }
        }
    }

    deinit { heif_image_release(pointer) }
}

/// Encodes bitmaps to HEIC (HEVC) or AVIF (AV1) with libheif.
enum HeifEncoding {
    /// The compression of the output.
    enum Format: String {
        case heic = "HEIC"
        case avif = "AVIF"
    }

    /// Whether `format` can be written at 10 bits here: x265 takes 10-bit input; libheif 1.15's
    /// aom plugin signals AV1 profile 2 for it, and libaom then fails an assertion (aborting
    /// the process) for 4:2:0 10-bit, so AVIF is kept at 8 bits.
    static func supportsTenBit(_ format: Format) -> Bool { format == .heic }

    /// Whether libheif on this system can write `format`.
    static func isAvailable(_ format: Format) -> Bool {
        heif_have_encoder_for_format(format == .heic ? heif_compression_HEVC : heif_compression_AV1) != 0
    }

    /// Writes `bitmap` to `path` as one primary image at `bitDepth` (8 or 10) bits with EXIF
    /// and XMP attached; with `auxiliary` (a gain map and its auxiliary type), that plane as a
    /// hidden 8-bit monochrome auxiliary image of the primary (see ``HeifAuxiliaryEditor``), and
    /// with `toneMapRecord` an ISO 21496-1 `tmap` item of the primary and that map.
    /// Returns false when the auxiliary image could not be attached (the file is then written
    /// without it).
    @discardableResult
    static func encode(
        _ bitmap: Bitmap, format: Format, quality: Int, bitDepth: Int = 8, exif: [UInt8]?, xmp: [UInt8]?,
        auxiliary: (plane: GrayPlane, type: String)? = nil, toneMapRecord: [UInt8]? = nil, to path: String,
        displayPath: String
    ) throws(ConvertError) -> Bool {
        let context = try HeifContext(forWritingTo: displayPath)
        let encoder = try HeifEncoderHandle(context: context, format: format)
        heif_encoder_set_lossy_quality(encoder.pointer, Int32(quality))
        // libheif's x265 default is "slow": 39 s for a 12 MP photo where "medium" takes 13 s for
        // a file within 3% of its size. (AV1's aom has no such parameter.)
        if format == .heic {
            try Heif.check(
                heif_encoder_set_parameter_string(encoder.pointer, "preset", "medium"), "encode", path: displayPath)
        }
        let image = try HeifImageForEncoding(bitmap, bitDepth: bitDepth, path: displayPath)
        try context.withContext { (raw) throws(ConvertError) in
            var handle: OpaquePointer?
            try Heif.check(
                heif_context_encode_image(raw, image.pointer, encoder.pointer, nil, &handle), "encode",
                path: displayPath)
            guard let handle else {
                throw ConvertError(code: .encodeFailed, message: "Encoding \(displayPath) failed.", path: displayPath)
            }
            defer { heif_image_handle_release(handle) }
            if let exif, !exif.isEmpty {
                try Heif.check(
                    heif_context_add_exif_metadata(raw, handle, exif, Int32(exif.count)), "encode", path: displayPath)
            }
            if let xmp, !xmp.isEmpty {
                try Heif.check(
                    heif_context_add_XMP_metadata(raw, handle, xmp, Int32(xmp.count)), "encode", path: displayPath)
            }
        }
        guard let auxiliary else {
            try context.write(to: path)
            return true
        }
        let map = try HeifImageForEncoding(gray: auxiliary.plane, path: displayPath)
        let primary = try context.withContext { (raw) throws(ConvertError) -> UInt32 in
            var primary: heif_item_id = 0
            try Heif.check(heif_context_get_primary_image_ID(raw, &primary), "encode", path: displayPath)
            var handle: OpaquePointer?
            try Heif.check(
                heif_context_encode_image(raw, map.pointer, encoder.pointer, nil, &handle), "encode", path: displayPath)
            if let handle { heif_image_handle_release(handle) }
            return primary
        }
        // libheif 1.15 cannot name a handle's item: the map is the top-level image that is not the primary.
        let others = context.topLevelImageIDs.filter { $0 != primary }
        try context.write(to: path)
        let written = try ImageDecoder.readAll(path: path)
        guard others.count == 1,
            let edited = HeifAuxiliaryEditor.makingAuxiliary(
                written, item: others[0], of: primary, type: auxiliary.type,
                toneMap: toneMapRecord.map {
                    HeifAuxiliaryEditor.ToneMap(record: $0, width: bitmap.width, height: bitmap.height)
                })
        else {
            // The second image must not stay a picture of its own: the file is written again without it.
            _ = try encode(
                bitmap, format: format, quality: quality, bitDepth: bitDepth, exif: exif, xmp: xmp, to: path,
                displayPath: displayPath)
            return false
        }
        try ImageEncoder.writeFile(edited, to: path, displayPath: displayPath)
        return true
    }
}
