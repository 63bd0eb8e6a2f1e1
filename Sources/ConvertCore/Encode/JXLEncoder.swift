internal import CJXL

/// Owns a `JxlEncoder` (one JPEG XL file being written) and the thread pool it runs on; freed
/// with `JxlEncoderDestroy`. Single use: each encode makes a new encoder.
final class JXLEncoder {
    private let encoder: OpaquePointer
    /// libjxl's functions (loaded on first use: see ``JXLLibrary``).
    private let jxl: offc_jxl_api
    /// Kept for as long as `encoder`, which calls into it; released after `deinit` has destroyed
    /// the encoder.
    private let runner: JXLThreadRunner

    /// An encoder with a pool of `threads` workers, writing the ISOBMFF container (so that EXIF
    /// and XMP boxes can be added).
    init(threads: Int) throws(ConvertError) {
        jxl = try JXLLibrary.functions()
        guard let encoder = jxl.JxlEncoderCreate(nil) else {
            throw ConvertError(code: .internalMemory, message: "Out of memory.")
        }
        self.encoder = encoder
        runner = try JXLThreadRunner(threads: threads)
        guard runner.attach(to: encoder), jxl.JxlEncoderUseContainer(encoder, 1) == JXL_ENC_SUCCESS else {
            throw Self.failure("setting up the encoder")
        }
    }

    deinit { jxl.JxlEncoderDestroy(encoder) }

    /// What the pixels are coded with.
    enum Coding {
        /// VarDCT at a Butteraugli distance (0.1 ... 15; 1 is "visually lossless").
        case lossy(distance: Float)
        /// Modular, mathematically lossless.
        case lossless
    }

    /// How the file describes its colours.
    enum Color {
        /// The bitmap's ICC profile, stored as is (or turned into an equivalent colour encoding
        /// by libjxl); sRGB when the bitmap has none.
        case icc
        /// Display P3 as a colour encoding (D65, P3 primaries, sRGB transfer), for the pixels of
        /// Apple's Display P3 ICC profile: libjxl 0.7 misreads that profile's non-D50 media
        /// white point when coding XYB (jxlinfo showed white point x=0.2776 y=0.2963 and shifted
        /// primaries; libjxl issue #4911).
        case displayP3
        /// Samples coded in an HDR transfer over the primaries of an nclx description (BT.2020,
        /// Display P3 or BT.709; others are refused): a colour encoding names PQ and HLG, which
        /// no ICC matrix/TRC profile can.
        case hdr(HDRTransfer, primaries: Int)
    }

