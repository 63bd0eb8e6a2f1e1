internal import CDe265

/// The 4:2:0 (or, where the caller takes it, 4:2:2) planes of one decoded HEVC picture, lent by
/// ``HEVCDecoder``. Valid only inside the closure they are lent to.
struct HEVCPicture {
    /// Y, Cb, Cr: bytes at 8 bits, native-endian 16-bit words (value in the low bits) above.
    var planes: [UnsafePointer<UInt8>]
    /// Row lengths in bytes.
    var strides: [Int]
    /// Bits per sample, the same in every plane.
    var bitDepth: Int
    /// Luma size; each chroma plane is half its width, rounded up, and half its height (4:2:0) or
    /// all of it (4:2:2, ``chromaFullHeight``).
    var width: Int
    var height: Int
    /// Whether the chroma planes have every row (4:2:2) rather than every other (4:2:0).
    var chromaFullHeight = false
    /// The stream's own colour signalling (VUI): whether YCbCr uses the full range, and the
    /// matrix (H.273 code point; 2 when the stream does not say).
    var fullRange: Bool
    var matrix: Int
}

/// Owns a libde265 decoder context (`de265_new_decoder`, freed with `de265_free_decoder`) that
/// decodes single intra pictures, one after another: a HEIC's tiles, or its one coded image.
///
/// For a grid it runs no worker threads of its own: callers parallelise across tiles, with one
/// decoder per thread, which is what scales for small independent tiles.
final class HEVCDecoder {
    private let context: UnsafeMutableRawPointer

    /// A decoder; with `workerThreads` above 1 libde265 decodes each picture on that many threads
    /// of its own (wavefront rows, which x265 writes by default), for an image that is one large
    /// picture rather than a grid of tiles decoded side by side.
    init(workerThreads: Int = 0) throws(ConvertError) {
        guard let context = de265_new_decoder() else {
            throw ConvertError(code: .internalMemory, message: "Out of memory.")
        }
        self.context = context
        // Without worker threads the picture is decoded on the calling thread; a failure to
        // start them leaves it so.
        if workerThreads > 1 { _ = de265_start_worker_threads(context, Int32(clamping: workerThreads)) }
    }

    deinit { de265_free_decoder(context) }

    /// Why a picture could not be decoded: the stream is damaged, or not in a form this decoder
    /// takes (then the caller lets libheif decide).
    struct Failure: Error {
        var reason: String
    }

