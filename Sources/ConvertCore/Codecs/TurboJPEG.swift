internal import CTurboJPEG

/// Owns a TurboJPEG `tjhandle` (compressor or decompressor); destroyed with `tjDestroy`.
final class TurboJPEGHandle {
    private let handle: UnsafeMutableRawPointer

    private init(_ handle: UnsafeMutableRawPointer) { self.handle = handle }

    /// A decompressor.
    static func decompressor() throws(ConvertError) -> TurboJPEGHandle {
        guard let handle = tjInitDecompress() else {
            throw ConvertError(code: .internalMemory, message: "Could not start the JPEG decoder.")
        }
        return TurboJPEGHandle(handle)
    }

    /// A compressor.
    static func compressor() throws(ConvertError) -> TurboJPEGHandle {
        guard let handle = tjInitCompress() else {
            throw ConvertError(code: .internalMemory, message: "Could not start the JPEG encoder.")
        }
        return TurboJPEGHandle(handle)
    }

    deinit { tjDestroy(handle) }

    private var lastError: String { String(cString: tjGetErrorStr2(handle)) }

    /// Whether the last failure was only a warning (the image decoded, possibly with damage).
    private var lastWasWarning: Bool { tjGetErrorCode(handle) == Int32(TJERR_WARNING.rawValue) }

    /// The size and colour model of a JPEG held in `data`. A header libjpeg reads with a
    /// warning only (stray bytes before a marker, as some cameras write) is read as libjpeg and
    /// every viewer read it; ``JPEGHeader/warning`` keeps what it said, for the decode's note.
    func header(_ data: [UInt8], path: String) throws(ConvertError) -> JPEGHeader {
        var width: Int32 = 0
        var height: Int32 = 0
        var subsampling: Int32 = 0
        var colorspace: Int32 = 0
        let status = data.withUnsafeBufferPointer { buffer in
            tjDecompressHeader3(
                handle, buffer.baseAddress, UInt(buffer.count), &width, &height, &subsampling, &colorspace)
        }
        // TurboJPEG returns -1 for a warning too, with the size filled in: only an error refuses.
        let warning = status == 0 ? nil : lastWasWarning ? lastError : nil
        // It also refuses a chroma layout it has no name for (4:1:0, as some video frames are
        // coded), after filling in the size and colours: libjpeg decodes those like any other.
        let unnamedLayout = status != 0 && lastError.contains("Could not determine subsampling type")
        guard status == 0 || warning != nil || unnamedLayout, width > 0, height > 0 else {
            throw ConvertError(
                code: .inputCorrupt, message: "\(path) is damaged or not a JPEG image.", path: path,
                underlying: lastError)
        }
        let space: JPEGHeader.ColorSpace =
            switch colorspace {
            case Int32(TJCS_GRAY.rawValue): .gray
            case Int32(TJCS_RGB.rawValue): .rgb
            case Int32(TJCS_CMYK.rawValue): .cmyk
            case Int32(TJCS_YCCK.rawValue): .ycck
            default: .ycbcr
            }
        return JPEGHeader(width: Int(width), height: Int(height), colorSpace: space, warning: warning)
    }

    /// Decodes to 8-bit RGB at `width`×`height` (the full size or one of TurboJPEG's scaled
    /// sizes). Damaged data throws; see ``decodeRGBTolerating(_:width:height:path:)``.
    func decodeRGB(_ data: [UInt8], width: Int, height: Int, path: String) throws(ConvertError) -> [UInt8] {
        try decode(data, width: width, height: height, format: TJPF_RGB, channels: 3, path: path, what: "the JPEG data")
    }

    /// Decodes to 8-bit RGB as ``decodeRGB(_:width:height:path:)`` does, but a photo with
    /// damaged data (cut short by an interrupted copy, or bits flipped on a failing card) gives
    /// the picture libjpeg made of it, as every viewer shows it, and what was wrong.
    func decodeRGBTolerating(
        _ data: [UInt8], width: Int, height: Int, path: String
    ) throws(ConvertError) -> (pixels: [UInt8], damage: JPEGDamage?) {
        try decodeTolerating(data, width: width, height: height, format: TJPF_RGB, channels: 3, path: path)
    }

    /// Decodes a CMYK or YCCK JPEG to its four 8-bit ink samples per pixel (C, M, Y, K as stored:
    /// inverted in Adobe's files), YCCK's transform undone by libjpeg. Damaged data throws when
    /// `strict`, and otherwise gives the picture libjpeg made of it and what was wrong.
    func decodeCMYK(
        _ data: [UInt8], width: Int, height: Int, strict: Bool, path: String
    ) throws(ConvertError) -> (pixels: [UInt8], damage: JPEGDamage?) {
        if strict {
            return (
                try decode(
                    data, width: width, height: height, format: TJPF_CMYK, channels: 4, path: path,
                    what: "the JPEG data"), nil
            )
        }
        return try decodeTolerating(data, width: width, height: height, format: TJPF_CMYK, channels: 4, path: path)
    }

