internal import CHeif

/// Owns a `heif_image_handle` (one image item's description); released with
/// `heif_image_handle_release`. Keeps its context alive, since the handle points into it.
final class HeifImageHandle {
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
        try decodePlanar(
            colorspace: heif_colorspace_undefined, chroma: heif_chroma_undefined, cancellation: cancellation)
    }

    private func decodePlanar(
        colorspace: heif_colorspace, chroma: heif_chroma, cancellation: CancellationFlag
    ) throws(ConvertError) -> HeifDecodedImage {
        try cancellation.check()
        var imagePointer: OpaquePointer?
        try Heif.check(heif_decode_image(pointer, &imagePointer, colorspace, chroma, nil), "decode", path: path)
        guard let imagePointer else {
            throw ConvertError(code: .inputCorrupt, message: "\(path) could not be decoded.", path: path)
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
            throw ConvertError(code: .inputCorrupt, message: "\(path) could not be decoded.", path: path)
        }
        let image = HeifDecodedImage(imagePointer)
        try cancellation.check()
        return try image.bitmap(channels: alpha ? 4 : 3, deep: deep, icc: iccProfile, path: path)
    }
}