    /// Decodes one picture from an `hvcC` record's parameter sets and an item's length-prefixed
    /// NAL units, and lends its planes to `body`. Anything short of one clean 4:2:0 picture with one
    /// bit depth in all planes (a decoder warning, another chroma format, no picture) is a ``Failure``.
    /// With `lumaOnly` (a monochrome HDR gain map) any chroma format is taken and only the luma
    /// plane is lent (`planes` and `strides` then have one element); with `taking422` a 4:2:2
    /// picture is lent as well (Canon's cameras write 4:2:2).
    func decode<T>(
        configuration: HEVCConfiguration, data: consuming [UInt8], lumaOnly: Bool = false, taking422: Bool = false,
        _ body: (HEVCPicture) -> T
    ) throws(Failure) -> T {
        de265_reset(context)
        for unit in configuration.parameterSets {
            if let failure = unit.withUnsafeBytes({ push($0) }) { throw failure }
        }
        let lengthSize = configuration.lengthSize
        let failure = data.withUnsafeBytes { raw -> Failure? in
            var position = 0
            while position < raw.count {
                guard raw.count - position >= lengthSize else { return Failure(reason: "NAL length cut short") }
                var length = 0
                for index in 0..<lengthSize { length = length << 8 | Int(raw[position + index]) }
                position += lengthSize
                guard length > 0, length <= raw.count - position else {
                    return Failure(reason: "NAL unit runs past the item")
                }
                if let failure = push(UnsafeRawBufferPointer(rebasing: raw[position..<position + length])) {
                    return failure
                }
                position += length
            }
            return nil
        }
        if let failure { throw failure }
        // libde265 copied every NAL unit it was given: the coded bytes can go before the picture
        // is decoded (a caller that hands them over, as HeifYCbCrDecoder does, frees them here).
        data = []
        de265_flush_data(context)
        // `more` counts pictures waiting in the output queue once the input has ended, so the
        // loop stops at the first picture (a tile is one intra picture).
        var more: Int32 = 1
        while more != 0, de265_peek_next_picture(context) == nil {
            let status = de265_decode(context, &more)
            guard status == DE265_OK else {
                throw Failure(reason: String(cString: de265_get_error_text(status)))
            }
        }
        if let warning = firstDamageWarning() { throw Failure(reason: String(cString: de265_get_error_text(warning))) }
        guard let image = de265_get_next_picture(context) else { throw Failure(reason: "no picture decoded") }
        defer { de265_release_next_picture(context) }
        let bitDepth = Int(de265_get_bits_per_pixel(image, 0))
        if lumaOnly { return try lumaPicture(image, bitDepth: bitDepth, body) }
        let chroma = de265_get_chroma_format(image)
        let fullHeight = chroma == de265_chroma_422
        guard chroma == de265_chroma_420 || (taking422 && fullHeight), (8...16).contains(bitDepth),
            (1..<3).allSatisfy({ Int(de265_get_bits_per_pixel(image, Int32($0))) == bitDepth })
        else { throw Failure(reason: "not 4:2:0 with one bit depth") }
        var planes: [UnsafePointer<UInt8>] = []
        var strides: [Int] = []
        for channel in Int32(0)..<3 {
            var stride: Int32 = 0
            guard let plane = de265_get_image_plane(image, channel, &stride), stride > 0 else {
                throw Failure(reason: "picture without planes")
            }
            planes.append(plane)
            strides.append(Int(stride))
        }
        let width = Int(de265_get_image_width(image, 0))
        let height = Int(de265_get_image_height(image, 0))
        guard width > 0, height > 0, Int(de265_get_image_width(image, 1)) == (width + 1) / 2,
            Int(de265_get_image_height(image, 1)) == (fullHeight ? height : (height + 1) / 2)
        else { throw Failure(reason: "unexpected plane sizes") }
        return body(
            HEVCPicture(
                planes: planes, strides: strides, bitDepth: bitDepth, width: width, height: height,
                chromaFullHeight: fullHeight, fullRange: de265_get_image_full_range_flag(image) != 0,
                matrix: Int(de265_get_image_matrix_coefficients(image))))
    }

    /// The luma plane of `image` alone, lent to `body`.
    private func lumaPicture<T>(_ image: OpaquePointer, bitDepth: Int, _ body: (HEVCPicture) -> T) throws(Failure) -> T
    {
        var stride: Int32 = 0
        guard (8...16).contains(bitDepth), let plane = de265_get_image_plane(image, 0, &stride), stride > 0 else {
            throw Failure(reason: "picture without a luma plane")
        }
        let width = Int(de265_get_image_width(image, 0))
        let height = Int(de265_get_image_height(image, 0))
        guard width > 0, height > 0 else { throw Failure(reason: "unexpected plane sizes") }
        return body(
            HEVCPicture(
                planes: [plane], strides: [Int(stride)], bitDepth: bitDepth, width: width, height: height,
                fullRange: de265_get_image_full_range_flag(image) != 0,
                matrix: Int(de265_get_image_matrix_coefficients(image))))
    }

    /// The first queued warning that says the picture may be wrong, draining the queue. Warnings
    /// about threading only (a stream written without wavefronts, as x265 writes without a thread
    /// pool, cannot use the worker threads) say nothing about the picture, which is then decoded on
    /// one thread.
    private func firstDamageWarning() -> de265_error? {
        var damage: de265_error?
        while true {
            let warning = de265_get_warning(context)
            if warning == DE265_OK { return damage }
            if warning == DE265_WARNING_NO_WPP_CANNOT_USE_MULTITHREADING
                || warning == DE265_WARNING_NUMBER_OF_THREADS_LIMITED_TO_MAXIMUM
            {
                continue
            }
            damage = damage ?? warning
        }
    }

    /// Queues one NAL unit; a failure when libde265 refuses it.
    private func push(_ unit: UnsafeRawBufferPointer) -> Failure? {
        guard let base = unit.baseAddress, !unit.isEmpty else { return Failure(reason: "empty NAL unit") }
        let status = de265_push_NAL(context, base, Int32(clamping: unit.count), 0, nil)
        return status == DE265_OK ? nil : Failure(reason: String(cString: de265_get_error_text(status)))
    }
}
