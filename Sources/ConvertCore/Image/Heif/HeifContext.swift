internal import CHeif

/// libheif's error struct as a `ConvertError`, or nil when it reports success.
enum Heif {
    /// FourCC values of `heif_color_profile_type` (built with a macro Swift cannot import).
    static let profileNCLX: UInt32 = fourCC("nclx")
    static let profileRICC: UInt32 = fourCC("rICC")
    static let profilePROF: UInt32 = fourCC("prof")

    static func fourCC(_ text: StaticString) -> UInt32 {
        precondition(text.utf8CodeUnitCount == 4, "a FourCC has four characters")
        let bytes = text.utf8Start
        return (0..<4).reduce(UInt32(0)) { ($0 << 8) | UInt32(bytes[$1]) }
    }

    /// Throws when `error` is not `heif_error_Ok`. Decoder and format errors are `.input`
    /// problems of the file; missing codecs are `.unsupported`; the rest are `.internal`.
    static func check(_ error: heif_error, _ action: String, path: String) throws(ConvertError) {
        guard error.code != heif_error_Ok else { return }
        let detail = error.message.map { String(cString: $0) } ?? "unknown libheif error"
        let code = error.code
        if code == heif_error_Unsupported_filetype || code == heif_error_Unsupported_feature {
            throw ConvertError(
                .unsupported, key: "input.unsupported-feature",
                message: "\(path) uses a HEIF feature offconvert cannot \(action).", path: path, underlying: detail)
        }
        if code == heif_error_Invalid_input || code == heif_error_Decoder_plugin_error {
            throw ConvertError(
                .input, key: "input.corrupt",
                message: "\(path) is damaged or not a valid HEIF image; could not \(action) it.", path: path,
                underlying: detail)
        }
        if code == heif_error_Memory_allocation_error {
            throw ConvertError(
                .input, key: "input.too-large", message: "\(path) is too large to \(action).", path: path,
                underlying: detail)
        }
        if code == heif_error_Encoder_plugin_error || code == heif_error_Encoding_error {
            throw ConvertError(
                .internal, key: "encode.failed", message: "Encoding \(path) failed.", path: path, underlying: detail)
        }
        throw ConvertError(
            .input, key: "input.unreadable", message: "Could not \(action) \(path).", path: path, underlying: detail)
    }
}

/// Owns a `heif_context` (one HEIF file being read or written); freed with `heif_context_free`.
final class HeifContext {
    private let pointer: OpaquePointer
    let path: String

    /// An empty context, for writing.
    init(forWritingTo path: String) throws(ConvertError) {
        guard let context = heif_context_alloc() else {
            throw ConvertError(.internal, key: "internal.alloc", message: "Out of memory.", path: path)
        }
        pointer = context
        self.path = path
    }

    /// Reads the file's structure (not its pixels). `decodingThreads` bounds libheif's tile
    /// threads; 0 decodes the tiles on the calling thread (see ``DecodingThreads``).
    init(reading path: String, decodingThreads: Int) throws(ConvertError) {
        guard let context = heif_context_alloc() else {
            throw ConvertError(.internal, key: "internal.alloc", message: "Out of memory.", path: path)
        }
        pointer = context
        self.path = path
        heif_context_set_max_decoding_threads(context, Int32(clamping: max(0, decodingThreads)))
        try Heif.check(heif_context_read_from_file(context, path, nil), "read", path: path)
    }

    deinit { heif_context_free(pointer) }

    /// Lends the raw context to libheif calls; it must not escape `body`.
    func withContext<T>(_ body: (OpaquePointer) throws(ConvertError) -> T) throws(ConvertError) -> T {
        try body(pointer)
    }

    /// IDs of the top-level images (aux images and thumbnails excluded), in file order.
    var topLevelImageIDs: [UInt32] {
        let count = heif_context_get_number_of_top_level_images(pointer)
        guard count > 0 else { return [] }
        var ids = [heif_item_id](repeating: 0, count: Int(count))
        let filled = heif_context_get_list_of_top_level_image_IDs(pointer, &ids, count)
        return Array(ids.prefix(Int(max(0, filled))))
    }

    /// The primary image.
    func primaryImage() throws(ConvertError) -> HeifImageHandle {
        var handle: OpaquePointer?
        try Heif.check(heif_context_get_primary_image_handle(pointer, &handle), "read", path: path)
        guard let handle else {
            throw ConvertError(.input, key: "input.corrupt", message: "\(path) has no primary image.", path: path)
        }
        return HeifImageHandle(handle, context: self)
    }

