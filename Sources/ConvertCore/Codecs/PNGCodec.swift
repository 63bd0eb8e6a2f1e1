internal import CPNGShim

/// PNG decode and encode through the CPNGShim wrappers (libpng's longjmp stays in C).
enum PNGCodec {
    /// A decoded PNG with the metadata it carried.
    struct Decoded {
        var bitmap: Bitmap
        var exif: [UInt8]?
        /// The XMP packet of an `XML:com.adobe.xmp` text chunk.
        var xmp: [UInt8]?
        /// The other text chunks (tEXt, zTXt, iTXt), before and after the image data, in order.
        var texts: [PNGText.Entry] = []
        /// What is missing when the file was cut short (decoded with `tolerateCut`), for the note.
        var damage: String?
    }

    /// Decodes a PNG held in `data` to RGB(A) 8 or 16 bits; refuses images over `maxPixels`.
    /// With `tolerateCut`, a file that ends inside or after its image data (an interrupted copy)
    /// is decoded as far as it goes, the rest grey, and a tRNS chunk libpng ignores as invalid
    /// (out of place, or more entries than the palette) is ignored: ``Decoded/damage`` says so.
    /// Without it, both are refused.
    static func decode(_ data: [UInt8], maxPixels: Int, path: String, tolerateCut: Bool = false) throws(ConvertError)
        -> Decoded
    {
        // IHDR is the first chunk (PNG 11.2.2): its size is checked against the limit and the
        // machine's memory before anything is allocated for the rows.
        guard let layout = Layout(data) else { throw damaged(path, reason: "its first chunk is not a valid IHDR") }
        try PixelLimit.check(width: layout.width, height: layout.height, limit: maxPixels, path: path)
        let (product, overflow) = (layout.width * layout.height).multipliedReportingOverflow(by: layout.channels)
        guard !overflow, layout.width <= Int(Int32.max), layout.height <= Int(Int32.max) else {
            throw damaged(path, reason: "its picture is too large")
        }
        var image = offc_png_image()
        var message = [CChar](repeating: 0, count: 256)
        defer { offc_png_free(&image) }
        // libpng writes the rows straight into the bitmap's own storage: no second copy of the picture.
        var status: Int32 = -1
        func decode(into target: UnsafeMutableRawBufferPointer) {
            status = data.withUnsafeBufferPointer { buffer in
                offc_png_decode(
                    buffer.baseAddress, buffer.count, UInt64(maxPixels), tolerateCut ? 1 : 0,
                    target.baseAddress?.assumingMemoryBound(to: UInt8.self), target.count, &image, &message,
                    message.count)
            }
        }
        let samples: Bitmap.Samples
        if layout.sixteenBit {
            samples = .sixteen(
                [UInt16](unsafeUninitializedCapacity: product) { buffer, count in
                    decode(into: UnsafeMutableRawBufferPointer(buffer))
                    count = status == 0 ? product : 0
                })
        } else {
            samples = .eight(
                [UInt8](unsafeUninitializedCapacity: product) { buffer, count in
                    decode(into: UnsafeMutableRawBufferPointer(buffer))
                    count = status == 0 ? product : 0
                })
        }
        // -2: the header declares more pixels than `maxPixels`; nothing was decoded.
        if status == -2 {
            throw ConvertError(
                code: .inputTooManyPixels,
                message:
                    "\(path) declares a picture over the limit of \(maxPixels) pixels; raise the limit if the file is trusted.",
                path: path, underlying: String(nulTerminated: message))
        }
        guard status == 0 else { throw damaged(path, reason: String(nulTerminated: message)) }
        var channels = layout.channels
        var damage = image.cut == 0 ? nil : Self.cutNote(missingRows: Int(image.rows_missing), height: layout.height)
        var pixels = samples
        if image.has_alpha == 0, layout.channels == 4 {
            // libpng ignored the tRNS chunk the layout counted on (out of place, or with more
            // entries than the palette: "tRNS: invalid"), as every libpng-based viewer does:
            // the rows are RGB, packed at the start of the buffer.
            let problem = layout.transparencyProblem.isEmpty ? "damaged" : layout.transparencyProblem
            guard tolerateCut else {
                throw damaged(path, reason: "its transparency chunk (tRNS) is invalid (\(problem))")
            }
            channels = 3
            let count = layout.width * layout.height * 3
            switch samples {
            case .eight(let values): pixels = .eight(Array(values.prefix(count)))
            case .sixteen(let values): pixels = .sixteen(Array(values.prefix(count)))
            }
            let note =
                "its transparency chunk (tRNS) is invalid (\(problem)): ignored, as libpng ignores it"
            damage = damage.map { "\($0); \(note)" } ?? note
        } else if (image.has_alpha != 0) != (layout.channels == 4) {
            throw damaged(path, reason: "its transparency does not match its chunks")
        }
        let icc = image.icc.map { Array(UnsafeBufferPointer(start: $0, count: image.icc_size)) }
        let exif = image.exif.map { Array(UnsafeBufferPointer(start: $0, count: image.exif_size)) }
        let xmp = image.xmp.map { Array(UnsafeBufferPointer(start: $0, count: image.xmp_size)) }
        let texts = image.texts.map { PNGText.entries(Array(UnsafeBufferPointer(start: $0, count: image.texts_size))) }
        let bitmap = Bitmap(
            width: layout.width, height: layout.height, channels: channels, samples: pixels,
            sourceBitDepth: Int(image.bit_depth), icc: icc)
        return Decoded(bitmap: bitmap, exif: exif, xmp: xmp, texts: texts ?? [], damage: damage)
    }

