internal import CJXL

/// What a JPEG XL file holds, read by ``JXLDecoder``.
struct JXLImage {
    /// Width and height as displayed (the codestream's orientation applied).
    var width: Int
    var height: Int
    /// Bits per sample of the colour channels.
    var bitDepth: Int
    var hasAlpha: Bool
    /// Whether the colour channels are grey.
    var isGrey: Bool
    /// The file's own colour profile (for `info`): its ICC, or one libjxl makes from its
    /// colour encoding.
    var originalICC: [UInt8]?
    /// The nclx of pixels coded in PQ or HLG (the colour encoding they are decoded in), nil
    /// for any other transfer.
    var hdrCoding: NCLX?
    /// Whether it is an animation (only the first frame is decoded).
    var isAnimated: Bool
    var exif: [UInt8]?
    var xmp: [UInt8]?
    /// Upright pixels tagged with the profile they are in; nil when only the header was asked for.
    var bitmap: Bitmap?
}

/// Owns a `JxlDecoder` and the thread pool it runs on; freed with `JxlDecoderDestroy`.
/// Single use: each file gets a new decoder.
final class JXLDecoder {
    private let decoder: OpaquePointer
    /// libjxl's functions (loaded on first use: see ``JXLLibrary``).
    private let jxl: offc_jxl_api
    /// Kept for as long as `decoder`, which calls into it.
    private let runner: JXLThreadRunner

    init(threads: Int) throws(ConvertError) {
        jxl = try JXLLibrary.functions()
        guard let decoder = jxl.JxlDecoderCreate(nil) else {
            throw ConvertError(code: .internalMemory, message: "Out of memory.")
        }
        self.decoder = decoder
        runner = try JXLThreadRunner(threads: threads)
        guard runner.attach(decoder: decoder) else {
            throw ConvertError(code: .decodeFailed, message: "Setting up the JPEG XL decoder failed.")
        }
    }

    deinit { jxl.JxlDecoderDestroy(decoder) }

    /// Reads `data` (a whole file): the header, colour and metadata boxes, and the first frame's
    /// pixels when `pixels` is set (refused before allocation when over `maxPixels`).
    func read(_ data: [UInt8], pixels: Bool, maxPixels: Int, path: String) throws(ConvertError) -> JXLImage {
        var events = Int32(JXL_DEC_BASIC_INFO.rawValue | JXL_DEC_COLOR_ENCODING.rawValue | JXL_DEC_BOX.rawValue)
        if pixels { events |= Int32(JXL_DEC_FULL_IMAGE.rawValue) }
        guard jxl.JxlDecoderSubscribeEvents(decoder, events) == JXL_DEC_SUCCESS,
            jxl.JxlDecoderSetDecompressBoxes(decoder, 1) == JXL_DEC_SUCCESS
        else { throw Self.corrupt(path) }
        return try data.withUnsafeBufferPointer { (input) throws(ConvertError) -> JXLImage in
            guard jxl.JxlDecoderSetInput(decoder, input.baseAddress, input.count) == JXL_DEC_SUCCESS else {
                throw Self.corrupt(path)
            }
            jxl.JxlDecoderCloseInput(decoder)
            var state = ReadState(wantsPixels: pixels)
            defer { state.release() }
            return try run(&state, maxPixels: maxPixels, path: path)
        }
    }

    /// What the event loop has gathered so far.
    private struct ReadState {
        var wantsPixels: Bool
        var info = JxlBasicInfo()
        var haveInfo = false
        var format = JxlPixelFormat()
        var originalICC: [UInt8]?
        var dataICC: [UInt8]?
        var hdrCoding: NCLX?
        var boxes: [String: [UInt8]] = [:]
        /// The box being read into `boxBuffer`, by type.
        var boxType: String?
        /// Memory libjxl writes the box into between calls, so not a Swift array (whose storage
        /// may move); freed in ``release()``.
        var boxBuffer: UnsafeMutableRawBufferPointer?
        var pixels: UnsafeMutableRawBufferPointer?
        var gotPixels = false

        mutating func release() {
            pixels?.deallocate()
            pixels = nil
            boxBuffer?.deallocate()
            boxBuffer = nil
        }