    /// Encodes `bitmap` (RGB or RGBA, 8 or 16 bits) with `bitDepth` bits per sample in the file,
    /// its colours described as `color` says, with EXIF and XMP boxes.
    func encode(
        _ bitmap: Bitmap, bitDepth: Int, coding: Coding, color: Color, effort: Int, exif: [UInt8]?, xmp: [UInt8]?
    ) throws(ConvertError) -> [UInt8] {
        var info = JxlBasicInfo()
        jxl.JxlEncoderInitBasicInfo(&info)
        info.xsize = UInt32(bitmap.width)
        info.ysize = UInt32(bitmap.height)
        info.bits_per_sample = UInt32(bitDepth)
        info.num_color_channels = 3
        info.num_extra_channels = bitmap.hasAlpha ? 1 : 0
        info.alpha_bits = bitmap.hasAlpha ? UInt32(bitDepth) : 0
        info.orientation = JXL_ORIENT_IDENTITY  // the pixels are upright already
        if case .lossless = coding { info.uses_original_profile = 1 } else { info.uses_original_profile = 0 }
        if case .hdr(let transfer, _) = color {
            // The brightest value the samples can hold: PQ's 10000 nits (as cjxl sets for PQ
            // input; libjxl's lossy coding weighs errors by it), HLG's nominal 1000.
            info.intensity_target = transfer == .pq ? 10000 : Float(HDRTransfer.hlgPeakNits)
        }
        guard jxl.JxlEncoderSetBasicInfo(encoder, &info) == JXL_ENC_SUCCESS else {
            throw Self.failure("the image header")
        }
        switch color {
        case .icc: try setColor(icc: bitmap.icc)
        case .displayP3: try setDisplayP3()
        case .hdr(let transfer, let primaries): try setHDR(transfer, primaries: primaries)
        }
        try addBoxes(exif: exif, xmp: xmp)
        let settings = try frameSettings(coding: coding, effort: effort)
        let wide = bitmap.isSixteenBit
        var format = JxlPixelFormat(
            num_channels: UInt32(bitmap.channels), data_type: wide ? JXL_TYPE_UINT16 : JXL_TYPE_UINT8,
            endianness: JXL_NATIVE_ENDIAN, align: 0)
        let added: JxlEncoderStatus
        switch bitmap.samples {
        case .eight(let values):
            added = values.withUnsafeBytes { jxl.JxlEncoderAddImageFrame(settings, &format, $0.baseAddress, $0.count) }
        case .sixteen(let values):
            added = values.withUnsafeBytes { jxl.JxlEncoderAddImageFrame(settings, &format, $0.baseAddress, $0.count) }
        }
        guard added == JXL_ENC_SUCCESS else { throw Self.failure("the pixels") }
        jxl.JxlEncoderCloseInput(encoder)
        return try output()
    }

    /// Recompresses a whole JPEG file losslessly, storing what `djxl` needs to give back the
    /// same bytes (JPEG reconstruction data; libjxl copies its EXIF and XMP into boxes itself).
    /// Nil when libjxl cannot take this JPEG (some unusual marker layouts), with nothing written.
    func recompressJPEG(_ jpeg: [UInt8], effort: Int) throws(ConvertError) -> [UInt8]? {
        guard jxl.JxlEncoderStoreJPEGMetadata(encoder, 1) == JXL_ENC_SUCCESS else {
            throw Self.failure("JPEG reconstruction")
        }
        let settings = try frameSettings(coding: .lossless, effort: effort)
        let added = jpeg.withUnsafeBufferPointer { jxl.JxlEncoderAddJPEGFrame(settings, $0.baseAddress, $0.count) }
        guard added == JXL_ENC_SUCCESS else { return nil }
        jxl.JxlEncoderCloseInput(encoder)
        return try? output()
    }

    private func setDisplayP3() throws(ConvertError) {
        var color = JxlColorEncoding()
        jxl.JxlColorEncodingSetToSRGB(&color, 0)
        color.primaries = JXL_PRIMARIES_P3
        color.rendering_intent = JXL_RENDERING_INTENT_PERCEPTUAL
        guard jxl.JxlEncoderSetColorEncoding(encoder, &color) == JXL_ENC_SUCCESS else {
            throw Self.failure("the colour encoding")
        }
    }

    private func setHDR(_ transfer: HDRTransfer, primaries: Int) throws(ConvertError) {
        var color = JxlColorEncoding()
        jxl.JxlColorEncodingSetToSRGB(&color, 0)
        switch primaries {
        case 9: color.primaries = JXL_PRIMARIES_2100
        case 12: color.primaries = JXL_PRIMARIES_P3
        case 1: color.primaries = JXL_PRIMARIES_SRGB
        default: throw Self.failure("the colour encoding (primaries \(primaries))")
        }
        color.transfer_function = transfer == .pq ? JXL_TRANSFER_FUNCTION_PQ : JXL_TRANSFER_FUNCTION_HLG
        // BT.2100's own intent: the code values are what a display shows.
        color.rendering_intent = JXL_RENDERING_INTENT_RELATIVE
        guard jxl.JxlEncoderSetColorEncoding(encoder, &color) == JXL_ENC_SUCCESS else {
            throw Self.failure("the colour encoding")
        }
    }

