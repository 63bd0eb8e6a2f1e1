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