        /// A box buffer of at least `size` bytes holding the first `kept` bytes of the old one.
        mutating func growBox(to size: Int, keeping kept: Int) -> UnsafeMutableRawBufferPointer {
            let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: size, alignment: 1)
            if let old = boxBuffer {
                buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: old[..<kept]))
                old.deallocate()
            }
            boxBuffer = buffer
            return buffer
        }
    }

    private func run(_ state: inout ReadState, maxPixels: Int, path: String) throws(ConvertError) -> JXLImage {
        while true {
            let status = jxl.JxlDecoderProcessInput(decoder)
            switch status {
            case JXL_DEC_BASIC_INFO:
                guard jxl.JxlDecoderGetBasicInfo(decoder, &state.info) == JXL_DEC_SUCCESS else {
                    throw Self.corrupt(path)
                }
                state.haveInfo = true
                let size = uprightSize(state.info)
                try PixelLimit.check(width: size.width, height: size.height, limit: maxPixels, path: path)
                state.format = JxlPixelFormat(
                    num_channels: state.info.alpha_bits > 0 ? 4 : 3,
                    data_type: state.info.bits_per_sample > 8 ? JXL_TYPE_UINT16 : JXL_TYPE_UINT8,
                    endianness: JXL_NATIVE_ENDIAN, align: 0)
            case JXL_DEC_COLOR_ENCODING:
                state.originalICC = profile(JXL_COLOR_PROFILE_TARGET_ORIGINAL, format: state.format)
                state.dataICC = profile(JXL_COLOR_PROFILE_TARGET_DATA, format: state.format)
                // A lossy file whose pixels come out linear (XYB coded from an ICC profile
                // libjxl 0.7 cannot convert to) would band at 8 bits.
                if state.info.uses_original_profile == 0, isLinear(JXL_COLOR_PROFILE_TARGET_DATA, format: state.format)
                {
                    state.format.data_type = JXL_TYPE_UINT16
                }
                // PQ and HLG code values are read at 16 bits, as a 10-bit HEIF's are.
                state.hdrCoding = hdrCoding(format: state.format)
                if state.hdrCoding != nil { state.format.data_type = JXL_TYPE_UINT16 }
            case JXL_DEC_NEED_IMAGE_OUT_BUFFER:
                var size = 0
                guard jxl.JxlDecoderImageOutBufferSize(decoder, &state.format, &size) == JXL_DEC_SUCCESS else {
                    throw Self.corrupt(path)
                }
                state.pixels?.deallocate()
                let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: size, alignment: 16)
                state.pixels = buffer
                guard
                    jxl.JxlDecoderSetImageOutBuffer(decoder, &state.format, buffer.baseAddress, size) == JXL_DEC_SUCCESS
                else {
                    throw Self.corrupt(path)
                }
            case JXL_DEC_FULL_IMAGE:
                state.gotPixels = true
                // Only the first frame of an animation; metadata boxes that follow it are not read.
                if state.info.have_animation != 0 {
                    finishBox(&state)
                    return image(state)
                }
            case JXL_DEC_BOX:
                finishBox(&state)
                try startBox(&state, path: path)
            case JXL_DEC_BOX_NEED_MORE_OUTPUT:
                let left = jxl.JxlDecoderReleaseBoxBuffer(decoder)
                let old = state.boxBuffer?.count ?? 0
                let buffer = state.growBox(to: old * 2 + (1 << 12), keeping: old - left)
                try setBoxBuffer(buffer, from: old - left, path: path)
            case JXL_DEC_SUCCESS:
                finishBox(&state)
                guard state.haveInfo, !state.wantsPixels || state.gotPixels else { throw Self.corrupt(path) }
                return image(state)
            case JXL_DEC_NEED_MORE_INPUT:
                throw ConvertError(code: .inputTruncated, message: "\(path) is damaged: it is cut short.", path: path)
            default:
                throw Self.corrupt(path)
            }
        }
    }

    private func uprightSize(_ info: JxlBasicInfo) -> (width: Int, height: Int) {
        let swaps = info.orientation.rawValue >= JXL_ORIENT_TRANSPOSE.rawValue
        return swaps ? (Int(info.ysize), Int(info.xsize)) : (Int(info.xsize), Int(info.ysize))
    }

    private func isLinear(_ target: JxlColorProfileTarget, format: JxlPixelFormat) -> Bool {
        var format = format
        var encoding = JxlColorEncoding()
        guard jxl.JxlDecoderGetColorAsEncodedProfile(decoder, &format, target, &encoding) == JXL_DEC_SUCCESS else {
            return false
        }
        return encoding.transfer_function == JXL_TRANSFER_FUNCTION_LINEAR
    }

    /// The nclx of the pixels as they are decoded when their colour encoding is PQ or HLG over
    /// BT.2100, Display P3 or sRGB primaries with a D65 white; nil otherwise.
    private func hdrCoding(format: JxlPixelFormat) -> NCLX? {
        var format = format
        var encoding = JxlColorEncoding()
        guard
            jxl.JxlDecoderGetColorAsEncodedProfile(decoder, &format, JXL_COLOR_PROFILE_TARGET_DATA, &encoding)
                == JXL_DEC_SUCCESS,
            encoding.color_space == JXL_COLOR_SPACE_RGB, encoding.white_point == JXL_WHITE_POINT_D65
        else { return nil }
        let transfer: Int
        switch encoding.transfer_function {
        case JXL_TRANSFER_FUNCTION_PQ: transfer = 16
        case JXL_TRANSFER_FUNCTION_HLG: transfer = 18
        default: return nil
        }
        let primaries: Int
        switch encoding.primaries {
        case JXL_PRIMARIES_2100: primaries = 9
        case JXL_PRIMARIES_P3: primaries = 12
        case JXL_PRIMARIES_SRGB: primaries = 1
        default: return nil
        }
        return NCLX(primaries: primaries, transfer: transfer, matrix: 0, fullRange: true)
    }

    private func profile(_ target: JxlColorProfileTarget, format: JxlPixelFormat) -> [UInt8]? {
        var format = format
        var size = 0
        guard jxl.JxlDecoderGetICCProfileSize(decoder, &format, target, &size) == JXL_DEC_SUCCESS, size > 0 else {
            return nil
        }
        var icc = [UInt8](repeating: 0, count: size)
        let ok = icc.withUnsafeMutableBufferPointer {
            jxl.JxlDecoderGetColorAsICCProfile(decoder, &format, target, $0.baseAddress, size) == JXL_DEC_SUCCESS
        }
        return ok ? icc : nil
    }

    /// Starts reading the box just found when it is metadata (`Exif`, `xml `).
    private func startBox(_ state: inout ReadState, path: String) throws(ConvertError) {
        var type: (CChar, CChar, CChar, CChar) = (0, 0, 0, 0)
        guard
            withUnsafeMutableBytes(
                of: &type, { jxl.JxlDecoderGetBoxType(decoder, $0.baseAddress?.assumingMemoryBound(to: CChar.self), 1) }
            )
                == JXL_DEC_SUCCESS
        else { return }
        let name = String(decoding: withUnsafeBytes(of: &type) { Array($0) }, as: UTF8.self)
        guard name == "Exif" || name == "xml ", state.boxes[name] == nil else { return }
        state.boxType = name
        try setBoxBuffer(state.growBox(to: 1 << 12, keeping: 0), from: 0, path: path)
    }

    /// Hands libjxl the unfilled tail of the box buffer, which stays put until libjxl has
    /// released it (``finishBox(_:)`` or the next NEED_MORE_OUTPUT).
    private func setBoxBuffer(_ buffer: UnsafeMutableRawBufferPointer, from offset: Int, path: String)
        throws(ConvertError)
    {
        let start = buffer.baseAddress.map { ($0 + offset).assumingMemoryBound(to: UInt8.self) }
        guard jxl.JxlDecoderSetBoxBuffer(decoder, start, buffer.count - offset) == JXL_DEC_SUCCESS else {
            throw Self.corrupt(path)
        }
    }

    private func finishBox(_ state: inout ReadState) {
        guard let name = state.boxType, let buffer = state.boxBuffer else { return }
        let left = jxl.JxlDecoderReleaseBoxBuffer(decoder)
        state.boxes[name] = Array(buffer[..<(buffer.count - left)])
        state.boxType = nil
        buffer.deallocate()
        state.boxBuffer = nil
    }

    private func image(_ state: ReadState) -> JXLImage {
        let size = uprightSize(state.info)
        var bitmap: Bitmap?
        if state.wantsPixels, let pixels = state.pixels {
            let channels = Int(state.format.num_channels)
            let count = size.width * size.height * channels
            let samples: Bitmap.Samples =
                state.format.data_type == JXL_TYPE_UINT16
                ? .sixteen(Array(pixels.bindMemory(to: UInt16.self).prefix(count)))
                : .eight(Array(pixels.bindMemory(to: UInt8.self).prefix(count)))
            bitmap = Bitmap(
                width: size.width, height: size.height, channels: channels, samples: samples,
                sourceBitDepth: Int(state.info.bits_per_sample), icc: state.dataICC)
        }
        // The Exif box starts with the offset of the TIFF header within it.
        let exif = state.boxes["Exif"].flatMap { box -> [UInt8]? in
            guard box.count > 4 else { return nil }
            let offset = Int(box[0]) << 24 | Int(box[1]) << 16 | Int(box[2]) << 8 | Int(box[3])
            return offset < box.count - 4 ? Array(box[(4 + offset)...]) : nil
        }
        return JXLImage(
            width: size.width, height: size.height, bitDepth: Int(state.info.bits_per_sample),
            hasAlpha: state.info.alpha_bits > 0, isGrey: state.info.num_color_channels == 1,
            originalICC: state.originalICC, hdrCoding: state.hdrCoding,
            isAnimated: state.info.have_animation != 0, exif: exif, xmp: state.boxes["xml "], bitmap: bitmap)
    }

    private static func corrupt(_ path: String) -> ConvertError {
        ConvertError(code: .inputCorrupt, message: "\(path) is damaged or not a JPEG XL image.", path: path)
    }
}