    private func setColor(icc: [UInt8]?) throws(ConvertError) {
        if let icc, !icc.isEmpty {
            let set = icc.withUnsafeBufferPointer { jxl.JxlEncoderSetICCProfile(encoder, $0.baseAddress, $0.count) }
            if set == JXL_ENC_SUCCESS { return }
            // A profile libjxl cannot parse is dropped for sRGB, like a damaged one elsewhere.
        }
        var color = JxlColorEncoding()
        jxl.JxlColorEncodingSetToSRGB(&color, 0)
        guard jxl.JxlEncoderSetColorEncoding(encoder, &color) == JXL_ENC_SUCCESS else {
            throw Self.failure("the colour encoding")
        }
    }

    /// EXIF goes in an `Exif` box (its content starts with the 4-byte offset of the TIFF header,
    /// 0 here), XMP in an `xml ` box; both Brotli-free so that every reader sees them.
    private func addBoxes(exif: [UInt8]?, xmp: [UInt8]?) throws(ConvertError) {
        let boxes = [("Exif", exif.map { [0, 0, 0, 0] + $0 }), ("xml ", xmp)].compactMap { name, bytes in
            bytes.map { (name, $0) }
        }
        guard !boxes.isEmpty else { return }
        guard jxl.JxlEncoderUseBoxes(encoder) == JXL_ENC_SUCCESS else { throw Self.failure("metadata boxes") }
        for (name, bytes) in boxes where !bytes.isEmpty {
            let added = bytes.withUnsafeBufferPointer {
                jxl.JxlEncoderAddBox(encoder, name, $0.baseAddress, $0.count, 0)
            }
            guard added == JXL_ENC_SUCCESS else { throw Self.failure("the \(name) box") }
        }
        jxl.JxlEncoderCloseBoxes(encoder)
    }

    /// The settings of the (only) frame; owned by the encoder and freed with it.
    private func frameSettings(coding: Coding, effort: Int) throws(ConvertError) -> OpaquePointer {
        guard let settings = jxl.JxlEncoderFrameSettingsCreate(encoder, nil) else {
            throw ConvertError(code: .internalMemory, message: "Out of memory.")
        }
        var ok =
            jxl.JxlEncoderFrameSettingsSetOption(settings, JXL_ENC_FRAME_SETTING_EFFORT, Int64(effort))
            == JXL_ENC_SUCCESS
        switch coding {
        case .lossless: ok = ok && jxl.JxlEncoderSetFrameLossless(settings, 1) == JXL_ENC_SUCCESS
        case .lossy(let distance): ok = ok && jxl.JxlEncoderSetFrameDistance(settings, distance) == JXL_ENC_SUCCESS
        }
        guard ok else { throw Self.failure("the frame settings") }
        return settings
    }

    /// Runs the encoder to the end, growing the output buffer as libjxl asks for more.
    private func output() throws(ConvertError) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: 1 << 16)
        var used = 0
        while true {
            let status = bytes.withUnsafeMutableBufferPointer { buffer -> JxlEncoderStatus in
                var next: UnsafeMutablePointer<UInt8>? = buffer.baseAddress.map { $0 + used }
                var available = buffer.count - used
                let status = jxl.JxlEncoderProcessOutput(encoder, &next, &available)
                used = buffer.count - available
                return status
            }
            switch status {
            case JXL_ENC_SUCCESS: return Array(bytes[..<used])
            case JXL_ENC_NEED_MORE_OUTPUT: bytes += [UInt8](repeating: 0, count: bytes.count)
            default: throw Self.failure("the output (libjxl error \(jxl.JxlEncoderGetError(encoder).rawValue))")
            }
        }
    }

    private static func failure(_ what: String) -> ConvertError {
        ConvertError(code: .encodeFailed, message: "JPEG XL encoding failed at \(what).")
    }
}
