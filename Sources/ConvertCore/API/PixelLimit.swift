/// The guard against decompression bombs: small files that claim enormous pictures.
///
/// Every decoder checks the picture size a file declares against a limit before it allocates
/// anything for the pixels. The default is the one sharp and libvips use, 0x3FFF × 0x3FFF
/// (268,402,689 pixels, a 16383-pixel square): far above any camera, far below what would exhaust
/// memory. Raise it per request (``PhotoRequest/maxPixels``, ``VideoRequest/maxPixels``,
/// ``GIFRequest/maxPixels``) for the rare real picture that is larger.
public enum PixelLimit {
    /// The default largest number of pixels one image or one video frame may have.
    public static let defaultMaxPixels = 268_402_689

    /// The `.input` error for a picture over the limit, with key `input.too-many-pixels`.
    package static func exceeded(width: Int, height: Int, limit: Int, path: String) -> ConvertError {
        ConvertError(
            code: .inputTooManyPixels,
            message:
                "\(path) declares a \(width)x\(height) picture (\(width.multipliedReportingOverflow(by: height).partialValue) pixels), "
                + "over the limit of \(limit) pixels; raise the limit if the file is trusted.",
            path: path)
    }

    /// Throws ``exceeded(width:height:limit:path:)`` unless a `width`×`height` picture fits in
    /// `limit` pixels, and `device.memory` unless it fits in the memory this process can get
    /// (``MemoryCeiling``), whatever the limit says. Negative sizes come from damaged headers and
    /// are refused too.
    package static func check(width: Int, height: Int, limit: Int, path: String) throws(ConvertError) {
        guard width >= 0, height >= 0 else {
            throw ConvertError(code: .inputCorrupt, message: "\(path) declares a negative picture size.", path: path)
        }
        let (pixels, overflow) = width.multipliedReportingOverflow(by: height)
        if overflow || pixels > limit { throw exceeded(width: width, height: height, limit: limit, path: path) }
        try MemoryCeiling.check(width: width, height: height, path: path)
    }
}