    /// The top-level image with `id`.
    func image(id: UInt32) throws(ConvertError) -> HeifImageHandle {
        var handle: OpaquePointer?
        try Heif.check(heif_context_get_image_handle(pointer, id, &handle), "read", path: path)
        guard let handle else {
            throw ConvertError(.input, key: "input.corrupt", message: "\(path) lacks image \(id).", path: path)
        }
        return HeifImageHandle(handle, context: self)
    }

    /// Writes the context to `path` (a staged temporary file).
    func write(to path: String) throws(ConvertError) {
        let error = heif_context_write_to_file(pointer, path)
        guard error.code == heif_error_Ok else {
            throw ConvertError(
                .device, key: "device.io", message: "Could not write \(self.path).", path: self.path,
                underlying: error.message.map { String(cString: $0) })
        }
    }
}

/// Owns a `heif_image_handle` (one image item's description); released with
/// `heif_image_handle_release`. Keeps its context alive, since the handle points into it.
package final class HeifImageHandle {
    private let pointer: OpaquePointer
    private let context: HeifContext

    init(_ pointer: OpaquePointer, context: HeifContext) {
        self.pointer = pointer
        self.context = context
    }

    deinit { heif_image_handle_release(pointer) }

    var path: String { context.path }
    var width: Int { Int(heif_image_handle_get_width(pointer)) }
    var height: Int { Int(heif_image_handle_get_height(pointer)) }
    var hasAlpha: Bool { heif_image_handle_has_alpha_channel(pointer) != 0 }
    var isPrimary: Bool { heif_image_handle_is_primary_image(pointer) != 0 }
    /// Luma bit depth (8, 10, 12), or nil when libheif cannot tell.
    var bitDepth: Int? {
        let bits = heif_image_handle_get_luma_bits_per_pixel(pointer)
        return bits > 0 ? Int(bits) : nil
    }
    var thumbnailCount: Int { Int(heif_image_handle_get_number_of_thumbnails(pointer)) }
    var depthImageCount: Int { Int(heif_image_handle_get_number_of_depth_images(pointer)) }

    /// Width and height as coded (ispe), before rotation; differs from the displayed size in
    /// orientation when the file rotates the image by 90° or 270° (irot).
    var codedSize: (width: Int, height: Int) {
        (Int(heif_image_handle_get_ispe_width(pointer)), Int(heif_image_handle_get_ispe_height(pointer)))
    }

    /// The thumbnail images attached to this image.
    func thumbnails() -> [HeifImageHandle] {
        let count = heif_image_handle_get_number_of_thumbnails(pointer)
        guard count > 0 else { return [] }
        var ids = [heif_item_id](repeating: 0, count: Int(count))
        let filled = heif_image_handle_get_list_of_thumbnail_IDs(pointer, &ids, count)
        return ids.prefix(Int(max(0, filled))).compactMap { id in
            var thumbnail: OpaquePointer?
            guard heif_image_handle_get_thumbnail(pointer, id, &thumbnail).code == heif_error_Ok, let thumbnail else {
                return nil
            }
            return HeifImageHandle(thumbnail, context: context)
        }
    }

    /// Auxiliary image types (URNs such as `urn:com:apple:photo:2020:aux:hdrgainmap`), depth excluded.
    var auxiliaryTypes: [String] {
        // LIBHEIF_AUX_IMAGE_FILTER_OMIT_ALPHA | _OMIT_DEPTH (macros): alpha and depth have their own calls.
        let filter: Int32 = (1 << 1) | (2 << 1)
        let count = heif_image_handle_get_number_of_auxiliary_images(pointer, filter)
        guard count > 0 else { return [] }
        var ids = [heif_item_id](repeating: 0, count: Int(count))
        let filled = heif_image_handle_get_list_of_auxiliary_image_IDs(pointer, filter, &ids, count)
        var types: [String] = []
        for id in ids.prefix(Int(max(0, filled))) {
            var aux: OpaquePointer?
            guard heif_image_handle_get_auxiliary_image_handle(pointer, id, &aux).code == heif_error_Ok,
                let aux
            else { continue }
            var type: UnsafePointer<CChar>?
            if heif_image_handle_get_auxiliary_type(aux, &type).code == heif_error_Ok, let text = type {
                types.append(String(cString: text))
                // The type string is allocated for the caller; this is its matching free.
                heif_image_handle_free_auxiliary_types(aux, &type)
            }
            heif_image_handle_release(aux)
        }
        return types
    }

    /// The raw ICC profile (`prof` or `rICC`), if the image has one.
    var iccProfile: [UInt8]? {
        let type = UInt32(heif_image_handle_get_color_profile_type(pointer).rawValue)
        guard type == Heif.profilePROF || type == Heif.profileRICC else { return nil }
        let size = heif_image_handle_get_raw_color_profile_size(pointer)
        guard size > 0 else { return nil }
        var bytes = [UInt8](repeating: 0, count: size)
        guard heif_image_handle_get_raw_color_profile(pointer, &bytes).code == heif_error_Ok else { return nil }
        return bytes
    }

    /// The nclx colour description, if the image has one instead of (or besides) an ICC profile.
    var nclx: NCLX? {
        var profile: UnsafeMutablePointer<heif_color_profile_nclx>?
        guard heif_image_handle_get_nclx_color_profile(pointer, &profile).code == heif_error_Ok, let profile else {
            return nil
        }
        defer { heif_nclx_color_profile_free(profile) }
        return NCLX(
            primaries: Int(profile.pointee.color_primaries.rawValue),
            transfer: Int(profile.pointee.transfer_characteristics.rawValue),
            matrix: Int(profile.pointee.matrix_coefficients.rawValue),
            fullRange: profile.pointee.full_range_flag != 0)
    }

    /// The payloads of metadata blocks of `type` ("Exif" or "mime"), with their content types.
    func metadata(type: String) -> [(contentType: String, bytes: [UInt8])] {
        let count = heif_image_handle_get_number_of_metadata_blocks(pointer, type)
        guard count > 0 else { return [] }
        var ids = [heif_item_id](repeating: 0, count: Int(count))
        let filled = heif_image_handle_get_list_of_metadata_block_IDs(pointer, type, &ids, count)
        var blocks: [(String, [UInt8])] = []
        for id in ids.prefix(Int(max(0, filled))) {
            let size = heif_image_handle_get_metadata_size(pointer, id)
            // Metadata is small; refuse absurd sizes from a hostile file instead of allocating them.
            guard size > 0, size < 64 << 20 else { continue }
            var bytes = [UInt8](repeating: 0, count: size)
            guard heif_image_handle_get_metadata(pointer, id, &bytes).code == heif_error_Ok else { continue }
            let contentType = heif_image_handle_get_metadata_content_type(pointer, id).map { String(cString: $0) } ?? ""
            blocks.append((contentType, bytes))
        }
        return blocks
    }

    /// The EXIF payload as a TIFF stream (the 4-byte offset header of HEIF's Exif item removed).
    var exif: [UInt8]? {
        guard let block = metadata(type: "Exif").first?.bytes, block.count > 4 else { return nil }
        let offset = Int(block[0]) << 24 | Int(block[1]) << 16 | Int(block[2]) << 8 | Int(block[3])
        let start = 4 + offset
        guard start < block.count else { return nil }
        return Array(block[start...])
    }

    /// The XMP packet, if any.
    var xmp: [UInt8]? {
        metadata(type: "mime").first { $0.contentType == "application/rdf+xml" }?.bytes
    }

    /// Decodes to 8-bit YCbCr 4:2:0 planes without converting to RGB (irot/imir/clap applied).
    func decodeYCbCr420(cancellation: CancellationFlag) throws(ConvertError) -> HeifDecodedImage {
        try decodePlanar(colorspace: heif_colorspace_YCbCr, chroma: heif_chroma_420, cancellation: cancellation)
    }

    /// Decodes to whatever planes libheif produces without a colour conversion (irot/imir/clap
    /// applied): YCbCr for a single coded image, but planar RGB 4:4:4 for a grid (libheif 1.15
    /// assembles an iPhone photo's 512×512 tiles in RGB, so asking it for YCbCr then costs a
    /// second, scalar float conversion of the whole picture: about 15% of the decode).
    func decodeNative(cancellation: CancellationFlag) throws(ConvertError) -> HeifDecodedImage {
        try decodePlanar(colorspace: heif_colorspace_undefined, chroma: heif_chroma_undefined, cancellation: cancellation)
    }

    private func decodePlanar(
        colorspace: heif_colorspace, chroma: heif_chroma, cancellation: CancellationFlag
    ) throws(ConvertError) -> HeifDecodedImage {
        try cancellation.check()
        var imagePointer: OpaquePointer?
        try Heif.check(heif_decode_image(pointer, &imagePointer, colorspace, chroma, nil), "decode", path: path)
        guard let imagePointer else {
            throw ConvertError(.input, key: "input.corrupt", message: "\(path) could not be decoded.", path: path)
        }
        return HeifDecodedImage(imagePointer)
    }

    /// Decodes the pixels (irot/imir/clap applied by libheif) to RGB(A), 8-bit or, for deeper
    /// sources, 16-bit scaled to the full range.
    func decode(cancellation: CancellationFlag) throws(ConvertError) -> Bitmap {
        try cancellation.check()
        let depth = bitDepth ?? 8
        let alpha = hasAlpha
        let deep = depth > 8
        let chroma: heif_chroma =
            deep
            ? (alpha ? heif_chroma_interleaved_RRGGBBAA_LE : heif_chroma_interleaved_RRGGBB_LE)
            : (alpha ? heif_chroma_interleaved_RGBA : heif_chroma_interleaved_RGB)
        var imagePointer: OpaquePointer?
        try Heif.check(
            heif_decode_image(pointer, &imagePointer, heif_colorspace_RGB, chroma, nil), "decode", path: path)
        guard let imagePointer else {
            throw ConvertError(.input, key: "input.corrupt", message: "\(path) could not be decoded.", path: path)
        }
        let image = HeifDecodedImage(imagePointer)
        try cancellation.check()
        return try image.bitmap(channels: alpha ? 4 : 3, deep: deep, icc: iccProfile, path: path)
    }
}

