/// The decode-only floor of `heic-to-jpg`, for the benchmarks in Benchmarks/ (`package`, not part of
/// the public API): how long the decode alone takes, so a batch can be compared with it.
package enum DecodeFloor {
    /// Which decoder the floor measures.
    package enum Decoder: Sendable {
        /// The product's: HEVC tiles straight to YCbCr (``HeifYCbCrDecoder``) where the photo
        /// takes the direct JPEG path, libheif otherwise.
        case product
        /// libheif's decode of the same photos to its own planes (an iPhone grid assembled in
        /// RGB): the decode heif-convert and the other libheif-based tools pay for.
        case libheif
    }

    /// Decodes the primary image of the photo at `path` exactly as `heic-to-jpg` does (or, with
    /// `.libheif`, as libheif does), then drops the pixels: the same settings with
    /// `decodingThreads` tile threads (see ``DecodingThreads``), to the planes the direct JPEG path
    /// hands to the encoder when the photo takes it and to an RGB bitmap otherwise. Nothing is
    /// encoded or written.
    package static func decodePrimary(path: String, decodingThreads: Int, decoder: Decoder = .product)
        throws(ConvertError)
    {
        let cancellation = CancellationFlag()
        var opened: OpenedPhoto?
        if try ImageDecoder.sniff(path: path) == .heic {
            switch decoder {
            case .product:
                let readers = try OpenedPhoto(
                    PhotoInput.open(path: path, for: .converting), decodingThreads: decodingThreads)
                opened = readers
                if let source = try PhotoConverter.directJPEGSource(readers, maxPixels: PixelLimit.defaultMaxPixels),
                    try PhotoConverter.directPicture(
                        source, opened: readers, maxPixels: PixelLimit.defaultMaxPixels, cancellation: cancellation)
                        != nil
                {
                    return
                }
            case .libheif:
                let context = try HeifContext(reading: path, decodingThreads: decodingThreads)
                if let handle = try PhotoConverter.libheifSource(context, maxPixels: PixelLimit.defaultMaxPixels) {
                    _ = try PhotoConverter.directPlanes(handle, cancellation: cancellation)
                    return
                }
            }
        }
        var options = DecodeOptions()
        options.decodingThreads = decodingThreads
        _ = try ImageDecoder.decode(path: path, options: options, cancellation: cancellation, opened: opened)
    }
}