    /// The bitmap a PNG decodes to, from its IHDR and the chunks before its image data: RGB, or
    /// RGBA when its colour type has alpha or a tRNS chunk gives it; 16 bits when it has 16.
    struct Layout {
        var width: Int
        var height: Int
        var channels: Int
        var sixteenBit: Bool
        /// Why libpng would ignore the tRNS chunk counted for ``channels``, in words for a note
        /// ("before the palette", "5 entries for a palette of 4"); "" when it is valid as far as
        /// these chunks tell.
        var transparencyProblem = ""

        /// The layout of the PNG in `data`, or nil when it does not start with a signature and an IHDR.
        init?(_ data: [UInt8]) {
            guard data.count >= 33, data[12..<16].elementsEqual("IHDR".utf8) else { return nil }
            func word(_ at: Int) -> Int { data[at..<at + 4].reduce(0) { $0 << 8 | Int($1) } }
            (width, height) = (word(16), word(20))
            guard width > 0, height > 0 else { return nil }
            sixteenBit = data[24] == 16
            var alpha = data[25] & 4 != 0
            var paletteEntries: Int?
            var offset = 8
            while offset + 8 <= data.count {
                let type = data[offset + 4..<offset + 8]
                let length = word(offset)
                if type.elementsEqual("IDAT".utf8) { break }
                if type.elementsEqual("PLTE".utf8) { paletteEntries = length / 3 }
                if type.elementsEqual("tRNS".utf8), !alpha {
                    alpha = true
                    transparencyProblem = Self.transparencyProblem(
                        colorType: data[25], length: length, paletteEntries: paletteEntries)
                }
                offset += 12 + length
            }
            channels = alpha ? 4 : 3
        }

        /// Why libpng 1.6 ignores a tRNS chunk of `length` bytes in a PNG of `colorType`
        /// (`png_handle_tRNS`), or "" when it takes it (its CRC aside).
        private static func transparencyProblem(colorType: UInt8, length: Int, paletteEntries: Int?) -> String {
            switch colorType {
            case 0: return length == 2 ? "" : "\(length) bytes for a grey picture's 2"
            case 2: return length == 6 ? "" : "\(length) bytes for a colour picture's 6"
            case 3:
                guard let paletteEntries else { return "before the palette" }
                if length == 0 || length > min(paletteEntries, 256) {
                    return "\(length) entries for a palette of \(paletteEntries)"
                }
                return ""
            default: return "in a picture with an alpha channel"
            }
        }
    }

    /// The note for a PNG cut short, worded as for a JPEG (``JPEGDamage``).
    static func cutNote(missingRows: Int, height: Int) -> String {
        guard missingRows > 0, height > 0 else {
            return
                "the file ends early (an interrupted copy or download): the picture is whole, what followed it is missing"
        }
        let percent = max(1, Int((Double(missingRows) * 100 / Double(height)).rounded()))
        return
            "the file ends early (an interrupted copy or download): the bottom \(percent)% of the picture is missing (shown grey)"
    }

    /// What a PNG's chunks before the image data say, read without inflating any pixel (for
    /// `info` and a batch's memory cost).
    struct Header {
        var width: Int
        var height: Int
        /// 8 or 16: the depth ``decode(_:maxPixels:path:)`` would deliver.
        var bitDepth: Int
        /// The IHDR's bit depth: 1, 2, 4, 8 or 16 (for a palette, its indices').
        var sourceBitDepth: Int
        /// The IHDR's colour type: 0 grey, 2 RGB, 3 palette, 4 grey and alpha, 6 RGBA.
        var colorType: Int
        var hasAlpha: Bool
        var icc: [UInt8]?
        var exif: [UInt8]?
    }

