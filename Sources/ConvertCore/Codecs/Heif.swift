internal import CHeif

/// libheif's error struct as a `ConvertError`, or nil when it reports success.
enum Heif {
    /// The `heif_color_profile_type` values (built with a macro Swift cannot import): the
    /// big-endian codes ``FourCC`` already holds.
    static let profileNCLX = FourCC("nclx").rawValue
    static let profileRICC = FourCC("rICC").rawValue
    static let profilePROF = FourCC("prof").rawValue

    /// Throws when `error` is not `heif_error_Ok`. Decoder and format errors are `.input`
    /// problems of the file (a cut one `input.truncated`); missing codecs are `.unsupported`; the rest are `.internal`.
    static func check(_ error: heif_error, _ action: String, path: String) throws(ConvertError) {
        guard error.code != heif_error_Ok else { return }
        let detail = error.message.map { String(cString: $0) } ?? "unknown libheif error"
        let code = error.code
        if code == heif_error_Unsupported_filetype || code == heif_error_Unsupported_feature {
            throw ConvertError(
                code: .inputUnsupportedFeature,
                message: "\(path) uses a HEIF feature offconvert cannot \(action).", path: path, underlying: detail)
        }
        // libheif reads a cut `meta` as missing ("No 'meta' box") or as "End of data": the file's
        // last box running past its end says it was cut short.
        if code == heif_error_Invalid_input
            && (error.subcode == heif_suberror_End_of_data || MovieEnding.isCutShort(path: path))
        {
            throw ConvertError(
                code: .inputTruncated,
                message: "\(path) is cut short (its HEIF boxes run past the end of the file); could not \(action) it.",
                path: path, underlying: detail)
        }
        if code == heif_error_Invalid_input || code == heif_error_Decoder_plugin_error {
            throw ConvertError(
                code: .inputCorrupt,
                message: "\(path) is damaged or not a valid HEIF image; could not \(action) it.", path: path,
                underlying: detail)
        }
        if code == heif_error_Memory_allocation_error {
            throw ConvertError(
                code: .inputTooLarge, message: "\(path) is too large to \(action).", path: path,
                underlying: detail)
        }
        if code == heif_error_Encoder_plugin_error || code == heif_error_Encoding_error {
            throw ConvertError(
                code: .encodeFailed, message: "Encoding \(path) failed.", path: path, underlying: detail)
        }
        throw ConvertError(
            code: .inputUnreadable, message: "Could not \(action) \(path).", path: path, underlying: detail)
    }
}