    private func decodeTolerating(
        _ data: [UInt8], width: Int, height: Int, format: TJPF, channels: Int, path: String
    ) throws(ConvertError) -> (pixels: [UInt8], damage: JPEGDamage?) {
        let (pixels, status) = decodeRaw(data, width: width, height: height, format: format, channels: channels)
        if status == 0 { return (pixels, nil) }
        guard lastWasWarning else { throw failure(path: path, what: "the JPEG data") }
        // Only a warning: libjpeg finished the picture (flat where data is missing).
        return (
            pixels,
            JPEGDamage(data: data, warning: lastError, pixels: pixels, width: width, height: height, channels: channels)
        )
    }

    /// Decodes a JPEG (an HDR gain map) to one 8-bit grey sample per pixel: a colour stream's
    /// luma, a greyscale stream as it is. Damaged data throws, as in ``decodeRGB(_:width:height:path:)``.
    func decodeGray(_ data: [UInt8], width: Int, height: Int, path: String) throws(ConvertError) -> [UInt8] {
        try decode(data, width: width, height: height, format: TJPF_GRAY, channels: 1, path: path, what: "its gain map")
    }

    private func decode(
        _ data: [UInt8], width: Int, height: Int, format: TJPF, channels: Int, path: String, what: String
    ) throws(ConvertError) -> [UInt8] {
        let (pixels, status) = decodeRaw(data, width: width, height: height, format: format, channels: channels)
        // A warning means the data was damaged but libjpeg produced an image (flat where data is
        // missing): refused here, where a whole decode is what is asked.
        guard status == 0 else { throw failure(path: path, what: what) }
        return pixels
    }

    /// The pixels TurboJPEG decoded into a buffer of exactly `width`×`height`×`channels`, and its status.
    private func decodeRaw(
        _ data: [UInt8], width: Int, height: Int, format: TJPF, channels: Int
    ) -> (pixels: [UInt8], status: Int32) {
        var pixels = [UInt8](repeating: 0, count: width * height * channels)
        let status = data.withUnsafeBufferPointer { source in
            pixels.withUnsafeMutableBufferPointer { target in
                tjDecompress2(
                    handle, source.baseAddress, UInt(source.count), target.baseAddress, Int32(width), 0,
                    Int32(height), Int32(format.rawValue), 0)
            }
        }
        return (pixels, status)
    }

    /// The error of a decode that failed (or, where a whole decode is needed, warned): a file
    /// that ends early is truncated, any other damage corrupt, as the streamed path says.
    private func failure(path: String, what: String) -> ConvertError {
        ConvertError(
            code: lastWasWarning && lastError.contains("Premature end of JPEG file") ? .inputTruncated : .inputCorrupt,
            message: "\(path) is damaged: \(what) could not be decoded completely.", path: path, underlying: lastError)
    }

    /// Encodes 8-bit RGB pixels; returns the JPEG stream (SOI, JFIF APP0, ..., EOI).
    func encodeRGB(_ pixels: [UInt8], width: Int, height: Int, quality: Int, subsampling: JPEGSubsampling)
        throws(ConvertError) -> [UInt8]
    {
        var buffer: UnsafeMutablePointer<UInt8>?
        var size: UInt = 0
        let status = pixels.withUnsafeBufferPointer { source in
            tjCompress2(
                handle, source.baseAddress, Int32(width), 0, Int32(height), Int32(TJPF_RGB.rawValue), &buffer, &size,
                subsampling.turboJPEGValue, Int32(quality), Int32(TJFLAG_ACCURATEDCT))
        }
        defer { if let buffer { tjFree(buffer) } }
        guard status == 0, let buffer else {
            throw ConvertError(code: .encodeFailed, message: "JPEG encoding failed.", underlying: lastError)
        }
        return Array(UnsafeBufferPointer(start: buffer, count: Int(size)))
    }
}

extension TurboJPEGHandle {
    /// Encodes 8-bit YCbCr 4:2:0 planes (full-range BT.601, JPEG's own colour model) straight
    /// to JPEG, skipping the RGB round trip.
    ///
    /// The stream is written into the returned array itself, sized for TurboJPEG's worst case
    /// (`tjBufSize`) with `TJFLAG_NOREALLOC`: only the pages the stream fills are ever touched, so
    /// no growing buffer is doubled and copied and no second copy of the stream is made.
    func encodeYUV420(
        planes: [UnsafePointer<UInt8>], strides: [Int32], width: Int, height: Int, quality: Int
    ) throws(ConvertError) -> [UInt8] {
        precondition(planes.count == 3 && strides.count == 3, "three planes")
        let bound = tjBufSize(Int32(width), Int32(height), Int32(TJSAMP_420.rawValue))
        guard bound != UInt(bitPattern: -1), bound > 0 else {
            throw ConvertError(code: .encodeFailed, message: "JPEG encoding failed.", underlying: lastError)
        }
        var planeList: [UnsafePointer<UInt8>?] = planes
        var strideList = strides
        var status: Int32 = -1
        let stream = [UInt8](unsafeUninitializedCapacity: Int(bound)) { buffer, initialized in
            var target = buffer.baseAddress
            var size = bound
            status = tjCompressFromYUVPlanes(
                handle, &planeList, Int32(width), &strideList, Int32(height), Int32(TJSAMP_420.rawValue), &target,
                &size,
                Int32(quality), Int32(TJFLAG_ACCURATEDCT | TJFLAG_NOREALLOC))
            initialized = status == 0 && target == buffer.baseAddress ? Int(min(size, bound)) : 0
        }
        guard status == 0, !stream.isEmpty else {
            throw ConvertError(code: .encodeFailed, message: "JPEG encoding failed.", underlying: lastError)
        }
        return stream
    }
}