    /// Reads the header chunks of the PNG held in `data`; every chunk length is checked against
    /// the data first.
    static func header(_ data: [UInt8], path: String) throws(ConvertError) -> Header {
        var image = offc_png_image()
        var message = [CChar](repeating: 0, count: 256)
        let status = data.withUnsafeBufferPointer { buffer in
            offc_png_read_header(buffer.baseAddress, buffer.count, &image, &message, message.count)
        }
        defer { offc_png_free(&image) }
        guard status == 0, image.width > 0, image.height > 0 else {
            throw damaged(path, reason: String(nulTerminated: message))
        }
        return Header(
            width: Int(image.width), height: Int(image.height), bitDepth: Int(image.bit_depth),
            sourceBitDepth: Int(image.source_bit_depth), colorType: Int(image.color_type),
            hasAlpha: image.has_alpha != 0,
            icc: image.icc.map { Array(UnsafeBufferPointer(start: $0, count: image.icc_size)) },
            exif: image.exif.map { Array(UnsafeBufferPointer(start: $0, count: image.exif_size)) })
    }

    /// Reads the whole PNG in `data` as a conversion would, one row at a time and keeping none
    /// (for `info`, which must call damaged what a conversion refuses: a CRC error in the image
    /// data, a broken zlib stream); every chunk length is checked first. A file cut short that a
    /// conversion keeps as far as it goes is no failure: the note a conversion would give it is
    /// returned (`height` is the picture's, for its share missing).
    static func verify(_ data: [UInt8], height: Int, path: String) throws(ConvertError) -> String? {
        var message = [CChar](repeating: 0, count: 256)
        var missing: UInt32 = 0
        let status = data.withUnsafeBufferPointer { buffer in
            offc_png_verify(buffer.baseAddress, buffer.count, &missing, &message, message.count)
        }
        guard status >= 0 else { throw damaged(path, reason: String(nulTerminated: message)) }
        return status == 1 ? cutNote(missingRows: Int(missing), height: height) : nil
    }

    /// The `input.corrupt` error, with libpng's or the chunk check's reason in the message.
    private static func damaged(_ path: String, reason: String) -> ConvertError {
        ConvertError(
            code: .inputCorrupt,
            message: reason.isEmpty
                ? "\(path) is damaged or not a PNG image." : "\(path) is damaged or not a PNG image: \(reason).",
            path: path)
    }

    /// Writes `bitmap` as a PNG file at `path` with its ICC profile (iCCP), `exif` (eXIf),
    /// `xmp` (an uncompressed iTXt chunk with keyword `XML:com.adobe.xmp`, as exiftool and Adobe
    /// read it) and `texts` (each in the kind of chunk it came in, after the image data).
    static func encode(
        _ bitmap: Bitmap, exif: [UInt8]?, xmp: [UInt8]?, texts: [PNGText.Entry] = [], to path: String,
        displayPath: String
    ) throws(ConvertError) {
        var message = [CChar](repeating: 0, count: 256)
        let icc = bitmap.icc ?? []
        let exifBytes = exif ?? []
        let xmpBytes = xmp ?? []
        let textBytes = PNGText.serialised(texts)
        func run(_ pixels: UnsafeRawBufferPointer, bits: Int32) -> Int32 {
            icc.withUnsafeBufferPointer { iccBuffer in
                exifBytes.withUnsafeBufferPointer { exifBuffer in
                    xmpBytes.withUnsafeBufferPointer { xmpBuffer in
                        textBytes.withUnsafeBufferPointer { textBuffer in
                            PathEncoding.withCString(path) { path in
                                offc_png_encode_file(
                                    path, pixels.baseAddress?.assumingMemoryBound(to: UInt8.self),
                                    UInt32(bitmap.width), UInt32(bitmap.height), Int32(bitmap.channels), bits,
                                    iccBuffer.isEmpty ? nil : iccBuffer.baseAddress, iccBuffer.count,
                                    exifBuffer.isEmpty ? nil : exifBuffer.baseAddress, exifBuffer.count,
                                    xmpBuffer.isEmpty ? nil : xmpBuffer.baseAddress, xmpBuffer.count,
                                    textBuffer.isEmpty ? nil : textBuffer.baseAddress, textBuffer.count, 3, &message,
                                    message.count)
                            }
                        }
                    }
                }
            }
        }
        // zlib level 3 (in `run`): on photos, level 6 took twice as long for files only ~5% smaller.
        let status: Int32
        switch bitmap.samples {
        case .eight(let values): status = values.withUnsafeBytes { run($0, bits: 8) }
        case .sixteen(let values): status = values.withUnsafeBytes { run($0, bits: 16) }
        }
        if status > 0 { throw .fileSystem(status, action: "write", path: displayPath) }
        guard status == 0 else {
            throw ConvertError(
                code: .deviceIo, message: "Could not write the PNG \(displayPath).", path: displayPath,
                underlying: String(nulTerminated: message))
        }
    }
}
