/// The decode-only floor of `heic-to-jpg`, for the benchmarks in Benchmarks/ (SPI, not part of
/// the stable API): how long the decode alone takes, so a batch can be compared with it.
@_spi(Benchmarks)
public enum DecodeFloor {
    /// Decodes the primary image of the photo at `path` exactly as `heic-to-jpg` does, then drops
    /// the pixels: the same libheif context settings with `decodingThreads` tile threads (see
    /// ``DecodingThreads``), to the planes the direct JPEG path hands to the encoder when the photo
    /// takes it and to an RGB bitmap otherwise. Nothing is encoded or written.
    public static func decodePrimary(path: String, decodingThreads: Int) throws(ConvertError) {
        let cancellation = CancellationFlag()
        if try ImageDecoder.sniff(path: path) == .heic,
            let (handle, nclx) = try PhotoConverter.directJPEGSource(
                path: path, decodingThreads: decodingThreads, maxPixels: PixelLimit.defaultMaxPixels)
        {
            _ = try PhotoConverter.directPicture(
                path: path, handle: handle, nclx: nclx, decodingThreads: decodingThreads,
                maxPixels: PixelLimit.defaultMaxPixels, cancellation: cancellation)
            return
        }
        var options = DecodeOptions()
        options.decodingThreads = decodingThreads
        _ = try ImageDecoder.decode(path: path, options: options, cancellation: cancellation)
    }
}