extension TurboJPEGHandle {
    /// Encodes one 8-bit grey plane (an HDR gain map) as a greyscale JPEG.
    func encodeGray(_ pixels: [UInt8], width: Int, height: Int, quality: Int) throws(ConvertError) -> [UInt8] {
        var buffer: UnsafeMutablePointer<UInt8>?
        var size: UInt = 0
        let status = pixels.withUnsafeBufferPointer { source in
            tjCompress2(
                handle, source.baseAddress, Int32(width), 0, Int32(height), Int32(TJPF_GRAY.rawValue), &buffer, &size,
                Int32(TJSAMP_GRAY.rawValue), Int32(quality), Int32(TJFLAG_ACCURATEDCT))
        }
        defer { if let buffer { tjFree(buffer) } }
        guard status == 0, let buffer else {
            throw ConvertError(
                code: .encodeFailed, message: "JPEG encoding of the gain map failed.",
                underlying: String(cString: tjGetErrorStr2(handle)))
        }
        return Array(UnsafeBufferPointer(start: buffer, count: Int(size)))
    }
}

/// A scale TurboJPEG decodes at directly (DCT scaling), as a fraction.
struct JPEGScale: Equatable, Sendable {
    var numerator: Int
    var denominator: Int

    /// The full size.
    static let full = JPEGScale(numerator: 1, denominator: 1)

    /// The scales below 1 this libjpeg-turbo offers (`tjGetScalingFactors`), smallest first.
    static let reductions: [JPEGScale] = {
        var count: Int32 = 0
        guard let factors = tjGetScalingFactors(&count), count > 0 else { return [] }
        return (0..<Int(count)).map { JPEGScale(numerator: Int(factors[$0].num), denominator: Int(factors[$0].denom)) }
            .filter { $0.numerator > 0 && $0.numerator < $0.denominator }
            .sorted { $0.numerator * $1.denominator < $1.numerator * $0.denominator }
    }()

    /// `dimension` at this scale, rounded up as TurboJPEG does (`TJSCALED`).
    func scaled(_ dimension: Int) -> Int { (dimension * numerator + denominator - 1) / denominator }

    /// The smallest scale whose picture still holds every pixel `plan` keeps at its output size
    /// (so the resampler only ever shrinks it); the full size when the plan reduces by less than
    /// half: then the saving is small, and a full-size decode leaves all filtering to Lanczos.
    static func smallest(for plan: ResizePlan) -> JPEGScale {
        guard plan.requiredScale <= 0.5 else { return .full }
        return reductions.first { scale in
            scale.scaled(plan.crop.width) >= plan.scaledWidth && scale.scaled(plan.crop.height) >= plan.scaledHeight
        } ?? .full
    }
}

extension TurboJPEGHandle {
    /// Encodes 8-bit planar RGB (libheif's layout for grid photos) as 4:2:0 JPEG. TurboJPEG
    /// takes interleaved RGB only, so the planes are interleaved first: a plain copy, far
    /// cheaper than asking libheif for YCbCr, which converts in scalar floating point.
    func encodeRGBPlanes(
        planes: [UnsafePointer<UInt8>], strides: [Int32], width: Int, height: Int, quality: Int
    ) throws(ConvertError) -> [UInt8] {
        precondition(planes.count == 3 && strides.count == 3, "three planes")
        let rowBytes = width * 3
        let pixels = [UInt8](unsafeUninitializedCapacity: rowBytes * height) { buffer, initialized in
            guard let base = buffer.baseAddress else { return }
            for y in 0..<height {
                let red = planes[0] + y * Int(strides[0])
                let green = planes[1] + y * Int(strides[1])
                let blue = planes[2] + y * Int(strides[2])
                let row = base + y * rowBytes
                for x in 0..<width {
                    row[3 * x] = red[x]
                    row[3 * x + 1] = green[x]
                    row[3 * x + 2] = blue[x]
                }
            }
            initialized = rowBytes * height
        }
        return try encodeRGB(pixels, width: width, height: height, quality: quality, subsampling: .s420)
    }
}

extension JPEGSubsampling {
    /// The TurboJPEG constant (`TJSAMP_*`) of this subsampling.
    var turboJPEGValue: Int32 {
        switch self {
        case .s444: Int32(TJSAMP_444.rawValue)
        case .s422: Int32(TJSAMP_422.rawValue)
        case .s420: Int32(TJSAMP_420.rawValue)
        }
    }
}
