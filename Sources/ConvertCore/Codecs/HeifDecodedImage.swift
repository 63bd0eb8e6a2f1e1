internal import CHeif

/// Owns a decoded `heif_image`; released with `heif_image_release`.
final class HeifDecodedImage {
    private let pointer: OpaquePointer

    init(_ pointer: OpaquePointer) { self.pointer = pointer }

    deinit { heif_image_release(pointer) }

    /// Lends the Y, Cb, Cr planes and their strides of an 8-bit 4:2:0 image to `body`; returns
    /// nil (without calling it) when the image is not exactly that. The pointers must not escape.
    func withYCbCr420Planes<T>(
        _ body: (_ planes: [UnsafePointer<UInt8>], _ strides: [Int32], _ width: Int, _ height: Int) throws(ConvertError)
            -> T
    ) throws(ConvertError) -> T? {
        try withPlanes(
            heif_colorspace_YCbCr, heif_chroma_420, [heif_channel_Y, heif_channel_Cb, heif_channel_Cr], body)
    }

    /// Lends the R, G, B planes and their strides of an 8-bit planar RGB 4:4:4 image to `body`;
    /// returns nil (without calling it) when the image is not exactly that. The pointers must
    /// not escape.
    func withRGBPlanes<T>(
        _ body: (_ planes: [UnsafePointer<UInt8>], _ strides: [Int32], _ width: Int, _ height: Int) throws(ConvertError)
            -> T
    ) throws(ConvertError) -> T? {
        try withPlanes(heif_colorspace_RGB, heif_chroma_444, [heif_channel_R, heif_channel_G, heif_channel_B], body)
    }

    /// Whether the planes are 8-bit YCbCr 4:2:0 or 8-bit planar RGB, the two layouts the JPEG
    /// encoder takes directly.
    var hasEightBitPlanes: Bool {
        let layouts = [
            (heif_colorspace_YCbCr, heif_chroma_420, heif_channel_Y),
            (heif_colorspace_RGB, heif_chroma_444, heif_channel_R),
        ]
        return layouts.contains { colorspace, chroma, channel in
            heif_image_get_colorspace(pointer) == colorspace && heif_image_get_chroma_format(pointer) == chroma
                && heif_image_get_bits_per_pixel_range(pointer, channel) == 8
        }
    }

    private func withPlanes<T>(
        _ colorspace: heif_colorspace, _ chroma: heif_chroma, _ channels: [heif_channel],
        _ body: (_ planes: [UnsafePointer<UInt8>], _ strides: [Int32], _ width: Int, _ height: Int) throws(ConvertError)
            -> T
    ) throws(ConvertError) -> T? {
        guard heif_image_get_colorspace(pointer) == colorspace, heif_image_get_chroma_format(pointer) == chroma else {
            return nil
        }
        var planes: [UnsafePointer<UInt8>] = []
        var strides: [Int32] = []
        for channel in channels {
            var stride: Int32 = 0
            guard heif_image_get_bits_per_pixel_range(pointer, channel) == 8,
                let plane = heif_image_get_plane_readonly(pointer, channel, &stride)
            else { return nil }
            planes.append(plane)
            strides.append(stride)
        }
        let width = Int(heif_image_get_width(pointer, channels[0]))
        let height = Int(heif_image_get_height(pointer, channels[0]))
        guard width > 0, height > 0 else { return nil }
        return try body(planes, strides, width, height)
    }

    /// Copies the interleaved plane into a bitmap. Deep samples arrive in the low bits of 16-bit
    /// little-endian words and are scaled to 0...65535 with rounding.
    func bitmap(channels: Int, deep: Bool, icc: [UInt8]?, path: String) throws(ConvertError) -> Bitmap {
        let width = Int(heif_image_get_width(pointer, heif_channel_interleaved))
        let height = Int(heif_image_get_height(pointer, heif_channel_interleaved))
        var stride: Int32 = 0
        guard width > 0, height > 0,
            let plane = heif_image_get_plane_readonly(pointer, heif_channel_interleaved, &stride)
        else {
            throw ConvertError(code: .inputCorrupt, message: "\(path) decoded to no pixels.", path: path)
        }
        let rowStride = Int(stride)
        if !deep {
            let rowBytes = width * channels
            var out = [UInt8](repeating: 0, count: rowBytes * height)
            out.withUnsafeMutableBytes { buffer in
                for y in 0..<height {
                    (buffer.baseAddress! + y * rowBytes).copyMemory(from: plane + y * rowStride, byteCount: rowBytes)
                }
            }
            return Bitmap(
                width: width, height: height, channels: channels, samples: .eight(out), sourceBitDepth: 8, icc: icc)
        }
        let bits = Int(heif_image_get_bits_per_pixel_range(pointer, heif_channel_interleaved))
        let depth = (9...16).contains(bits) ? bits : 16
        let maxValue = UInt32((1 << depth) - 1)
        let rowSamples = width * channels
        var out = [UInt16](repeating: 0, count: rowSamples * height)
        out.withUnsafeMutableBufferPointer { buffer in
            for y in 0..<height {
                let row = plane + y * rowStride
                for i in 0..<rowSamples {
                    let value = UInt32(row[i * 2]) | UInt32(row[i * 2 + 1]) << 8
                    buffer[y * rowSamples + i] = UInt16((min(value, maxValue) * 65535 + maxValue / 2) / maxValue)
                }
            }
        }
        return Bitmap(
            width: width, height: height, channels: channels, samples: .sixteen(out), sourceBitDepth: depth, icc: icc)
    }
}