/// Owns a decoded `heif_image`; released with `heif_image_release`.
package final class HeifDecodedImage {
    private let pointer: OpaquePointer

    init(_ pointer: OpaquePointer) { self.pointer = pointer }

    deinit { heif_image_release(pointer) }

    /// Lends the Y, Cb, Cr planes and their strides of an 8-bit 4:2:0 image to `body`; returns
    /// nil (without calling it) when the image is not exactly that. The pointers must not escape.
    func withYCbCr420Planes<T>(
        _ body: (_ planes: [UnsafePointer<UInt8>], _ strides: [Int32], _ width: Int, _ height: Int) throws(ConvertError) -> T
    ) throws(ConvertError) -> T? {
        try withPlanes(heif_colorspace_YCbCr, heif_chroma_420, [heif_channel_Y, heif_channel_Cb, heif_channel_Cr], body)
    }

    /// Lends the R, G, B planes and their strides of an 8-bit planar RGB 4:4:4 image to `body`;
    /// returns nil (without calling it) when the image is not exactly that. The pointers must
    /// not escape.
    func withRGBPlanes<T>(
        _ body: (_ planes: [UnsafePointer<UInt8>], _ strides: [Int32], _ width: Int, _ height: Int) throws(ConvertError) -> T
    ) throws(ConvertError) -> T? {
        try withPlanes(heif_colorspace_RGB, heif_chroma_444, [heif_channel_R, heif_channel_G, heif_channel_B], body)
    }

    /// Whether the planes are 8-bit YCbCr 4:2:0 or 8-bit planar RGB, the two layouts the JPEG
    /// encoder takes directly.
    var hasEightBitPlanes: Bool {
        let layouts = [
            (heif_colorspace_YCbCr, heif_chroma_420, heif_channel_Y), (heif_colorspace_RGB, heif_chroma_444, heif_channel_R),
        ]
        return layouts.contains { colorspace, chroma, channel in
            heif_image_get_colorspace(pointer) == colorspace && heif_image_get_chroma_format(pointer) == chroma
                && heif_image_get_bits_per_pixel_range(pointer, channel) == 8
        }
    }

    private func withPlanes<T>(
        _ colorspace: heif_colorspace, _ chroma: heif_chroma, _ channels: [heif_channel],
        _ body: (_ planes: [UnsafePointer<UInt8>], _ strides: [Int32], _ width: Int, _ height: Int) throws(ConvertError) -> T
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
        guard width > 0, height > 0, let plane = heif_image_get_plane_readonly(pointer, heif_channel_interleaved, &stride)
        else {
            throw ConvertError(.input, key: "input.corrupt", message: "\(path) decoded to no pixels.", path: path)
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
            return Bitmap(width: width, height: height, channels: channels, samples: .eight(out), sourceBitDepth: 8, icc: icc)
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

/// The nclx colour description of a HEIF/AVIF image (ITU-T H.273 code points).
public struct NCLX: Sendable, Hashable, Codable {
    /// Colour primaries (1 BT.709/sRGB, 9 BT.2020, 12 Display P3, ...).
    public var primaries: Int
    /// Transfer characteristics (1 BT.709, 13 sRGB, 16 PQ, 18 HLG, ...).
    public var transfer: Int
    /// Matrix coefficients (1 BT.709, 6 BT.601, 9 BT.2020 NCL, ...).
    public var matrix: Int
    /// Whether YCbCr uses the full range.
    public var fullRange: Bool

    /// Creates a description from its code points.
    public init(primaries: Int, transfer: Int, matrix: Int, fullRange: Bool) {
        self.primaries = primaries
        self.transfer = transfer
        self.matrix = matrix
        self.fullRange = fullRange
    }
}
